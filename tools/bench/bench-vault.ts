// npm run bench:vault — revision commits/s of the vault service (4 KiB bodies) against a
// raw better-sqlite3 insert loop with synchronous=FULL on the same disk, and unlock time
// against a bare Argon2id hash with the same parameters, measured in one run. The two sides
// of each ratio are measured interleaved (alternating slices of SLICE commits; alternating
// unlock / hash pairs), so load from other jobs on the machine hits both sides alike.
// A third interleaved side, the crypto floor (vault-crypto-floor.ts), commits what the spec's
// cryptography requires per revision and nothing else: the ceiling for any compliant vault.
// Prints one JSON line; record results in docs/benchmarks.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import Database from 'better-sqlite3';
import type * as VaultApi from '@arslan/desktop-vault';
import { round } from './bench-timer';
import { importBundled } from './bundle';
import { type FloorCore, openCryptoFloor } from './vault-crypto-floor';

const BODY_BYTES = 4096;
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 3);
/** Commits per timed slice; vault and raw slices alternate until each side has SECONDS. */
const SLICE = 25;
const UNLOCKS = 7;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** A printable 4 KiB body (the vault stores text). */
function body(): string {
  return randomBytes(BODY_BYTES / 2).toString('hex');
}

/** The raw peer: one 4 KiB row per insert, autocommit (one transaction per row). */
function openRawPeer(dir: string): { insert: () => void; close: () => void } {
  const db = new Database(join(dir, 'raw.sqlite'));
  // Same durability settings as the vault store (store-schema.ts applyDurabilityPragmas):
  // rollback journal DELETE, synchronous=FULL.
  db.pragma('journal_mode = DELETE');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE revisions (id INTEGER PRIMARY KEY, value BLOB NOT NULL)');
  const insert = db.prepare('INSERT INTO revisions (value) VALUES (?)');
  return { insert: () => void insert.run(Buffer.from(body())), close: () => db.close() };
}

function argon2Hash(password: string): Promise<Buffer> {
  return argon2.hash(password, {
    type: argon2.argon2id,
    version: 0x13,
    memoryCost: 65536,
    timeCost: 3,
    parallelism: 1,
    hashLength: 32,
    salt: randomBytes(16),
    raw: true,
  });
}

async function main(): Promise<void> {
  // One bundle, so the floor's vault-core uses the OpenSSL providers the service installs.
  const vault = await importBundled<typeof VaultApi & FloorCore>(
    "export { createVaultService } from '@arslan/desktop-vault'; export { writeRevision, encodeRevisionRow, sealState, generateUserIdentity, generateDeviceKeys, issueDeviceCertificate } from '@arslan/vault-core';",
    'node',
  );
  const work = mkdtempSync(join(tmpdir(), 'arslan-bench-vault-'));
  const password = 'correct horse battery staple';
  try {
    const service = vault.createVaultService(join(work, 'store'));
    await service.init(password);
    const raw = openRawPeer(work);
    const floor = openCryptoFloor(vault, work, body);
    for (let i = 0; i < 20; i++) {
      service.write({ title: `warm ${i}`, body: body() });
      raw.insert();
      floor.commit();
    }
    let commits = 0;
    let inserts = 0;
    let floorCommits = 0;
    let serviceMs = 0;
    let rawMs = 0;
    let floorMs = 0;
    while (serviceMs < SECONDS * 1000 || rawMs < SECONDS * 1000 || floorMs < SECONDS * 1000) {
      let t = performance.now();
      for (let i = 0; i < SLICE; i++, commits++) service.write({ title: `note ${commits}`, body: body() });
      serviceMs += performance.now() - t;
      t = performance.now();
      for (let i = 0; i < SLICE; i++, inserts++) raw.insert();
      rawMs += performance.now() - t;
      t = performance.now();
      for (let i = 0; i < SLICE; i++, floorCommits++) floor.commit();
      floorMs += performance.now() - t;
    }
    raw.close();
    floor.close();
    const serviceRate = (commits * 1000) / serviceMs;
    const rawRate = (inserts * 1000) / rawMs;
    const floorRate = (floorCommits * 1000) / floorMs;

    const unlockMs: number[] = [];
    const argonMs: number[] = [];
    for (let i = 0; i < UNLOCKS; i++) {
      service.lock();
      let t = performance.now();
      await service.unlock(password);
      unlockMs.push(performance.now() - t);
      t = performance.now();
      await argon2Hash(password);
      argonMs.push(performance.now() - t);
    }
    service.close();

    console.log(
      JSON.stringify({
        bench: 'vault',
        body_bytes: BODY_BYTES,
        vault_commits_s: round(serviceRate),
        raw_sqlite_full_inserts_s: round(rawRate),
        ratio_commits_vs_raw: round(serviceRate / rawRate, 3),
        // The required crypto + one row and checkpoint, nothing else (vault-crypto-floor.ts):
        // the highest commits ratio the spec's cryptography allows on this disk.
        crypto_floor_commits_s: round(floorRate),
        ratio_crypto_floor_vs_raw: round(floorRate / rawRate, 3),
        ratio_commits_vs_crypto_floor: round(serviceRate / floorRate, 3),
        revisions_written: commits + 20,
        unlock_ms_p50: round(median(unlockMs)),
        argon2id_ms_p50: round(median(argonMs)),
        ratio_unlock_vs_argon2id: round(median(unlockMs) / median(argonMs), 3),
        node: process.version,
      }),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

void main();
