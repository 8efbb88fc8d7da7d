-- AlterTable
ALTER TABLE "login_tokens" ADD COLUMN     "family_id" TEXT,
ADD COLUMN     "redirect_path" TEXT;
