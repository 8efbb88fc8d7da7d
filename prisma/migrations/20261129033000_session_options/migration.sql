-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "options" JSONB NOT NULL DEFAULT '{}';
