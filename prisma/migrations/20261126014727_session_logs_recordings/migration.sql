-- CreateEnum
CREATE TYPE "RecordingStatus" AS ENUM ('RECORDING', 'PROCESSING', 'READY', 'FAILED');

-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "logs" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "recording" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "session_log_keys" (
    "session_id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "wrapped_key" BYTEA NOT NULL,
    "master_key_id" TEXT NOT NULL,
    "entries" INTEGER NOT NULL DEFAULT 0,
    "bytes" INTEGER NOT NULL DEFAULT 0,
    "truncated" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "session_log_keys_pkey" PRIMARY KEY ("session_id")
);

-- CreateTable
CREATE TABLE "session_log_entries" (
    "session_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "data" BYTEA NOT NULL,

    CONSTRAINT "session_log_entries_pkey" PRIMARY KEY ("session_id","seq")
);

-- CreateTable
CREATE TABLE "recordings" (
    "session_id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "status" "RecordingStatus" NOT NULL DEFAULT 'RECORDING',
    "storage" TEXT NOT NULL,
    "node_id" TEXT,
    "content_type" TEXT NOT NULL DEFAULT 'video/mp4',
    "size_bytes" INTEGER,
    "duration_ms" INTEGER,
    "frames" INTEGER,
    "width" INTEGER,
    "height" INTEGER,
    "chunk_bytes" INTEGER NOT NULL,
    "wrapped_key" BYTEA NOT NULL,
    "master_key_id" TEXT NOT NULL,
    "failure" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "ended_at" TIMESTAMPTZ(3),
    "ready_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "recordings_pkey" PRIMARY KEY ("session_id")
);

-- CreateTable
CREATE TABLE "recording_chunks" (
    "session_id" TEXT NOT NULL,
    "idx" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,

    CONSTRAINT "recording_chunks_pkey" PRIMARY KEY ("session_id","idx")
);

-- CreateIndex
CREATE INDEX "session_log_keys_expires_at_idx" ON "session_log_keys"("expires_at");

-- CreateIndex
CREATE INDEX "session_log_keys_master_key_id_idx" ON "session_log_keys"("master_key_id");

-- CreateIndex
CREATE INDEX "recordings_expires_at_idx" ON "recordings"("expires_at");

-- CreateIndex
CREATE INDEX "recordings_master_key_id_idx" ON "recordings"("master_key_id");

-- AddForeignKey
ALTER TABLE "session_log_keys" ADD CONSTRAINT "session_log_keys_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "session_log_entries" ADD CONSTRAINT "session_log_entries_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "recordings" ADD CONSTRAINT "recordings_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "recording_chunks" ADD CONSTRAINT "recording_chunks_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "recordings"("session_id") ON DELETE CASCADE ON UPDATE CASCADE;
