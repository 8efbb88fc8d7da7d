-- API key scopes (src/auth/scopes.ts): existing keys get none, so none of them may use or manage credentials.
ALTER TABLE "api_keys" ADD COLUMN "scopes" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "credentials" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "origins" TEXT[],
    "username_hint" TEXT NOT NULL,
    "has_totp" BOOLEAN NOT NULL,
    "sealed" BYTEA NOT NULL,
    "wrapped_key" BYTEA NOT NULL,
    "master_key_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "credentials_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "credentials_workspace_id_name_key" ON "credentials"("workspace_id", "name");

-- CreateIndex
CREATE INDEX "credentials_workspace_id_id_idx" ON "credentials"("workspace_id", "id");

-- CreateIndex
CREATE INDEX "credentials_master_key_id_idx" ON "credentials"("master_key_id");

-- AddForeignKey
ALTER TABLE "credentials" ADD CONSTRAINT "credentials_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
