-- MCP-grant tickets record their bounds (CTR-3). SQLite appends ADD COLUMN at the end of the table
-- text, so the table is rebuilt (Prisma's redefine pattern) to match a fresh `tickets` exactly.
-- RedefineTable
CREATE TABLE "new_tickets" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "kind" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "vault" TEXT NOT NULL,
    "member" TEXT NOT NULL,
    "reusable" BOOLEAN NOT NULL,
    "scope" TEXT,
    "grant_minutes" INTEGER,
    "expires_at" DATETIME NOT NULL,
    "used_at" DATETIME,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO "new_tickets" ("id", "kind", "token_hash", "vault", "member", "reusable", "expires_at", "used_at", "created_at")
SELECT "id", "kind", "token_hash", "vault", "member", "reusable", "expires_at", "used_at", "created_at" FROM "tickets";
DROP TABLE "tickets";
ALTER TABLE "new_tickets" RENAME TO "tickets";
CREATE INDEX "tickets_expires_at_idx" ON "tickets"("expires_at");
CREATE UNIQUE INDEX "tickets_token_hash_key" ON "tickets"("token_hash");
