-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "extension_ids" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "extensions" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "ciphertext" BYTEA NOT NULL,
    "wrapped_key" BYTEA NOT NULL,
    "master_key_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "extensions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "extensions_workspace_id_id_idx" ON "extensions"("workspace_id", "id");

-- CreateIndex
CREATE INDEX "extensions_master_key_id_idx" ON "extensions"("master_key_id");

-- AddForeignKey
ALTER TABLE "extensions" ADD CONSTRAINT "extensions_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
