-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "browser" JSONB;
