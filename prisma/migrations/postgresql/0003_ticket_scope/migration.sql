-- MCP-grant tickets record their bounds (CTR-3): the widest local scope and the longest grant.
-- AlterTable
ALTER TABLE "tickets" ADD COLUMN     "grant_minutes" INTEGER,
ADD COLUMN     "scope" TEXT;

