import fs from 'node:fs';
import Database from 'better-sqlite3';
import { fastTestKdf, pw, tempDataDir } from './test-only-support';
import { LOOKUP_BLOCK_ROWS, lookupBlockLabel } from './revision-lookups';
import { initStore } from './store-init';
import { storePath } from './store-schema';
import { type VaultStore, openStore } from './vault-store';

const PASSWORD = pw('correct horse battery staple');
const dirs: string[] = [];
const open: VaultStore[] = [];

async function unlocked(dir: string): Promise<VaultStore> {
  const store = openStore(dir, { kdf: fastTestKdf });
  open.push(store);
  await store.unlock(PASSWORD);
  return store;
}

const idOf = (i: number) => `revision-${i}`;
const valueOf = (i: number) => Buffer.from(`row ${i}`, 'utf8');

/** A store with `count` revision rows appended in commits of `batch`. */
async function storeWithRows(count: number, batch: number): Promise<string> {
  const dir = tempDataDir();
  dirs.push(dir);
  await initStore(dir, PASSWORD, fastTestKdf);
  const store = await unlocked(dir);
  for (let i = 1; i <= count; i += batch) {
    const rows = [];
    for (let j = i; j < Math.min(i + batch, count + 1); j++) rows.push({ id: idOf(j), value: valueOf(j) });
    store.appendRows([], rows);
  }
  store.close();
  return dir;
}

function blockPurposes(dir: string): string[] {
  const db = new Database(storePath(dir), { readonly: true });
  try {
    return db
      .prepare(
        "SELECT purpose FROM state WHERE purpose >= 'lookups.' AND purpose < 'lookups/' ORDER BY purpose",
      )
      .pluck()
      .all() as string[];
  } finally {
    db.close();
  }
}

afterEach(() => {
  for (const store of open.splice(0)) store.close();
});

afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('revision lookups without an SQL index (AUD-2, VAULT-2)', () => {
  jest.setTimeout(60_000);

  it('AUD-2: full blocks of 256 lookups are sealed in the commit that fills them; every id is found after reopen', async () => {
    const count = 2 * LOOKUP_BLOCK_ROWS + 10;
    // one commit crossing a block boundary with several rows, and single-row commits
    const dir = await storeWithRows(count, 7);
    expect(blockPurposes(dir)).toEqual([lookupBlockLabel(0).purpose, lookupBlockLabel(1).purpose]);
    const store = await unlocked(dir);
    expect(store.revisionCount).toBe(count);
    for (const i of [1, 200, LOOKUP_BLOCK_ROWS, LOOKUP_BLOCK_ROWS + 1, 2 * LOOKUP_BLOCK_ROWS, count])
      expect(store.readRevision(idOf(i))).toEqual({ seq: i, value: new Uint8Array(valueOf(i)) });
    expect(store.readRevision('absent')).toBeUndefined();
    // an id already stored is refused, as the unique index did
    expect(() => store.appendRows([], [{ id: idOf(3), value: valueOf(0) }])).toThrow(
      expect.objectContaining({ code: 'commit_failed' }),
    );
    // one import-sized commit completes several blocks at once
    const rows = Array.from({ length: 2 * LOOKUP_BLOCK_ROWS }, (_, k) => ({
      id: idOf(count + 1 + k),
      value: valueOf(count + 1 + k),
    }));
    store.appendRows([], rows);
    expect(store.readRevision(idOf(count + 2 * LOOKUP_BLOCK_ROWS))?.seq).toBe(count + 2 * LOOKUP_BLOCK_ROWS);
    store.close();
    expect(blockPurposes(dir)).toHaveLength(4);
    const again = await unlocked(dir);
    expect(again.readRevision(idOf(count + 1))?.seq).toBe(count + 1);
  });

  it('AUD-2: a deleted lookup block → corrupt at unlock; a block moved to another number → corrupt on first read', async () => {
    const dir = await storeWithRows(2 * LOOKUP_BLOCK_ROWS, 64);
    const db = new Database(storePath(dir));
    try {
      const [b0, b1] = db
        .prepare("SELECT purpose, value FROM state WHERE purpose >= 'lookups.' ORDER BY purpose LIMIT 2")
        .all() as { purpose: string; value: Buffer }[];
      db.prepare('DELETE FROM state WHERE purpose = ?').run(b1!.purpose);
      const s = openStore(dir, { kdf: fastTestKdf });
      open.push(s);
      await expect(s.unlock(PASSWORD)).rejects.toMatchObject({ code: 'corrupt' });
      s.close();
      // swap the contents: each block is sealed with its own number in the AAD
      db.prepare('INSERT INTO state (purpose, value) VALUES (?, ?)').run(b1!.purpose, b0!.value);
      db.prepare('UPDATE state SET value = ? WHERE purpose = ?').run(b1!.value, b0!.purpose);
    } finally {
      db.close();
    }
    const store = await unlocked(dir);
    expect(() => store.readRevision(idOf(1))).toThrow(expect.objectContaining({ code: 'corrupt' }));
  });
});
