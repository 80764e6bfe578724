-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "members" (
    "name" TEXT NOT NULL,
    "credential_hash" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "members_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "memberships" (
    "vault" TEXT NOT NULL,
    "member_name" TEXT NOT NULL,
    "role" TEXT NOT NULL,

    CONSTRAINT "memberships_pkey" PRIMARY KEY ("vault","member_name")
);

-- CreateTable
CREATE TABLE "grants" (
    "id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "vault" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "depth" INTEGER NOT NULL,
    "parent_id" TEXT,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "grants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "permission_requests" (
    "id" TEXT NOT NULL,
    "vault" TEXT NOT NULL,
    "requester" TEXT NOT NULL,
    "credential_hash" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "minutes" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "approver" TEXT,
    "grant_id" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL,
    "transitioned_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "permission_requests_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tickets" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "vault" TEXT NOT NULL,
    "member" TEXT NOT NULL,
    "reusable" BOOLEAN NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "used_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tickets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "center_locks" (
    "key" TEXT NOT NULL,
    "n" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "center_locks_pkey" PRIMARY KEY ("key")
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

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_member_name_fkey" FOREIGN KEY ("member_name") REFERENCES "members"("name") ON DELETE CASCADE ON UPDATE CASCADE;

