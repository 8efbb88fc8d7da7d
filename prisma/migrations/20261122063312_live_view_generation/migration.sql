-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "live_view_generation" INTEGER NOT NULL DEFAULT 0;
