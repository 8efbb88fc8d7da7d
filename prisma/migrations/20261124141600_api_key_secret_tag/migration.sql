-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "secret_tag" INTEGER;
