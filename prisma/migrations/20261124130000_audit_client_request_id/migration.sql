-- AlterTable
ALTER TABLE "audit_entries" ADD COLUMN     "client_request_id" TEXT;
