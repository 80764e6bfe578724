-- CreateTable
CREATE TABLE "cards" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "vault" TEXT NOT NULL,
    "data" TEXT NOT NULL,
    "e2e" BOOLEAN NOT NULL,
    "revision" INTEGER NOT NULL,
    "created_at" DATETIME NOT NULL,
    "updated_at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "devices" (
    "vault" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "member" TEXT NOT NULL,
    "ed25519" TEXT NOT NULL,
    "x25519" TEXT NOT NULL,
    "authorized_by" TEXT NOT NULL,
    "signature" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL,

    PRIMARY KEY ("vault", "id")
);

-- CreateTable
CREATE TABLE "sealed_envelopes" (
    "vault" TEXT NOT NULL,
    "card_id" TEXT NOT NULL,
    "device_id" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "wire" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL,

    PRIMARY KEY ("vault", "card_id", "device_id")
);

-- CreateIndex
CREATE INDEX "cards_vault_idx" ON "cards"("vault");

-- CreateIndex
CREATE INDEX "sealed_envelopes_vault_device_id_idx" ON "sealed_envelopes"("vault", "device_id");

