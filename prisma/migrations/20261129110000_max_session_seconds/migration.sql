-- AlterTable
ALTER TABLE "workspaces" ADD COLUMN     "max_session_seconds" INTEGER;

-- A workspace's own limit lies within the deployment's ceiling (src/config.ts: a day).
ALTER TABLE "workspaces" ADD CONSTRAINT "workspaces_max_session_seconds_check" CHECK ("max_session_seconds" IS NULL OR ("max_session_seconds" >= 60 AND "max_session_seconds" <= 86400));
