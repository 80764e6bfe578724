import Database from 'better-sqlite3';
import { storePath } from './store-schema';
import { fastTestKdf, tempDataDir } from './test-only-support';
import { type LocalVaultService, createVaultService } from './vault-service';
import { COMPACT_MIN_ROWS } from './asset-index';

const PW = 'correct horse battery staple';
const open: LocalVaultService[] = [];

function service(dir = tempDataDir()): LocalVaultService {
  let t = 1_700_000_000_000;
  const s = createVaultService(dir, { kdf: fastTestKdf, now: () => (t += 1000) });
  open.push(s);
  return s;
}

async function fresh() {
  const dir = tempDataDir();
  const s = service(dir);
  const init = await s.init(PW);
  return { dir, s, init };
}

afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

const code = (c: string) => expect.objectContaining({ code: c });

describe('init / unlock / lock (VAULT-4/5/19, DEV-1)', () => {
  it('VAULT-4: real Argon2id (default kdf) init, unlock, wrong password, verifyPassword keeps state', async () => {
    const dir = tempDataDir();
    const s = createVaultService(dir);
    open.push(s);
    const init = await s.init(PW);
    expect(init.vault).toBe('personal');
    expect(init.vault_id).toMatch(/^[0-9a-f]{32}$/);
    expect(init.device_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    s.lock();
    await expect(s.unlock('wrong')).rejects.toThrow(code('bad_password'));
    expect(await s.verifyPassword(PW)).toBe(true);
    expect(s.state().unlocked).toBe(false);
    await s.unlock(PW);
    expect(await s.verifyPassword('nope')).toBe(false);
    expect(s.state()).toMatchObject({ initialized: true, unlocked: true });
    expect(s.state().vaults).toEqual([{ name: 'personal', vault_id: init.vault_id, device_only: false }]);
  }, 20_000);

  it('init twice is already_initialized; an uninitialised service is not_initialized', async () => {
    const { s } = await fresh();
    await expect(s.init(PW)).rejects.toThrow(code('already_initialized'));
    const empty = service();
    expect(empty.state()).toEqual({
      initialized: false,
      unlocked: false,
      deviceFingerprint: null,
      vaults: [],
    });
    await expect(empty.unlock(PW)).rejects.toThrow(code('not_initialized'));
  });

  it('VAULT-15: a second service on the same directory gets store_locked while the first lives', async () => {
    const { dir } = await fresh();
    expect(() => service(dir)).toThrow(code('store_locked'));
  });

  it('IPC: a locked service refuses every data op with locked', async () => {
    const { s } = await fresh();
    const w = s.write({ title: 't', body: 'b' });
    s.lock();
    expect(s.state().unlocked).toBe(false);
    expect(() => s.write({ title: 't', body: 'b' })).toThrow(code('locked'));
    expect(() => s.read({ asset_id: w.asset_id })).toThrow(code('locked'));
    expect(() => s.list({})).toThrow(code('locked'));
    expect(() => s.history({ asset_id: w.asset_id })).toThrow(code('locked'));
    expect(() => s.vaultCreate({ name: 'x' })).toThrow(code('locked'));
    expect(() => s.import({ items: [{ title: 'a', body: 'b' }] })).toThrow(code('locked'));
    expect(() => s.auditVerify()).toThrow(code('locked'));
    await expect(s.backup({ path: '/tmp/never-written', backup_password: 'x' })).rejects.toThrow(
      code('locked'),
    );
    s.recordFailure('read', 'locked'); // no-op, no throw
  });
});

describe('assets (HIST-1..4, VAULT-8..10, VAULT-13)', () => {
  it('write → read → write again (parents = head) → history → diff', async () => {
    const { s } = await fresh();
    const w1 = s.write({ title: 'Groceries', body: 'milk\neggs' });
    expect(w1.asset_id).toMatch(/^[0-9a-f]{32}$/);
    const r1 = s.read({ asset_id: w1.asset_id });
    expect(r1).toMatchObject({
      title: 'Groceries',
      body: 'milk\neggs',
      state: 'live',
      heads: [w1.revision_id],
    });
    const w2 = s.write({ asset_id: w1.asset_id, title: 'Groceries', body: 'milk\nbread' });
    expect(s.read({ asset_id: w1.asset_id }).body).toBe('milk\nbread');
    expect(s.read({ asset_id: w1.asset_id, revision_id: w1.revision_id }).body).toBe('milk\neggs');
    const h = s.history({ asset_id: w1.asset_id });
    expect(h.revisions.map((r) => [r.revision_id, r.parents])).toEqual([
      [w1.revision_id, []],
      [w2.revision_id, [w1.revision_id]],
    ]);
    expect(h.revisions[0]?.device_fingerprint).toBe(s.state().deviceFingerprint);
    const d = s.diff({ asset_id: w1.asset_id, from: w1.revision_id, to: w2.revision_id });
    expect(d.diff).toContain('-eggs');
    expect(d.diff).toContain('+bread');
    expect(d.diff).toContain(' milk');
    expect(s.list({}).assets).toEqual([
      expect.objectContaining({
        asset_id: w1.asset_id,
        title: 'Groceries',
        state: 'live',
        heads: [w2.revision_id],
      }),
    ]);
  });

  it('unknown vault / asset / revision → not_found', async () => {
    const { s } = await fresh();
    const w = s.write({ title: 't', body: 'b' });
    expect(() => s.write({ vault: 'nope', title: 't', body: 'b' })).toThrow(code('not_found'));
    expect(() => s.read({ asset_id: 'a'.repeat(32) })).toThrow(code('not_found'));
    expect(() => s.read({ asset_id: w.asset_id, revision_id: 'b'.repeat(64) })).toThrow(code('not_found'));
    const other = s.write({ title: 'o', body: 'o' });
    expect(() => s.read({ asset_id: w.asset_id, revision_id: other.revision_id })).toThrow(code('not_found'));
  });

  it('HIST-2/3: two writers on the same parent → conflicted; write refuses; resolve consumes all heads', async () => {
    const { s } = await fresh();
    const base = s.write({ title: 'Doc', body: 'base' });
    const a = s.writeWithParents({
      asset_id: base.asset_id,
      parents: [base.revision_id],
      title: 'Doc',
      body: 'A',
    });
    const b = s.writeWithParents({
      asset_id: base.asset_id,
      parents: [base.revision_id],
      title: 'Doc B',
      body: 'B',
    });
    const heads = [a.revision_id, b.revision_id].sort();
    expect(s.list({}).assets[0]).toMatchObject({ state: 'conflicted', heads });
    const read = s.read({ asset_id: base.asset_id });
    expect(read).toMatchObject({ state: 'conflicted', heads, revision_id: b.revision_id, body: 'B' });
    expect(() => s.write({ asset_id: base.asset_id, title: 'x', body: 'y' })).toThrow(code('conflicted'));
    expect(() => s.delete({ asset_id: base.asset_id })).toThrow(code('conflicted'));
    const res = s.resolve({ asset_id: base.asset_id, title: 'Doc', body: 'A+B' });
    const hist = s.history({ asset_id: base.asset_id });
    expect(hist.revisions.find((r) => r.revision_id === res.revision_id)?.parents).toEqual(heads);
    expect(s.read({ asset_id: base.asset_id })).toMatchObject({
      state: 'live',
      body: 'A+B',
      heads: [res.revision_id],
    });
  });

  it('HIST-4: delete hides the asset from list and read; history stays; a write revives it', async () => {
    const { s } = await fresh();
    const w = s.write({ title: 'Secret plan', body: 'x' });
    const del = s.delete({ asset_id: w.asset_id });
    expect(s.list({}).assets).toEqual([]);
    expect(s.list({ include_deleted: true }).assets).toEqual([
      expect.objectContaining({ asset_id: w.asset_id, state: 'deleted', title: 'Secret plan' }),
    ]);
    expect(() => s.read({ asset_id: w.asset_id })).toThrow(code('not_found'));
    expect(() => s.delete({ asset_id: w.asset_id })).toThrow(code('not_found'));
    expect(s.read({ asset_id: w.asset_id, revision_id: w.revision_id }).body).toBe('x');
    const h = s.history({ asset_id: w.asset_id }).revisions;
    expect(h.map((r) => r.tombstone)).toEqual([false, true]);
    const revived = s.write({ asset_id: w.asset_id, title: 'Back', body: 'y' });
    expect(s.history({ asset_id: w.asset_id }).revisions.at(-1)?.parents).toEqual([del.revision_id]);
    expect(s.read({ asset_id: w.asset_id })).toMatchObject({
      state: 'live',
      revision_id: revived.revision_id,
    });
  });

  it('import writes many items in ONE commit (one generation, one transaction)', async () => {
    const { s } = await fresh();
    const store = s.requireStore();
    const before = store.generation;
    const rowsBefore = store.rowCount;
    const revisionsBefore = store.revisionCount;
    const res = s.import({ items: [1, 2, 3, 4, 5].map((i) => ({ title: `n${i}`, body: `b${i}` })) });
    expect(res.imported).toHaveLength(5);
    expect(store.generation).toBe(before + 1);
    expect(store.rowCount).toBe(rowsBefore);
    expect(store.revisionCount).toBe(revisionsBefore + 5); // one revision row each, nothing else
    expect(
      s
        .list({})
        .assets.map((a) => a.title)
        .sort(),
    ).toEqual(['n1', 'n2', 'n3', 'n4', 'n5']);
  });

  it('vault_create: its own vault id, policy and epoch key; device_only flag; duplicate name refused', async () => {
    const { s, init } = await fresh();
    const v = s.vaultCreate({ name: 'work', device_only: true });
    expect(v).toMatchObject({ name: 'work', device_only: true });
    expect(v.vault_id).not.toBe(init.vault_id);
    expect(() => s.vaultCreate({ name: 'work' })).toThrow(code('bad_request'));
    const w = s.write({ vault: 'work', title: 'w', body: 'in work' });
    expect(s.read({ vault: 'work', asset_id: w.asset_id }).body).toBe('in work');
    expect(() => s.read({ asset_id: w.asset_id })).toThrow(code('not_found'));
    expect(s.state().vaults.map((x) => x.name)).toEqual(['personal', 'work']);
  });

  it('reopening the directory with a new service instance keeps everything', async () => {
    const { dir, s } = await fresh();
    s.vaultCreate({ name: 'work' });
    const w = s.write({ vault: 'work', title: 'persist', body: 'me' });
    const w2 = s.write({ vault: 'work', asset_id: w.asset_id, title: 'persist', body: 'me too' });
    s.close();
    const again = service(dir);
    expect(again.state()).toMatchObject({ initialized: true, unlocked: false });
    await again.unlock(PW);
    expect(again.read({ vault: 'work', asset_id: w.asset_id })).toMatchObject({
      body: 'me too',
      revision_id: w2.revision_id,
    });
    expect(again.history({ vault: 'work', asset_id: w.asset_id }).revisions).toHaveLength(2);
  });

  /** Flips one byte of revision row `seq` (1 = the first revision written). */
  function flipRevisionRow(dir: string, seq: number): void {
    const db = new Database(storePath(dir));
    const row = db.prepare('SELECT value FROM revisions WHERE seq = ?').get(seq) as { value: Buffer };
    row.value.writeUInt8(row.value.readUInt8(row.value.length - 20) ^ 0x01, row.value.length - 20);
    db.prepare('UPDATE revisions SET value = ? WHERE seq = ?').run(row.value, seq);
    db.close();
  }

  it('VAULT-10/AUD-2: a flipped byte in a revision row (covered by the index snapshot) → corrupt on read', async () => {
    const { dir, s } = await fresh();
    const w = s.write({ title: 't', body: 'b' });
    // Enough rows that lock() writes an index snapshot covering w's row.
    s.import({ items: Array.from({ length: COMPACT_MIN_ROWS }, (_, i) => ({ title: `n${i}`, body: 'b' })) });
    s.lock();
    flipRevisionRow(dir, 1);
    await s.unlock(PW);
    expect(() => s.read({ asset_id: w.asset_id })).toThrow(code('corrupt'));
    expect(() => s.history({ asset_id: w.asset_id })).toThrow(code('corrupt'));
  });

  it('VAULT-10/AUD-2: a flipped byte in a revision row after the snapshot → corrupt at unlock', async () => {
    const { dir, s } = await fresh();
    s.write({ title: 't', body: 'b' });
    s.lock();
    flipRevisionRow(dir, 1);
    await expect(s.unlock(PW)).rejects.toThrow(code('corrupt'));
  });

  it('AUD-2: a deleted revision row (truncation), or rows swapped, are detected at unlock → corrupt', async () => {
    const { dir, s } = await fresh();
    s.write({ title: 't', body: 'b' });
    s.write({ title: 't2', body: 'b2' });
    s.lock();
    const db = new Database(storePath(dir));
    const rows = db.prepare('SELECT seq, lookup, value FROM revisions ORDER BY seq').all() as {
      seq: number;
      lookup: Buffer;
      value: Buffer;
    }[];
    // Swapped values: AEAD binds the row number.
    db.prepare('UPDATE revisions SET value = ? WHERE seq = ?').run(rows[1]!.value, 1);
    db.prepare('UPDATE revisions SET value = ? WHERE seq = ?').run(rows[0]!.value, 2);
    db.close();
    await expect(s.unlock(PW)).rejects.toThrow(code('corrupt'));
    for (const seq of [1, 2]) {
      const again = new Database(storePath(dir));
      again.prepare('UPDATE revisions SET value = ? WHERE seq = ?').run(rows[seq - 1]!.value, seq);
      again.prepare('DELETE FROM revisions WHERE seq = ?').run(seq);
      again.close();
      await expect(s.unlock(PW)).rejects.toThrow(code('corrupt'));
      const restore = new Database(storePath(dir));
      restore
        .prepare('INSERT INTO revisions (seq, lookup, value) VALUES (?, ?, ?)')
        .run(seq, rows[seq - 1]!.lookup, rows[seq - 1]!.value);
      restore.close();
    }
    await s.unlock(PW);
    expect(s.list({}).assets).toHaveLength(2);
  });

  it('VAULT-13: read commits an intent first and never delivers when the intent write fails', async () => {
    const { dir, s } = await fresh();
    const w = s.write({ title: 't', body: 'b' });
    s.read({ asset_id: w.asset_id });
    const audit = s.auditVerify();
    expect(audit).toMatchObject({ ok: true, problem: null });
    expect(audit.entries).toBe(1);
    const db = new Database(storePath(dir));
    db.exec(`CREATE TRIGGER disk_failure BEFORE INSERT ON state WHEN NEW.purpose LIKE 'audit.%'
             BEGIN SELECT RAISE(FAIL, 'simulated disk failure'); END;`);
    db.close();
    let delivered: unknown;
    expect(() => {
      delivered = s.read({ asset_id: w.asset_id });
    }).toThrow(code('intent_failed'));
    expect(delivered).toBeUndefined();
  });

  it('IPC-15/AUD-1: recordFailure appends a signed audit entry; auditVerify reports the chain', async () => {
    const { s } = await fresh();
    s.recordFailure('read', 'not_found');
    s.recordFailure('write', 'conflicted');
    const v = s.auditVerify();
    expect(v).toMatchObject({ ok: true, entries: 2, problem: null });
    expect(v.head).toMatch(/^[0-9a-f]{64}$/);
  });
});
