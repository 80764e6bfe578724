import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import {
  AssetIndexes,
  COMPACT_MIN_ROWS,
  type MetaRow,
  SNAPSHOT_DIVISOR,
  SNAPSHOT_EVERY,
  snapshotInterval,
} from './asset-index';
import { STATE_LABEL, storePath } from './store-schema';
import { fastTestKdf, tempDataDir } from './test-only-support';
import { type LocalVaultService, createVaultService } from './vault-service';

const PW = 'pw';
const open: LocalVaultService[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});
const code = (c: string) => expect.objectContaining({ code: c });

async function fresh() {
  const dir = tempDataDir();
  let t = 1_700_000_000_000;
  const s = createVaultService(dir, { kdf: fastTestKdf, now: () => (t += 1000) });
  open.push(s);
  await s.init(PW);
  return { dir, s };
}

function stateRow(dir: string): Buffer {
  const db = new Database(storePath(dir));
  try {
    return (
      db.prepare('SELECT value FROM state WHERE purpose = ?').get(STATE_LABEL.purpose) as { value: Buffer }
    ).value;
  } finally {
    db.close();
  }
}

describe('asset index: revision rows + snapshot (no per-write state rewrite)', () => {
  it('writes append rows only; unlock opens the snapshot plus < SNAPSHOT_EVERY revision rows, quickly', async () => {
    const { dir, s } = await fresh();
    const store = s.requireStore();
    const n = SNAPSHOT_EVERY + 4;
    s.import({ items: Array.from({ length: n }, (_, i) => ({ title: `n${i}`, body: `b${i}` })) });
    const stateGeneration = store.stateGeneration;
    const sealedState = stateRow(dir);
    const w = s.write({ title: 'x', body: 'y' });
    s.write({ asset_id: w.asset_id, title: 'x2', body: 'y2' });
    s.delete({ asset_id: w.asset_id });
    expect(store.stateGeneration).toBe(stateGeneration);
    expect(stateRow(dir).equals(sealedState)).toBe(true);

    s.lock();
    const t = performance.now();
    await s.unlock(PW);
    const unlockMs = performance.now() - t;
    expect(s.indexTailRows()).toBe(3);
    // Work beyond the (instant test) KDF: one state open + 3 revision rows; generous bound for CI.
    expect(unlockMs).toBeLessThan(250);
    const all = s.list({ include_deleted: true }).assets;
    expect(all).toHaveLength(n + 1);
    expect(all.find((a) => a.asset_id === w.asset_id)).toMatchObject({ title: 'x2', state: 'deleted' });
    expect(s.history({ asset_id: w.asset_id }).revisions).toHaveLength(3);
  }, 60_000);

  it('AUD-2: a deleted revision row (first or last) → corrupt at unlock', async () => {
    for (const seq of [1, 3]) {
      const { dir, s } = await fresh();
      s.write({ title: 'a', body: 'a' });
      s.write({ title: 'b', body: 'b' });
      s.write({ title: 'c', body: 'c' });
      s.lock();
      const db = new Database(storePath(dir));
      expect(db.prepare('DELETE FROM revisions WHERE seq = ?').run(seq).changes).toBe(1);
      db.close();
      await expect(s.unlock(PW)).rejects.toThrow(code('corrupt'));
    }
  });

  it('AUD-2: the state row rolled back to an older valid ciphertext (before a snapshot) → corrupt', async () => {
    const { dir, s } = await fresh();
    const old = stateRow(dir);
    s.import({ items: Array.from({ length: SNAPSHOT_EVERY }, (_, i) => ({ title: `n${i}`, body: 'b' })) });
    expect(stateRow(dir).equals(old)).toBe(false);
    s.lock();
    const db = new Database(storePath(dir));
    db.prepare('UPDATE state SET value = ? WHERE purpose = ?').run(old, STATE_LABEL.purpose);
    db.close();
    await expect(s.unlock(PW)).rejects.toThrow(code('corrupt'));
  }, 60_000);

  it('a store with the old layout (assets inside the state) keeps its index; the first snapshot drops it', async () => {
    const { s } = await fresh();
    const store = s.requireStore();
    const head = { id: 'ab'.repeat(32), tombstone: false, created_at: 5, title: 'old note' };
    store.commitState((draft) => {
      const vaults = draft['vaults'] as Record<string, Record<string, unknown>>;
      (vaults['personal'] as Record<string, unknown>)['assets'] = {
        ['cd'.repeat(16)]: { heads: [head], revisions: 1, updated_at: 5 },
      };
    });
    s.lock();
    await s.unlock(PW);
    // The fake head has no revision row, so its kind cannot be read: list shows it as private (fails closed).
    expect(s.list({}).assets).toEqual([
      {
        asset_id: 'cd'.repeat(16),
        title: 'old note',
        kind: 'private',
        state: 'live',
        heads: [head.id],
        updated_at: 5,
      },
    ]);
    s.import({ items: Array.from({ length: SNAPSHOT_EVERY }, (_, i) => ({ title: `n${i}`, body: 'b' })) });
    const vaults = store.getState()['vaults'] as Record<string, Record<string, unknown>>;
    expect(vaults['personal']).not.toHaveProperty('assets');
    s.lock();
    await s.unlock(PW);
    expect(s.list({}).assets).toHaveLength(SNAPSHOT_EVERY + 1);
  }, 60_000);

  it('lock() writes a snapshot when >= COMPACT_MIN_ROWS revision rows follow it; the next unlock opens none', async () => {
    const { dir, s } = await fresh();
    const store = s.requireStore();
    s.import({ items: Array.from({ length: COMPACT_MIN_ROWS }, (_, i) => ({ title: `n${i}`, body: 'b' })) });
    const before = stateRow(dir);
    s.lock();
    expect(stateRow(dir).equals(before)).toBe(false);
    await s.unlock(PW);
    expect(s.indexTailRows()).toBe(0);
    expect(s.list({}).assets).toHaveLength(COMPACT_MIN_ROWS);
    const generation = store.generation;
    s.lock();
    await s.unlock(PW);
    expect(store.generation).toBe(generation);
  }, 60_000);
});

describe('asset index: the snapshot interval grows with the index (flat amortised write cost)', () => {
  const meta = (i: number): MetaRow => ({
    vault_id: 'v',
    asset_id: `a${i}`,
    revision_id: i.toString(16).padStart(64, '0'),
    parents: [],
    tombstone: false,
    created_at: i,
    title: `t${i}`,
    kind: 'memory',
  });
  const metas = (from: number, count: number) => Array.from({ length: count }, (_, k) => meta(from + k));

  it('is SNAPSHOT_EVERY rows for small indexes and 1/SNAPSHOT_DIVISOR of the assets for large ones', () => {
    expect(snapshotInterval(0)).toBe(SNAPSHOT_EVERY);
    expect(snapshotInterval(SNAPSHOT_EVERY * SNAPSHOT_DIVISOR)).toBe(SNAPSHOT_EVERY);
    expect(snapshotInterval(20_000)).toBe(2_500);
    expect(snapshotInterval(20_001)).toBe(2_501);
  });

  it('makes a snapshot due by the asset count the index holds', () => {
    const index = new AssetIndexes();
    // 4,096 assets, snapshot written: the next one is due after 512 more rows, not 256.
    const first = index.stage(metas(0, 4_096));
    expect(index.snapshotDue(first)).toBe(true);
    index.apply(first, true);
    expect(index.assetCount()).toBe(4_096);
    const rewrites = metas(0, 511).map((m, k) => ({
      ...m,
      revision_id: (10_000 + k).toString(16).padStart(64, '0'),
      parents: [m.revision_id],
    }));
    const before = index.stage(rewrites);
    expect(index.snapshotDue(before)).toBe(false);
    const due = index.stage([...rewrites, { ...meta(9_999) }]);
    expect(index.snapshotDue(due)).toBe(true);
    // A small index keeps the 256-row interval.
    const small = new AssetIndexes();
    expect(small.snapshotDue(small.stage(metas(0, SNAPSHOT_EVERY - 1)))).toBe(false);
    expect(small.snapshotDue(small.stage(metas(0, SNAPSHOT_EVERY)))).toBe(true);
  });
});
