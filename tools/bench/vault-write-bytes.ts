// npx tsx tools/bench/vault-write-bytes.ts — the deterministic side of bench:vault: bytes
// and write calls per commit (Linux `/proc/self/io` wchar/syscw: database + rollback journal),
// for vault service writes of 4 KiB bodies and for the raw 4 KiB insert loop of bench:vault;
// plus ms per commit with the store on tmpfs (`/dev/shm`: fsync is free there, so this is the
// CPU + page-write cost the vault adds). Unlike commits/s, the byte figures do not move
// with the load of other jobs. Prints one JSON line.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import type * as VaultApi from '@arslan/desktop-vault';
import { round } from './bench-timer';
import { importBundled } from './bundle';

const BODY_BYTES = 4096;
const WRITES = Number(process.env['BENCH_WRITES'] ?? 300);
const WARMUP = 40;

function io(): { wchar: number; syscw: number } {
  const text = readFileSync('/proc/self/io', 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(text)?.[1]);
  return { wchar: field('wchar'), syscw: field('syscw') };
}

function body(): string {
  return randomBytes(BODY_BYTES / 2).toString('hex');
}

/** Per-commit wchar bytes, write calls and ms over WRITES calls of `op`. */
function measure(op: () => void): { kib: number; writes: number; ms: number } {
  for (let i = 0; i < WARMUP; i++) op();
  const before = io();
  const t = performance.now();
  for (let i = 0; i < WRITES; i++) op();
  const ms = performance.now() - t;
  const after = io();
  return {
    kib: round((after.wchar - before.wchar) / WRITES / 1024, 1),
    writes: round((after.syscw - before.syscw) / WRITES, 1),
    ms: round(ms / WRITES, 3),
  };
}

async function main(): Promise<void> {
  const vault = await importBundled<typeof VaultApi>(
    "export { createVaultService } from '@arslan/desktop-vault';",
    'node',
  );
  const result: Record<string, unknown> = {
    bench: 'vault-write-bytes',
    body_bytes: BODY_BYTES,
    writes: WRITES,
  };
  for (const [name, base] of [
    ['disk', tmpdir()],
    ['tmpfs', '/dev/shm'],
  ] as const) {
    const work = mkdtempSync(join(base, 'arslan-bench-vault-bytes-'));
    try {
      const service = vault.createVaultService(join(work, 'store'));
      await service.init('correct horse battery staple');
      let n = 0;
      const v = measure(() => void service.write({ title: `note ${n++}`, body: body() }));
      service.close();
      const db = new Database(join(work, 'raw.sqlite'));
      db.pragma('journal_mode = DELETE');
      db.pragma('synchronous = FULL');
      db.exec('CREATE TABLE revisions (id INTEGER PRIMARY KEY, value BLOB NOT NULL)');
      const insert = db.prepare('INSERT INTO revisions (value) VALUES (?)');
      const r = measure(() => void insert.run(Buffer.from(body())));
      db.close();
      result[`${name}_vault_kib_per_commit`] = v.kib;
      result[`${name}_raw_kib_per_commit`] = r.kib;
      result[`${name}_vault_write_calls`] = v.writes;
      result[`${name}_raw_write_calls`] = r.writes;
      result[`${name}_vault_ms`] = v.ms;
      result[`${name}_raw_ms`] = r.ms;
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  console.log(JSON.stringify({ ...result, node: process.version }));
}

void main();
