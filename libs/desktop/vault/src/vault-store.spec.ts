import fs from 'node:fs';
import path from 'node:path';
import { ARGON2ID_PARAMS, type PasswordKdf } from '@arslan/vault-core';
import Database from 'better-sqlite3';
import { argon2idKdf } from './argon2-kdf';
import { filesContaining, filesUnder, fastTestKdf, pw, tempDataDir } from './test-only-support';
import { initStore } from './store-init';
import { STORE_FILE_NAME, storePath } from './store-schema';
import { type VaultStore, openStore } from './vault-store';

const PASSWORD = pw('correct horse battery staple');
const dirs: string[] = [];
const open: VaultStore[] = [];

function newDir(): string {
  const dir = tempDataDir();
  dirs.push(dir);
  return dir;
}

function track(store: VaultStore): VaultStore {
  open.push(store);
  return store;
}

async function freshStore(kdf: PasswordKdf = fastTestKdf): Promise<{ dir: string; store: VaultStore }> {
  const dir = newDir();
  await initStore(dir, PASSWORD, kdf);
  const store = track(openStore(dir, { kdf }));
  await store.unlock(PASSWORD);
  return { dir, store };
}

/** A second, raw connection to the store file (what an attacker with disk access has). */
function raw(dir: string): Database.Database {
  return new Database(storePath(dir));
}

function rowValue(db: Database.Database, table: 'state' | 'checkpoints', purpose: string): Buffer {
  return (db.prepare(`SELECT value FROM ${table} WHERE purpose = ?`).get(purpose) as { value: Buffer }).value;
}

afterEach(() => {
  for (const store of open.splice(0)) store.close();
});

afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('init / open / unlock (VAULT-1, -2, -4, -5, -12, -16)', () => {
  it('VAULT-4/5/11: init → open → unlock → commit → reopen in a new instance round-trips the state (real Argon2id)', async () => {
    const dir = newDir();
    expect(await initStore(dir, PASSWORD, argon2idKdf)).toEqual({ path: path.join(dir, STORE_FILE_NAME) });
    const first = track(openStore(dir, { kdf: argon2idKdf }));
    expect(first.isUnlocked).toBe(false);
    await first.unlock(PASSWORD);
    expect(first.getState()).toEqual({});
    expect(first.commitState((draft) => ({ ...draft, notes: ['ünïcödé', { n: 1 }] }))).toBe(1);
    first.close();

    const second = track(openStore(dir, { kdf: argon2idKdf }));
    await second.unlock(PASSWORD);
    expect(second.getState()).toEqual({ notes: ['ünïcödé', { n: 1 }] });
    expect(second.generation).toBe(1);
  });

  it('VAULT-4: a wrong password is bad_password (real Argon2id) and leaves the store locked', async () => {
    const dir = newDir();
    await initStore(dir, PASSWORD, argon2idKdf);
    const store = track(openStore(dir, { kdf: argon2idKdf }));
    await expect(store.unlock(pw('wrong password'))).rejects.toMatchObject({ code: 'bad_password' });
    expect(store.isUnlocked).toBe(false);
    expect(() => store.getState()).toThrow(expect.objectContaining({ code: 'locked' }));
  });

  it('VAULT-2/12: tables header/state/checkpoints (+ revisions); header holds version 1, the KDF params, salt and wrapped key; synchronous=FULL', async () => {
    const { dir, store } = await freshStore();
    expect(store.durability()).toEqual({ journalMode: 'delete', synchronous: 2 });
    const db = raw(dir);
    try {
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .pluck()
        .all();
      expect(tables).toEqual(['checkpoints', 'header', 'revisions', 'state']);
      expect(
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").pluck().all(),
      ).toEqual([]);
      const header = db.prepare('SELECT * FROM header').all() as Record<string, unknown>[];
      expect(header).toHaveLength(1);
      expect(header[0]!['format_version']).toBe(1);
      expect(JSON.parse(header[0]!['kdf'] as string)).toEqual(ARGON2ID_PARAMS);
      expect((header[0]!['salt'] as Buffer).length).toBe(16);
      expect((header[0]!['wrapped_master_key'] as Buffer).length).toBe(72);
      const purposes = db.prepare('SELECT purpose FROM state ORDER BY purpose').pluck().all();
      expect(purposes).toEqual(['device-keys', 'vault-state']);
      expect(db.prepare('SELECT purpose FROM checkpoints').pluck().all()).toEqual(['head']);
    } finally {
      db.close();
    }
  });

  it('VAULT-16: init refuses an existing target, leaves it untouched and leaves no temp file', async () => {
    const dir = newDir();
    const target = storePath(dir);
    fs.writeFileSync(target, 'not a vault, but precious');
    await expect(initStore(dir, PASSWORD, fastTestKdf)).rejects.toMatchObject({ code: 'store_exists' });
    expect(fs.readFileSync(target, 'utf8')).toBe('not a vault, but precious');
    expect(fs.readdirSync(dir).sort()).toEqual(['.lock.sqlite', STORE_FILE_NAME]);
  });

  it('VAULT-16: a second init over a real store fails and the store still opens with its password', async () => {
    const { dir, store } = await freshStore();
    store.commitState((d) => ({ ...d, kept: true }));
    store.close();
    const before = fs.readFileSync(storePath(dir));
    await expect(initStore(dir, pw('other password'), fastTestKdf)).rejects.toMatchObject({
      code: 'store_exists',
    });
    expect(fs.readFileSync(storePath(dir)).equals(before)).toBe(true);
    const again = track(openStore(dir, { kdf: fastTestKdf }));
    await again.unlock(PASSWORD);
    expect(again.getState()).toEqual({ kept: true });
  });

  it('VAULT-16: after init only the published database (and the lock file) exist; file mode 0600', async () => {
    const dir = newDir();
    await initStore(dir, PASSWORD, fastTestKdf);
    expect(fs.readdirSync(dir).sort()).toEqual(['.lock.sqlite', STORE_FILE_NAME]);
    if (process.platform !== 'win32') expect(fs.statSync(storePath(dir)).mode & 0o777).toBe(0o600);
  });

  it.each([2, 0])('VAULT-1: a header with format version %i is unsupported_version', async (version) => {
    const { dir, store } = await freshStore();
    store.close();
    const db = raw(dir);
    db.prepare('UPDATE header SET format_version = ?').run(version);
    db.close();
    expect(() => openStore(dir, { kdf: fastTestKdf })).toThrow(
      expect.objectContaining({ code: 'unsupported_version' }),
    );
    // the refusal is the version alone, and the failed open released the directory lock
    const fix = raw(dir);
    fix.prepare('UPDATE header SET format_version = 1').run();
    fix.close();
    track(openStore(dir, { kdf: fastTestKdf }));
  });

  it('a missing store is store_missing; a file that is not a store is corrupt', async () => {
    const dir = newDir();
    expect(() => openStore(dir, { kdf: fastTestKdf })).toThrow(
      expect.objectContaining({ code: 'store_missing' }),
    );
    fs.writeFileSync(storePath(dir), Buffer.alloc(4096, 7));
    expect(() => openStore(dir, { kdf: fastTestKdf })).toThrow(expect.objectContaining({ code: 'corrupt' }));
  });
});

describe('at rest (VAULT-2, -3, -6)', () => {
  const MARKER = 'MARKER-7f3c9a1e-5b2d-4c8f-9e6a-0d1b2c3d4e5f'.slice(0, 40);

  it('VAULT-2/3: a committed marker appears in no file of the data directory (db, journal, lock, temp)', async () => {
    expect(MARKER).toHaveLength(40);
    const { dir, store } = await freshStore();
    store.commitState((d) => ({ ...d, note: MARKER }));
    store.withIntent('memory.read', { query: MARKER }, () => undefined);
    store.recordAudit('memory.read.outcome', { note: MARKER });
    expect(store.getState()).toEqual({ note: MARKER });
    const needle = Buffer.from(MARKER, 'utf8');
    expect(filesUnder(dir).length).toBeGreaterThanOrEqual(2);
    expect(filesContaining(dir, needle)).toEqual([]);
    store.close();
    expect(filesContaining(dir, needle)).toEqual([]);
    // the check itself can fail: a plaintext copy would be found
    fs.writeFileSync(path.join(dir, 'leak.txt'), `x${MARKER}x`);
    expect(filesContaining(dir, needle)).toEqual([path.join(dir, 'leak.txt')]);
  });

  it('VAULT-2/AUD-2: revision rows are sealed, found by a keyed id hash, bound to their row number and counted', async () => {
    const { dir, store } = await freshStore();
    const id = `rev-${MARKER}`;
    const generation = store.generation;
    const first = Buffer.from(`note ${MARKER}`, 'utf8');
    const second = Uint8Array.of(2);
    store.appendRows([], [{ id, value: first }]);
    store.appendRows([], [{ id: 'second', value: second }]);
    expect(store.generation).toBe(generation + 2);
    expect(store.revisionCount).toBe(2);
    expect(store.readRevision(id)).toEqual({ seq: 1, value: new Uint8Array(first) });
    expect(store.readRevision('second')).toEqual({ seq: 2, value: second });
    expect(store.readRevision('absent')).toBeUndefined();
    expect(store.readRevisionsAfter(1)).toEqual([{ seq: 2, value: second }]);
    expect(() => store.appendRows([], [{ id: 'second', value: Uint8Array.of(3) }])).toThrow(
      expect.objectContaining({ code: 'commit_failed' }),
    );
    expect(() => store.appendRows([], [{ id: 'third', value: 3 as unknown as Uint8Array }])).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(store.revisionCount).toBe(2);
    // neither the value nor the id is on disk
    expect(filesContaining(dir, Buffer.from(MARKER, 'utf8'))).toEqual([]);
    store.close();
    expect(filesContaining(dir, Buffer.from(MARKER, 'utf8'))).toEqual([]);
    const db = raw(dir);
    const rows = db.prepare('SELECT seq, lookup, value FROM revisions ORDER BY seq').all() as {
      seq: number;
      lookup: Buffer;
      value: Buffer;
    }[];
    expect(rows.map((r) => [r.seq, r.lookup.length])).toEqual([
      [1, 16],
      [2, 16],
    ]);
    const reopen = async () => {
      const s = track(openStore(dir, { kdf: fastTestKdf }));
      await s.unlock(PASSWORD);
      return s;
    };
    try {
      // a flipped byte → corrupt on read
      const flipped = Buffer.from(rows[0]!.value);
      flipped[30] = flipped[30]! ^ 0x01;
      db.prepare('UPDATE revisions SET value = ? WHERE seq = 1').run(flipped);
      let s = await reopen();
      expect(() => s.readRevision(id)).toThrow(expect.objectContaining({ code: 'corrupt' }));
      s.close();
      // values swapped between rows (AAD binds the row number) → corrupt
      db.prepare('UPDATE revisions SET value = ? WHERE seq = 1').run(rows[1]!.value);
      s = await reopen();
      expect(() => s.readRevision(id)).toThrow(expect.objectContaining({ code: 'corrupt' }));
      s.close();
      db.prepare('UPDATE revisions SET value = ? WHERE seq = 1').run(rows[0]!.value);
      // a removed (last or first) or an extra row → corrupt at unlock (AUD-2)
      for (const change of [
        'DELETE FROM revisions WHERE seq = 2',
        'DELETE FROM revisions WHERE seq = 1',
        "INSERT INTO revisions (seq, lookup, value) VALUES (3, x'00', x'00')",
      ]) {
        db.exec(change);
        s = track(openStore(dir, { kdf: fastTestKdf }));
        await expect(s.unlock(PASSWORD)).rejects.toMatchObject({ code: 'corrupt' });
        s.close();
        db.exec('DELETE FROM revisions');
        for (const r of rows)
          db.prepare('INSERT INTO revisions (seq, lookup, value) VALUES (?, ?, ?)').run(
            r.seq,
            r.lookup,
            r.value,
          );
      }
      s = await reopen();
      expect(s.readRevision('second')).toEqual({ seq: 2, value: second });
    } finally {
      db.close();
    }
  });

  it('VAULT-4/5: a copy of the database cannot be unlocked without the password', async () => {
    const { dir, store } = await freshStore();
    store.commitState(() => ({ secret: 'copy me' }));
    store.close();
    const elsewhere = newDir();
    fs.copyFileSync(storePath(dir), storePath(elsewhere));
    const copy = track(openStore(elsewhere, { kdf: fastTestKdf }));
    await expect(copy.unlock(pw('guess'))).rejects.toMatchObject({ code: 'bad_password' });
    await copy.unlock(PASSWORD);
    expect(copy.getState()).toEqual({ secret: 'copy me' });
  });

  it('VAULT-2/6: flipping any single byte of any sealed state/checkpoint value is detected on unlock (corrupt)', async () => {
    const { dir, store } = await freshStore();
    store.commitState(() => ({ a: 'b' }));
    store.close();
    const db = raw(dir);
    try {
      const rows = [
        ...(db.prepare("SELECT 'state' AS t, purpose, value FROM state").all() as {
          t: 'state';
          purpose: string;
          value: Buffer;
        }[]),
        ...(db.prepare("SELECT 'checkpoints' AS t, purpose, value FROM checkpoints").all() as {
          t: 'checkpoints';
          purpose: string;
          value: Buffer;
        }[]),
      ];
      expect(rows.map((r) => `${r.t}/${r.purpose}`).sort()).toEqual([
        'checkpoints/head',
        'state/device-keys',
        'state/vault-state',
      ]);
      let checked = 0;
      for (const row of rows) {
        for (let i = 0; i < row.value.length; i++) {
          const flipped = Buffer.from(row.value);
          flipped[i] = flipped[i]! ^ 0x01;
          db.prepare(`UPDATE ${row.t} SET value = ? WHERE purpose = ?`).run(flipped, row.purpose);
          const s = openStore(dir, { kdf: fastTestKdf });
          try {
            await expect(s.unlock(PASSWORD)).rejects.toMatchObject({ code: 'corrupt' });
            expect(s.isUnlocked).toBe(false);
          } finally {
            s.close();
          }
          checked++;
        }
        db.prepare(`UPDATE ${row.t} SET value = ? WHERE purpose = ?`).run(row.value, row.purpose);
      }
      expect(checked).toBeGreaterThan(200);
      // restored: it opens again
      const ok = track(openStore(dir, { kdf: fastTestKdf }));
      await ok.unlock(PASSWORD);
      expect(ok.getState()).toEqual({ a: 'b' });
    } finally {
      db.close();
    }
  });

  it('VAULT-5: a flipped byte of the wrapped master key or salt is bad_password (one AEAD check)', async () => {
    const { dir, store } = await freshStore();
    store.close();
    for (const column of ['wrapped_master_key', 'salt']) {
      const db = raw(dir);
      const original = db.prepare(`SELECT ${column} FROM header`).pluck().get() as Buffer;
      const flipped = Buffer.from(original);
      flipped[5] = flipped[5]! ^ 0x80;
      db.prepare(`UPDATE header SET ${column} = ?`).run(flipped);
      db.close();
      const s = track(openStore(dir, { kdf: fastTestKdf }));
      await expect(s.unlock(PASSWORD)).rejects.toMatchObject({ code: 'bad_password' });
      s.close();
      const fix = raw(dir);
      fix.prepare(`UPDATE header SET ${column} = ?`).run(original);
      fix.close();
    }
  });

  it('VAULT-11/AUD-2: a state row rolled back to an older valid ciphertext no longer matches the checkpoint (corrupt)', async () => {
    const { dir, store } = await freshStore();
    store.commitState(() => ({ v: 1 }));
    const db = raw(dir);
    const old = rowValue(db, 'state', 'vault-state');
    store.commitState(() => ({ v: 2 }));
    store.close();
    db.prepare("UPDATE state SET value = ? WHERE purpose = 'vault-state'").run(old);
    db.close();
    const s = track(openStore(dir, { kdf: fastTestKdf }));
    await expect(s.unlock(PASSWORD)).rejects.toMatchObject({ code: 'corrupt' });
  });
});

describe('commit discipline (VAULT-11)', () => {
  it('VAULT-11: a transaction that throws after the state write leaves the database and the live state unchanged', async () => {
    const { dir, store } = await freshStore();
    store.commitState(() => ({ a: 1 }));
    const db = raw(dir);
    try {
      const stateBefore = rowValue(db, 'state', 'vault-state');
      const checkpointBefore = rowValue(db, 'checkpoints', 'head');
      // the checkpoint is written after the state row, in the same transaction
      db.exec(`CREATE TRIGGER fail_checkpoint BEFORE UPDATE ON checkpoints BEGIN SELECT RAISE(ABORT, 'injected'); END;
               CREATE TRIGGER fail_checkpoint_insert BEFORE INSERT ON checkpoints BEGIN SELECT RAISE(ABORT, 'injected'); END;`);
      expect(() =>
        store.commitState((d) => {
          d['a'] = 2;
        }),
      ).toThrow(expect.objectContaining({ code: 'commit_failed' }));
      expect(store.getState()).toEqual({ a: 1 });
      expect(store.generation).toBe(1);
      expect(rowValue(db, 'state', 'vault-state').equals(stateBefore)).toBe(true);
      expect(rowValue(db, 'checkpoints', 'head').equals(checkpointBefore)).toBe(true);

      db.exec('DROP TRIGGER fail_checkpoint; DROP TRIGGER fail_checkpoint_insert;');
      store.lock();
      await store.unlock(PASSWORD);
      expect(store.getState()).toEqual({ a: 1 });
      expect(store.commitState((d) => ({ ...d, a: 2 }))).toBe(2);
      expect(store.getState()).toEqual({ a: 2 });
    } finally {
      db.close();
    }
  });

  it('VAULT-11: the mutator works on a clone; a throwing mutator or a non-JSON state changes nothing', async () => {
    const { store } = await freshStore();
    store.commitState(() => ({ list: [1] }));
    const copy = store.getState();
    (copy['list'] as number[]).push(99);
    expect(store.getState()).toEqual({ list: [1] });
    expect(() =>
      store.commitState((d) => {
        (d['list'] as number[]).push(2);
        throw new Error('mutator failed');
      }),
    ).toThrow('mutator failed');
    expect(() => store.commitState(() => ({ bad: Number.NaN }))).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    let leaked: Record<string, unknown> | undefined;
    store.commitState((d) => {
      leaked = d;
    });
    leaked!['late'] = true;
    expect(store.getState()).toEqual({ list: [1] });
    expect(store.generation).toBe(2);
  });
});

describe('lock and zeroization (VAULT-19)', () => {
  it('VAULT-19: lock() wipes the master and device keys and every state operation then fails with locked', async () => {
    const { store } = await freshStore();
    const session = (store as unknown as { session: Record<string, Uint8Array> }).session;
    const keys = [session['masterKey']!, session['signingSeed']!, session['exchangePrivateKey']!];
    expect(keys.every((k) => k.some((b) => b !== 0))).toBe(true);
    store.lock();
    expect(keys.every((k) => k.length === 32 && k.every((b) => b === 0))).toBe(true);
    expect(store.isUnlocked).toBe(false);
    for (const op of [
      () => store.getState(),
      () => store.commitState(() => ({})),
      () => store.recordIntent('memory.read', {}),
      () => store.verifyAuditChain(),
    ])
      expect(op).toThrow(expect.objectContaining({ code: 'locked' }));
  });

  it('VAULT-19: an unlock that finishes after lock() is discarded', async () => {
    const dir = newDir();
    await initStore(dir, PASSWORD, fastTestKdf);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowKdf: PasswordKdf = {
      deriveKey: async (p, s) => {
        await gate;
        return fastTestKdf.deriveKey(p, s);
      },
    };
    const store = track(openStore(dir, { kdf: slowKdf }));
    const pending = store.unlock(PASSWORD);
    store.lock();
    release();
    await expect(pending).rejects.toMatchObject({ code: 'locked' });
    expect(store.isUnlocked).toBe(false);
  });

  it('errors never contain the password', async () => {
    const dir = newDir();
    await initStore(dir, PASSWORD, fastTestKdf);
    const store = track(openStore(dir, { kdf: fastTestKdf }));
    const error = await store.unlock(pw('hunter2-wrong')).catch((e: unknown) => e);
    expect(String(error)).not.toContain('hunter2');
    expect(JSON.stringify(error)).not.toContain('hunter2');
  });
});

describe('intents (VAULT-13)', () => {
  it('VAULT-13: the intent is committed to disk before deliver runs; deliver’s result is returned', async () => {
    const { dir, store } = await freshStore();
    const db = raw(dir);
    try {
      const count = () => db.prepare("SELECT count(*) FROM state WHERE purpose LIKE 'audit.%'").pluck().get();
      const result = store.withIntent('credential.copy', { asset: 'a1' }, (intent) => {
        expect(count()).toBe(1); // visible to another connection: committed
        expect(intent).toMatchObject({
          seq: 1,
          type: 'intent',
          kind: 'credential.copy',
          details: { asset: 'a1' },
        });
        return 'plaintext';
      });
      expect(result).toBe('plaintext');
    } finally {
      db.close();
    }
  });

  it('VAULT-13: when the intent cannot be committed (write failure) it throws intent_failed and never delivers', async () => {
    const { dir, store } = await freshStore();
    store.recordIntent('memory.read', { asset: 'before' });
    const db = raw(dir);
    db.exec(`CREATE TRIGGER disk_failure BEFORE INSERT ON state WHEN NEW.purpose LIKE 'audit.%'
             BEGIN SELECT RAISE(FAIL, 'simulated disk failure'); END;`);
    db.close();
    const deliver = jest.fn(() => 'plaintext');
    expect(() => store.withIntent('memory.read', { asset: 'a1' }, deliver)).toThrow(
      expect.objectContaining({ code: 'intent_failed' }),
    );
    expect(deliver).not.toHaveBeenCalled();
    expect(store.verifyAuditChain()).toMatchObject({ ok: true, count: 1 });
  });

  it('VAULT-13: a closed store cannot record an intent and never delivers', async () => {
    const { store } = await freshStore();
    store.close();
    const deliver = jest.fn();
    expect(() => store.withIntent('memory.read', {}, deliver)).toThrow(
      expect.objectContaining({ code: 'closed' }),
    );
    expect(deliver).not.toHaveBeenCalled();
  });
});

describe('local audit chain (AUD-1, AUD-2)', () => {
  async function storeWithAudit(n: number) {
    const { dir, store } = await freshStore();
    for (let i = 1; i <= n; i++) store.recordIntent('memory.read', { i });
    return { dir, store };
  }

  function auditRows(db: Database.Database): { purpose: string; value: Buffer }[] {
    return db
      .prepare("SELECT purpose, value FROM state WHERE purpose LIKE 'audit.%' ORDER BY purpose")
      .all() as { purpose: string; value: Buffer }[];
  }

  it('AUD-1: entries are chained, signed by the device key and survive reopen; the chain continues', async () => {
    const { dir, store } = await storeWithAudit(3);
    store.recordAudit('memory.read.outcome', { ok: true });
    const verified = store.verifyAuditChain();
    expect(verified).toMatchObject({ ok: true, count: 4 });
    const publicKey = store.deviceSigningPublicKey();
    store.close();
    const again = track(openStore(dir, { kdf: fastTestKdf }));
    await again.unlock(PASSWORD);
    expect(again.deviceSigningPublicKey()).toBe(publicKey);
    expect(again.verifyAuditChain()).toEqual(verified);
    expect(again.recordIntent('memory.read', { i: 5 }).seq).toBe(5);
    expect(again.verifyAuditChain()).toMatchObject({ ok: true, count: 5 });
  });

  it('AUD-2: a removed middle entry is detected', async () => {
    const { dir, store } = await storeWithAudit(4);
    const db = raw(dir);
    db.prepare('DELETE FROM state WHERE purpose = ?').run(auditRows(db)[1]!.purpose);
    db.close();
    expect(store.verifyAuditChain()).toEqual({ ok: false, problem: 'out_of_order', seq: 2 });
  });

  it('AUD-2: a removed last entry is detected against the checkpoint', async () => {
    const { dir, store } = await storeWithAudit(3);
    const db = raw(dir);
    db.prepare('DELETE FROM state WHERE purpose = ?').run(auditRows(db)[2]!.purpose);
    db.close();
    expect(store.verifyAuditChain()).toEqual({ ok: false, problem: 'checkpoint_mismatch', seq: 3 });
    // also after a fresh unlock (the checkpoint on disk still says 3)
    store.lock();
    await store.unlock(PASSWORD);
    expect(store.verifyAuditChain()).toMatchObject({ ok: false, problem: 'checkpoint_mismatch' });
  });

  it('AUD-2: reordered (swapped) entries and a flipped byte are detected', async () => {
    const { dir, store } = await storeWithAudit(3);
    const db = raw(dir);
    try {
      const [a, b] = auditRows(db);
      const update = db.prepare('UPDATE state SET value = ? WHERE purpose = ?');
      update.run(b!.value, a!.purpose);
      update.run(a!.value, b!.purpose);
      expect(store.verifyAuditChain()).toEqual({ ok: false, problem: 'tampered', seq: 1 });
      update.run(a!.value, a!.purpose);
      update.run(b!.value, b!.purpose);
      expect(store.verifyAuditChain()).toMatchObject({ ok: true, count: 3 });
      const flipped = Buffer.from(b!.value);
      flipped[flipped.length - 20] = flipped[flipped.length - 20]! ^ 0x04;
      update.run(flipped, b!.purpose);
      expect(store.verifyAuditChain()).toEqual({ ok: false, problem: 'tampered', seq: 2 });
    } finally {
      db.close();
    }
  });

  it('AUD-1: invalid kinds and details are rejected before anything is written', async () => {
    const { store } = await freshStore();
    expect(() => store.recordIntent('Bad Kind!', {})).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => store.recordIntent('memory.read', [] as never)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(store.verifyAuditChain()).toMatchObject({ ok: true, count: 0 });
  });
});
