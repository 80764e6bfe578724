-- CreateTable
CREATE TABLE "members" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "credential_hash" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "memberships" (
    "vault" TEXT NOT NULL,
    "member_name" TEXT NOT NULL,
    "role" TEXT NOT NULL,

    PRIMARY KEY ("vault", "member_name"),
    CONSTRAINT "memberships_member_name_fkey" FOREIGN KEY ("member_name") REFERENCES "members" ("name") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "grants" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "token_hash" TEXT NOT NULL,
    "vault" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "depth" INTEGER NOT NULL,
    "parent_id" TEXT,
    "expires_at" DATETIME NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "permission_requests" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "vault" TEXT NOT NULL,
    "requester" TEXT NOT NULL,
    "credential_hash" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "minutes" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "approver" TEXT,
    "grant_id" TEXT,
    "created_at" DATETIME NOT NULL,
    "transitioned_at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "tickets" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "kind" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "vault" TEXT NOT NULL,
    "member" TEXT NOT NULL,
    "reusable" BOOLEAN NOT NULL,
    "expires_at" DATETIME NOT NULL,
    "used_at" DATETIME,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "center_locks" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "n" INTEGER NOT NULL DEFAULT 0
);

-- CreateIndex
CREATE UNIQUE INDEX "members_credential_hash_key" ON "members"("credential_hash");

-- CreateIndex
CREATE UNIQUE INDEX "grants_token_hash_key" ON "grants"("token_hash");

-- CreateIndex
CREATE INDEX "grants_vault_idx" ON "grants"("vault");

-- CreateIndex
CREATE INDEX "grants_expires_at_idx" ON "grants"("expires_at");

-- CreateIndex
CREATE INDEX "grants_parent_id_idx" ON "grants"("parent_id");

-- CreateIndex
CREATE INDEX "permission_requests_vault_status_idx" ON "permission_requests"("vault", "status");

-- CreateIndex
CREATE INDEX "permission_requests_vault_requester_status_idx" ON "permission_requests"("vault", "requester", "status");

-- CreateIndex
CREATE INDEX "permission_requests_transitioned_at_idx" ON "permission_requests"("transitioned_at");

-- CreateIndex
CREATE UNIQUE INDEX "tickets_token_hash_key" ON "tickets"("token_hash");

-- CreateIndex
CREATE INDEX "tickets_expires_at_idx" ON "tickets"("expires_at");

