// npm run bench:vault — revision commits/s of the vault service (4 KiB bodies) against a
// raw better-sqlite3 insert loop with synchronous=FULL on the same disk, and unlock time
// against a bare Argon2id hash with the same parameters, measured in one run.
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

const BODY_BYTES = 4096;
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 3);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** A printable 4 KiB body (the vault stores text). */
function body(): string {
  return randomBytes(BODY_BYTES / 2).toString('hex');
}

function rawInsertsPerSecond(dir: string): number {
  const db = new Database(join(dir, 'raw.sqlite'));
  // Same durability settings as the vault store: rollback journal, synchronous=FULL.
  db.pragma('journal_mode = DELETE');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE revisions (id INTEGER PRIMARY KEY, value BLOB NOT NULL)');
  const insert = db.prepare('INSERT INTO revisions (value) VALUES (?)');
  for (let i = 0; i < 20; i++) insert.run(Buffer.from(body()));
  let count = 0;
  const start = performance.now();
  while (performance.now() - start < SECONDS * 1000) {
    insert.run(Buffer.from(body()));
    count++;
  }
  const rate = (count * 1000) / (performance.now() - start);
  db.close();
  return rate;
}

async function main(): Promise<void> {
  const vault = await importBundled<typeof VaultApi>(
    "export { createVaultService } from '@arslan/desktop-vault';",
    'node',
  );
  const work = mkdtempSync(join(tmpdir(), 'arslan-bench-vault-'));
  const password = 'correct horse battery staple';
  try {
    const service = vault.createVaultService(join(work, 'store'));
    await service.init(password);
    for (let i = 0; i < 20; i++) service.write({ title: `warm ${i}`, body: body() });
    let commits = 0;
    const start = performance.now();
    while (performance.now() - start < SECONDS * 1000) {
      service.write({ title: `note ${commits}`, body: body() });
      commits++;
    }
    const serviceRate = (commits * 1000) / (performance.now() - start);

    const unlockMs: number[] = [];
    for (let i = 0; i < 5; i++) {
      service.lock();
      const t = performance.now();
      await service.unlock(password);
      unlockMs.push(performance.now() - t);
    }
    service.close();

    const argonMs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await argon2.hash(password, {
        type: argon2.argon2id,
        version: 0x13,
        memoryCost: 65536,
        timeCost: 3,
        parallelism: 1,
        hashLength: 32,
        salt: randomBytes(16),
        raw: true,
      });
      argonMs.push(performance.now() - t);
    }

    const rawRate = rawInsertsPerSecond(work);
    console.log(
      JSON.stringify({
        bench: 'vault',
        body_bytes: BODY_BYTES,
        vault_commits_s: round(serviceRate),
        raw_sqlite_full_inserts_s: round(rawRate),
        ratio_commits_vs_raw: round(serviceRate / rawRate, 3),
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
