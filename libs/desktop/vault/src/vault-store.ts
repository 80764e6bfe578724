// The vault store on better-sqlite3: one encrypted database per data directory.
// VAULT-1/2/5/6/11/12/13/15/19 and AUD-1/2 (local). Layout: README.md, store-schema.ts.
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import { bytesToHex, isBytes, utf8DecodeStrict, utf8Encode, wipe } from '@arslan/util';
import {
  type KeyringHeader,
  type PasswordKdf,
  type CreatedEpochKey,
  type RandomSource,
  type SealedValueLabel,
  createEpochKey,
  unwrapEpochKey,
  systemRandom,
  unlockKeyring,
  ed25519PublicKey,
} from '@arslan/vault-core';
import { x25519 } from '@noble/curves/ed25519.js';
import Database from 'better-sqlite3';
import {
  type AuditEntry,
  type AuditEntryType,
  type AuditVerification,
  isAuditKind,
  signAuditRecord,
  verifyAuditRecords,
} from './audit-chain';
import { canonicalJson, isJsonObject, type JsonObject, type JsonValue } from './canonical-json';
import { acquireDirectoryLock, type DirectoryLock } from './directory-lock';
import {
  AUDIT_PURPOSE_FROM,
  AUDIT_PURPOSE_TO,
  countExtraRowsSql,
  isExtraRowPurpose,
  isExtraRowRange,
  DEVICE_KEYS_LABEL,
  HEAD_CHECKPOINT_LABEL,
  REVISIONS_SQL,
  STATE_LABEL,
  applyDurabilityPragmas,
  auditLabel,
  revisionLabel,
  storePath,
} from './store-schema';
import {
  DEVICE_KEY_BYTES,
  type HeadCheckpoint,
  assertPassword,
  openJson,
  parseCheckpoint,
  sealJson,
  sha256Hex,
} from './sealed-values';
import { forgetEd25519SigningKeys, useNodeEd25519 } from './node-ed25519';
import { openNative, sealNative } from './native-sealed';
import {
  LOOKUP_BYTES,
  LOOKUP_PURPOSE_FROM,
  LOOKUP_PURPOSE_TO,
  RevisionLookups,
  type SealedBlockRow,
} from './revision-lookups';
import { readHeader } from './store-header';
import { VaultStoreError, type VaultStoreErrorCode, toStoreError } from './vault-store.errors';

export interface OpenStoreOptions {
  kdf: PasswordKdf;
  random?: RandomSource;
  /** Clock for audit entries (Unix ms). */
  now?: () => number;
}

export interface SqliteDurability {
  journalMode: string;
  /** 2 = FULL (VAULT-12). */
  synchronous: number;
}

/** Everything that exists only while unlocked. Key buffers are wiped on lock (VAULT-19). */
interface Session {
  masterKey: Uint8Array;
  signingSeed: Uint8Array;
  signingPublicKey: Uint8Array;
  exchangePrivateKey: Uint8Array;
  /** Commits since init (state commits and row appends). */
  generation: number;
  /** The commit that last rewrote the state row (inside the sealed state; bound by the checkpoint). */
  stateGeneration: number;
  stateSha256: string;
  value: JsonObject;
  auditCount: number;
  auditHead: string;
  /** Extra sealed rows written through commitState (insert-only); checked at unlock (AUD-2). */
  rowCount: number;
  /** Rows of `revisions` (= highest seq); checked at unlock (AUD-2). */
  revisionCount: number;
  /** HMAC key of the `revisions.lookup` column (derived from the master key; wiped on lock). */
  lookupKey: Buffer;
  /** lookup → seq of every revision row (revision-lookups.ts); loaded on first use. */
  lookups: RevisionLookups | undefined;
}

/** One extra sealed row written with a state commit (its purpose is in the AAD). */
export interface SealedRowInput {
  purpose: string;
  value: JsonValue;
}

/** One revision row (append-only `revisions` table), found again by `id`. */
export interface RevisionRowInput {
  id: string;
  /** The row plaintext (vault-core `encodeRevisionRow`), sealed as it is. */
  value: Uint8Array;
}

/** A revision row as stored: its row number and opened plaintext (the caller decodes and wipes it). */
export interface StoredRevisionRow {
  seq: number;
  value: Uint8Array;
}

export interface CommitOptions {
  /** Insert-only rows committed in the same transaction as the state and checkpoint. */
  rows?: readonly SealedRowInput[];
  /** Revision rows appended in the same transaction. */
  revisions?: readonly RevisionRowInput[];
}

const LOOKUP_KEY_INFO = 'memories/revision-lookup/v1';

/**
 * Opens the store of `dir` (locked: no keys in memory) and takes the exclusive
 * writer lock of the directory (VAULT-15, `store_locked`). VAULT-1: any format
 * version other than 1 is `unsupported_version`.
 */
export function openStore(dir: string, options: OpenStoreOptions): VaultStore {
  useNodeEd25519();
  if (typeof options?.kdf?.deriveKey !== 'function')
    throw new VaultStoreError('invalid_argument', 'options.kdf must implement PasswordKdf');
  const target = storePath(dir);
  if (!fs.existsSync(target)) throw new VaultStoreError('store_missing');
  const lock = acquireDirectoryLock(dir);
  let db: Database.Database | undefined;
  try {
    db = new Database(target, { fileMustExist: true, timeout: 1000 });
    applyDurabilityPragmas(db);
    const header = readHeader(db);
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'revisions'").get())
      db.exec(REVISIONS_SQL);
    return new VaultStore(db, lock, header, options);
  } catch (error) {
    if (db?.open) db.close();
    lock.release();
    throw toStoreError(error, 'corrupt', 'opening the store failed');
  }
}

interface ValueRow {
  purpose: string;
  value: Buffer;
}

interface SealedRevision {
  seq: number;
  lookup: Buffer;
  sealed: Uint8Array;
}

interface RevisionDbRow {
  seq: number;
  value: Buffer;
}

export class VaultStore {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly lockHandle: DirectoryLock;
  private readonly header: KeyringHeader;
  private readonly kdf: PasswordKdf;
  private readonly random: RandomSource;
  private readonly now: () => number;
  private session: Session | undefined;
  /** Bumped by lock/unlock/close; an unlock that finishes under another ticket is discarded. */
  private ticket = 0;
  private readonly upsertState: Database.Statement;
  private readonly insertState: Database.Statement;
  private readonly upsertCheckpoint: Database.Statement;
  private readonly selectState: Database.Statement;
  private readonly selectCheckpoint: Database.Statement;
  private readonly selectAudit: Database.Statement;
  /** One better-sqlite3 transaction wrapper, built once (building one per commit cost ~10 µs). */
  private readonly runTransaction: Database.Transaction<(write: () => void) => void>;
  private readonly countExtraRows: Database.Statement;
  private readonly countRange: Database.Statement;
  private readonly deleteRange: Database.Statement;
  private readonly insertRevision: Database.Statement;
  private readonly selectRevision: Database.Statement;
  private readonly selectLookupsAfter: Database.Statement<[number], [number, Buffer]>;
  private readonly selectRevisionsAfter: Database.Statement;
  private readonly countRevisions: Database.Statement;

  /** Use openStore(). */
  constructor(db: Database.Database, lock: DirectoryLock, header: KeyringHeader, options: OpenStoreOptions) {
    this.db = db;
    this.path = db.name;
    this.lockHandle = lock;
    this.header = header;
    this.kdf = options.kdf;
    this.random = options.random ?? systemRandom;
    this.now = options.now ?? Date.now;
    this.upsertState = db.prepare(
      'INSERT INTO state (purpose, value) VALUES (?, ?) ON CONFLICT (purpose) DO UPDATE SET value = excluded.value',
    );
    this.insertState = db.prepare('INSERT INTO state (purpose, value) VALUES (?, ?)');
    this.upsertCheckpoint = db.prepare(
      'INSERT INTO checkpoints (purpose, value) VALUES (?, ?) ON CONFLICT (purpose) DO UPDATE SET value = excluded.value',
    );
    this.selectState = db.prepare('SELECT purpose, value FROM state WHERE purpose = ?');
    this.selectCheckpoint = db.prepare('SELECT purpose, value FROM checkpoints WHERE purpose = ?');
    const hasPurposeIndex =
      db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'state_purposes'").get() !==
      undefined;
    this.countExtraRows = db.prepare(countExtraRowsSql(hasPurposeIndex));
    this.runTransaction = db.transaction((write: () => void) => write());
    this.selectAudit = db.prepare(
      'SELECT purpose, value FROM state WHERE purpose >= ? AND purpose < ? ORDER BY purpose',
    );
    this.countRange = db.prepare('SELECT COUNT(*) AS n FROM state WHERE purpose >= ? AND purpose < ?');
    this.deleteRange = db.prepare('DELETE FROM state WHERE purpose >= ? AND purpose < ?');
    this.insertRevision = db.prepare('INSERT INTO revisions (seq, lookup, value) VALUES (?, ?, ?)');
    this.selectRevision = db.prepare('SELECT seq, value FROM revisions WHERE seq = ?');
    this.selectLookupsAfter = db
      .prepare('SELECT seq, lookup FROM revisions WHERE seq > ? ORDER BY seq')
      .raw() as Database.Statement<[number], [number, Buffer]>;
    this.selectRevisionsAfter = db.prepare('SELECT seq, value FROM revisions WHERE seq > ? ORDER BY seq');
    this.countRevisions = db.prepare('SELECT COUNT(*) AS n, COALESCE(MAX(seq), 0) AS m FROM revisions');
  }

  get isOpen(): boolean {
    return this.db.open;
  }

  get isUnlocked(): boolean {
    return this.session !== undefined;
  }

  /** VAULT-12 evidence: the settings SQLite actually runs with. */
  durability(): SqliteDurability {
    this.assertOpen();
    return {
      journalMode: String(this.db.pragma('journal_mode', { simple: true })),
      synchronous: Number(this.db.pragma('synchronous', { simple: true })),
    };
  }

  /**
   * Derives the key-encryption key (Argon2id, VAULT-4), unwraps the master key
   * (VAULT-5), opens the device keys, state and checkpoint, and checks that the
   * state matches its checkpoint. `bad_password`, `corrupt`, `unsupported_version`.
   */
  async unlock(password: Uint8Array): Promise<void> {
    this.assertOpen();
    assertPassword(password);
    this.lock();
    const ticket = this.ticket;
    let masterKey: Uint8Array;
    try {
      masterKey = await unlockKeyring(this.kdf, password, this.header);
    } catch (error) {
      throw toStoreError(error, 'io_failed', 'key derivation failed');
    }
    if (ticket !== this.ticket || !this.db.open) {
      wipe(masterKey);
      throw new VaultStoreError(this.db.open ? 'locked' : 'closed', 'locked during unlock');
    }
    try {
      this.session = this.loadSession(masterKey);
    } catch (error) {
      wipe(masterKey);
      throw toStoreError(error, 'corrupt', 'reading the unlocked store failed');
    }
  }

  /** VAULT-19: wipes every key buffer this store owns and drops the decrypted state. */
  lock(): void {
    this.ticket++;
    const s = this.session;
    if (!s) return;
    this.session = undefined;
    wipe(s.masterKey, s.signingSeed, s.exchangePrivateKey, s.lookupKey);
    forgetEd25519SigningKeys();
  }

  /** Locks, closes the database and releases the directory lock. Idempotent. */
  close(): void {
    this.lock();
    if (this.db.open) this.db.close();
    this.lockHandle.release();
  }

  /** A deep copy of the current state (changes go through commitState). */
  getState(): JsonObject {
    return structuredClone(this.requireSession().value);
  }

  /** Number of commits since init (0 = initial state), state commits and row appends alike. */
  get generation(): number {
    return this.requireSession().generation;
  }

  /** The generation of the last commit that rewrote the state (snapshot caches key on it). */
  get stateGeneration(): number {
    return this.requireSession().stateGeneration;
  }

  /** The live state without a copy: callers must treat it as read-only (it is replaced, never edited, by commits). */
  peekState(): Readonly<JsonObject> {
    return this.requireSession().value;
  }

  /** The device's Ed25519 public key (hex) that signs audit entries. */
  deviceSigningPublicKey(): string {
    return bytesToHex(this.requireSession().signingPublicKey);
  }

  /**
   * VAULT-11: the mutator edits (or returns) a clone of the state; the sealed state
   * and its checkpoint are written in ONE transaction; only then does the live state
   * change. Any failure leaves database and live state as before (`commit_failed`).
   * Returns the new generation.
   */
  commitState(mutator: (draft: JsonObject) => JsonObject | void, options: CommitOptions = {}): number {
    const s = this.requireSession();
    const draft = structuredClone(s.value);
    const returned = mutator(draft);
    if (this.session !== s) throw new VaultStoreError('locked', 'locked during commit');
    return this.writeState(s, returned === undefined ? draft : returned, options);
  }

  /**
   * commitState without the deep copy: `build` gets the live (read-only) state and returns a
   * NEW object, which may share unchanged subtrees with it (the live state is replaced, never
   * edited). For large states (the service's index snapshot).
   */
  replaceState(build: (current: Readonly<JsonObject>) => JsonObject, options: CommitOptions = {}): number {
    const s = this.requireSession();
    const next = build(s.value);
    if (this.session !== s) throw new VaultStoreError('locked', 'locked during commit');
    if (next === s.value) throw new VaultStoreError('invalid_argument', 'replaceState needs a new object');
    return this.writeState(s, next, options);
  }

  private writeState(s: Session, next: unknown, options: CommitOptions): number {
    if (!isJsonObject(next)) throw new VaultStoreError('invalid_argument', 'state must be an object');
    const sealedRows = this.sealRows(s, options.rows ?? []);
    const { sealedRevisions, blockRows } = this.sealRevisions(s, options.revisions ?? []);
    const generation = s.generation + 1;
    const rowCount = s.rowCount + sealedRows.length + blockRows.length;
    const revisionCount = s.revisionCount + sealedRevisions.length;
    const text = canonicalJson({ generation, value: next });
    const statePlain = utf8Encode(text);
    const stateSha256 = sha256Hex(statePlain);
    let sealedState: Uint8Array;
    try {
      sealedState = sealNative(s.masterKey, statePlain, STATE_LABEL, this.random);
    } finally {
      wipe(statePlain);
    }
    const sealedCheckpoint = this.sealCheckpoint(s, {
      generation,
      state_generation: generation,
      state_sha256: stateSha256,
      audit_count: s.auditCount,
      audit_head: s.auditHead,
      row_count: rowCount,
      revision_count: revisionCount,
    });
    this.transact('commit_failed', () => {
      for (const row of sealedRows) this.insertState.run(row.purpose, row.sealed);
      for (const row of sealedRevisions) this.insertRevision.run(row.seq, row.lookup, row.sealed);
      for (const row of blockRows) this.insertState.run(row.purpose, row.value);
      this.upsertState.run(STATE_LABEL.purpose, sealedState);
      this.upsertCheckpoint.run(HEAD_CHECKPOINT_LABEL.purpose, sealedCheckpoint);
    });
    s.value = (JSON.parse(text) as { value: JsonObject }).value;
    s.lookups?.commit(sealedRevisions, blockRows.length);
    s.generation = generation;
    s.stateGeneration = generation;
    s.stateSha256 = stateSha256;
    s.rowCount = rowCount;
    s.revisionCount = revisionCount;
    return generation;
  }

  /**
   * The write hot path: extra insert-only rows plus the checkpoint in ONE transaction; the
   * state row is not rewritten (the checkpoint keeps binding its hash and generation, AUD-2).
   * Returns the new generation.
   */
  appendRows(rows: readonly SealedRowInput[], revisions: readonly RevisionRowInput[] = []): number {
    const s = this.requireSession();
    const sealedRows = this.sealRows(s, rows);
    const { sealedRevisions, blockRows } = this.sealRevisions(s, revisions);
    const generation = s.generation + 1;
    const rowCount = s.rowCount + sealedRows.length + blockRows.length;
    const revisionCount = s.revisionCount + sealedRevisions.length;
    const sealedCheckpoint = this.sealCheckpoint(s, {
      generation,
      state_generation: s.stateGeneration,
      state_sha256: s.stateSha256,
      audit_count: s.auditCount,
      audit_head: s.auditHead,
      row_count: rowCount,
      revision_count: revisionCount,
    });
    this.transact('commit_failed', () => {
      for (const row of sealedRows) this.insertState.run(row.purpose, row.sealed);
      for (const row of sealedRevisions) this.insertRevision.run(row.seq, row.lookup, row.sealed);
      for (const row of blockRows) this.insertState.run(row.purpose, row.value);
      this.upsertCheckpoint.run(HEAD_CHECKPOINT_LABEL.purpose, sealedCheckpoint);
    });
    s.lookups?.commit(sealedRevisions, blockRows.length);
    s.generation = generation;
    s.rowCount = rowCount;
    s.revisionCount = revisionCount;
    return generation;
  }

  /**
   * Compaction of a rewritable range (grant logs): deletes every extra row with
   * `from <= purpose < to`, inserts `rows` (each inside the range) and moves the checkpoint's
   * row count, all in ONE transaction, so a removal without the key still fails AUD-2.
   */
  replaceRowRange(from: string, to: string, rows: readonly SealedRowInput[]): number {
    const s = this.requireSession();
    if (!isExtraRowRange(from, to)) throw new VaultStoreError('invalid_argument', 'row purpose range');
    if (rows.some((row) => !(from <= row?.purpose && row.purpose < to)))
      throw new VaultStoreError('invalid_argument', 'a row lies outside the range it replaces');
    const sealedRows = this.sealRows(s, rows);
    const removed = (this.countRange.get(from, to) as { n: number }).n;
    const generation = s.generation + 1;
    const rowCount = s.rowCount - removed + sealedRows.length;
    const sealedCheckpoint = this.sealCheckpoint(s, {
      generation,
      state_generation: s.stateGeneration,
      state_sha256: s.stateSha256,
      audit_count: s.auditCount,
      audit_head: s.auditHead,
      row_count: rowCount,
      revision_count: s.revisionCount,
    });
    this.transact('commit_failed', () => {
      this.deleteRange.run(from, to);
      for (const row of sealedRows) this.insertState.run(row.purpose, row.sealed);
      this.upsertCheckpoint.run(HEAD_CHECKPOINT_LABEL.purpose, sealedCheckpoint);
    });
    s.generation = generation;
    s.rowCount = rowCount;
    return generation;
  }

  /**
   * Opens every extra row with `from <= purpose < to`, in purpose order (`corrupt` if one
   * fails AEAD). Used to rebuild in-memory indexes at unlock.
   */
  readRowRange(from: string, to: string): { purpose: string; value: JsonValue }[] {
    const s = this.requireSession();
    if (!isExtraRowRange(from, to)) throw new VaultStoreError('invalid_argument', 'row purpose range');
    return (this.selectAudit.all(from, to) as ValueRow[]).map((row) => {
      try {
        const value = openJson(s.masterKey, row.value, this.rowLabel(row.purpose)) as JsonValue;
        return { purpose: row.purpose, value };
      } catch (error) {
        throw toStoreError(error, 'corrupt', 'a sealed row failed to open');
      }
    });
  }

  private sealRows(s: Session, rows: readonly SealedRowInput[]): { purpose: string; sealed: Uint8Array }[] {
    return rows.map((row) => {
      if (!isExtraRowPurpose(row?.purpose))
        throw new VaultStoreError(
          'invalid_argument',
          'row purpose must match [a-z0-9_.-]{1,64} and not be reserved',
        );
      return {
        purpose: row.purpose,
        sealed: sealJson(s.masterKey, row.value, this.rowLabel(row.purpose), this.random, false),
      };
    });
  }

  private sealRevisions(
    s: Session,
    revisions: readonly RevisionRowInput[],
  ): { sealedRevisions: SealedRevision[]; blockRows: SealedBlockRow[] } {
    if (revisions.length === 0) return { sealedRevisions: [], blockRows: [] };
    const lookups = this.ensureLookups(s);
    const sealedRevisions = revisions.map((row, i) => {
      if (typeof row?.id !== 'string' || row.id.length === 0)
        throw new VaultStoreError('invalid_argument', 'revision row id');
      if (!isBytes(row.value))
        throw new VaultStoreError('invalid_argument', 'revision row value must be bytes');
      const seq = s.revisionCount + i + 1;
      return {
        seq,
        lookup: this.revisionLookup(s, row.id),
        sealed: sealNative(s.masterKey, row.value, revisionLabel(seq), this.random),
      };
    });
    const blockRows = lookups.prepare(sealedRevisions, (plain, label) =>
      sealNative(s.masterKey, plain, label, this.random),
    );
    return { sealedRevisions, blockRows };
  }

  private revisionLookup(s: Session, id: string): Buffer {
    return createHmac('sha256', s.lookupKey).update(id).digest().subarray(0, LOOKUP_BYTES);
  }

  /** The lookup → seq map of this unlock (revision-lookups.ts), loaded on first use. */
  private ensureLookups(s: Session): RevisionLookups {
    if (s.lookups) return s.lookups;
    const blocks = this.selectAudit.all(LOOKUP_PURPOSE_FROM, LOOKUP_PURPOSE_TO) as ValueRow[];
    try {
      s.lookups = RevisionLookups.load(
        blocks,
        (sealed, label) => openNative(s.masterKey, sealed, label),
        (after) => this.selectLookupsAfter.iterate(after),
      );
    } catch (error) {
      throw toStoreError(error, 'corrupt', 'revision lookups');
    }
    if (s.lookups.nextSeq() !== s.revisionCount + 1)
      throw new VaultStoreError('corrupt', 'revision lookups do not match the revision rows');
    return s.lookups;
  }

  /**
   * The revision row stored for `id` (opened; AEAD binds its row number), undefined if absent.
   * The caller checks that the id inside is `id`.
   */
  readRevision(id: string): StoredRevisionRow | undefined {
    const s = this.requireSession();
    if (typeof id !== 'string' || id.length === 0)
      throw new VaultStoreError('invalid_argument', 'revision id');
    const seq = this.ensureLookups(s).find(this.revisionLookup(s, id));
    if (seq === undefined) return undefined;
    const row = this.selectRevision.get(seq) as RevisionDbRow | undefined;
    return row && this.openRevision(s, row);
  }

  /** Every revision row with seq > `after`, in seq order (index rebuild at unlock). */
  readRevisionsAfter(after: number): StoredRevisionRow[] {
    const s = this.requireSession();
    return (this.selectRevisionsAfter.all(after) as RevisionDbRow[]).map((row) => this.openRevision(s, row));
  }

  /** Number of revision rows (= highest seq; matches the checkpoint, checked at unlock). */
  get revisionCount(): number {
    return this.requireSession().revisionCount;
  }

  private openRevision(s: Session, row: RevisionDbRow): StoredRevisionRow {
    try {
      return { seq: row.seq, value: openNative(s.masterKey, row.value, revisionLabel(row.seq)) };
    } catch (error) {
      throw toStoreError(error, 'corrupt', 'a revision row failed to open');
    }
  }

  private sealCheckpoint(s: Session, checkpoint: HeadCheckpoint): Uint8Array {
    return sealJson(s.masterKey, checkpoint, HEAD_CHECKPOINT_LABEL, this.random);
  }

  /** One extra row written by commitState, opened (AEAD binds the purpose); undefined if absent. */
  readRow(purpose: string): JsonValue | undefined {
    const s = this.requireSession();
    if (!isExtraRowPurpose(purpose)) throw new VaultStoreError('invalid_argument', 'row purpose');
    const row = this.selectState.get(purpose) as ValueRow | undefined;
    if (!row) return undefined;
    try {
      return openJson(s.masterKey, row.value, this.rowLabel(purpose)) as JsonValue;
    } catch (error) {
      throw toStoreError(error, 'corrupt', 'a sealed row failed to open');
    }
  }

  /** Number of extra rows (matches the checkpoint; checked at unlock). */
  get rowCount(): number {
    return this.requireSession().rowCount;
  }

  /**
   * True if `password` unwraps the master key (keyring header check). The derived key
   * is wiped at once; the lock state does not change. Other failures throw.
   */
  async checkPassword(password: Uint8Array): Promise<boolean> {
    this.assertOpen();
    assertPassword(password);
    try {
      wipe(await unlockKeyring(this.kdf, password, this.header));
      return true;
    } catch (error) {
      const mapped = toStoreError(error, 'io_failed', 'key derivation failed');
      if (mapped.code === 'bad_password') return false;
      throw mapped;
    }
  }

  /** VAULT-7: a new epoch key, wrapped under the master key (caller wipes `epochKey`). */
  createEpochKey(vaultId: string, epoch: number): CreatedEpochKey {
    const s = this.requireSession();
    return createEpochKey(s.masterKey, vaultId, epoch, this.random);
  }

  /** VAULT-7: unwraps a stored epoch key (`corrupt` if it fails). Caller wipes the result. */
  unwrapEpochKey(vaultId: string, epoch: number, wrapped: Uint8Array): Uint8Array {
    const s = this.requireSession();
    try {
      return unwrapEpochKey(s.masterKey, vaultId, epoch, wrapped);
    } catch (error) {
      throw toStoreError(error, 'corrupt', 'epoch key');
    }
  }

  /** The device's public keys (Ed25519 signing, X25519 exchange). */
  devicePublicKeys(): { signing: Uint8Array; exchange: Uint8Array } {
    const s = this.requireSession();
    return { signing: s.signingPublicKey.slice(), exchange: x25519.getPublicKey(s.exchangePrivateKey) };
  }

  /** Runs `use` with the live device signing seed (wiped on lock; never keep a reference). */
  withDeviceSeed<T>(use: (signingSeed: Uint8Array) => T): T {
    return use(this.requireSession().signingSeed);
  }

  private rowLabel(purpose: string): SealedValueLabel {
    return { table: 'state', purpose };
  }

  /**
   * VAULT-13: commits a signed, sealed intent record durably. Throws
   * `intent_failed` if it cannot be committed; the caller must then not deliver.
   */
  recordIntent(kind: string, details: JsonObject): AuditEntry {
    return this.appendAudit('intent', kind, details, 'intent_failed');
  }

  /** VAULT-13: `deliver` runs only after the intent is committed; never if that fails. */
  withIntent<T>(kind: string, details: JsonObject, deliver: (intent: AuditEntry) => T): T {
    const intent = this.recordIntent(kind, details);
    return deliver(intent);
  }

  /** AUD-1/5: appends a non-intent audit entry (e.g. an outcome). Never pass prompts, keys or OTP data. */
  recordAudit(kind: string, details: JsonObject): AuditEntry {
    return this.appendAudit('event', kind, details, 'commit_failed');
  }

  /**
   * AUD-1/2: re-reads every audit entry, opens it (a changed or moved ciphertext is
   * `tampered`), and checks order, hash links, signatures and the checkpoint head.
   */
  verifyAuditChain(): AuditVerification {
    const s = this.requireSession();
    const rows = this.selectAudit.all(AUDIT_PURPOSE_FROM, AUDIT_PURPOSE_TO) as ValueRow[];
    const records: unknown[] = [];
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as ValueRow;
      try {
        records.push(openJson(s.masterKey, row.value, { table: 'state', purpose: row.purpose }));
      } catch {
        return { ok: false, problem: 'tampered', seq: i + 1 };
      }
    }
    return verifyAuditRecords(records, s.signingPublicKey, { count: s.auditCount, head: s.auditHead });
  }

  /** The opened audit entries, oldest first (inspection; `verifyAuditChain` checks them). */
  auditEntries(): AuditEntry[] {
    const s = this.requireSession();
    const rows = this.selectAudit.all(AUDIT_PURPOSE_FROM, AUDIT_PURPOSE_TO) as ValueRow[];
    return rows.map((row) => {
      const record = openJson(s.masterKey, row.value, {
        table: 'state',
        purpose: row.purpose,
      }) as unknown as {
        entry: AuditEntry;
      };
      return record.entry;
    });
  }

  private appendAudit(
    type: AuditEntryType,
    kind: string,
    details: JsonObject,
    failCode: VaultStoreErrorCode,
  ): AuditEntry {
    const s = this.requireSession();
    if (!isAuditKind(kind))
      throw new VaultStoreError('invalid_argument', 'audit kind must match [a-z0-9_.:-]{1,64}');
    if (!isJsonObject(details))
      throw new VaultStoreError('invalid_argument', 'audit details must be an object');
    const seq = s.auditCount + 1;
    const entry: AuditEntry = {
      seq,
      at: this.now(),
      type,
      kind,
      details: JSON.parse(canonicalJson(details)) as JsonObject,
    };
    const record = signAuditRecord(s.auditHead, entry, s.signingSeed);
    const label = auditLabel(seq);
    const sealedRecord = sealJson(s.masterKey, record, label, this.random);
    const sealedCheckpoint = this.sealCheckpoint(s, {
      generation: s.generation,
      state_generation: s.stateGeneration,
      state_sha256: s.stateSha256,
      audit_count: seq,
      audit_head: record.hash,
      row_count: s.rowCount,
      revision_count: s.revisionCount,
    });
    this.transact(failCode, () => {
      this.insertState.run(label.purpose, sealedRecord);
      this.upsertCheckpoint.run(HEAD_CHECKPOINT_LABEL.purpose, sealedCheckpoint);
    });
    s.auditCount = seq;
    s.auditHead = record.hash;
    return structuredClone(entry);
  }

  private transact(failCode: VaultStoreErrorCode, write: () => void): void {
    this.assertOpen();
    try {
      this.runTransaction.immediate(write);
    } catch (error) {
      throw new VaultStoreError(failCode, 'the write transaction was rolled back', { cause: error });
    }
  }

  private loadSession(masterKey: Uint8Array): Session {
    const deviceRow = this.selectState.get(DEVICE_KEYS_LABEL.purpose) as ValueRow | undefined;
    const stateRow = this.selectState.get(STATE_LABEL.purpose) as ValueRow | undefined;
    const checkpointRow = this.selectCheckpoint.get(HEAD_CHECKPOINT_LABEL.purpose) as ValueRow | undefined;
    if (!deviceRow || !stateRow || !checkpointRow) throw new VaultStoreError('corrupt', 'missing rows');

    const checkpoint = parseCheckpoint(openJson(masterKey, checkpointRow.value, HEAD_CHECKPOINT_LABEL));
    const statePlain = openNative(masterKey, stateRow.value, STATE_LABEL);
    const stateSha256 = sha256Hex(statePlain);
    let stateRecord: unknown;
    try {
      stateRecord = JSON.parse(utf8DecodeStrict(statePlain) ?? '');
    } catch {
      throw new VaultStoreError('corrupt', 'state is not JSON');
    } finally {
      wipe(statePlain);
    }
    const rec = stateRecord as { generation?: unknown; value?: unknown } | null;
    if (!isJsonObject(rec) || !Number.isSafeInteger(rec.generation) || !isJsonObject(rec.value))
      throw new VaultStoreError('corrupt', 'state shape');
    // AUD-2: a checkpoint that does not describe the remaining state (rolled back or stale).
    const stateGeneration = checkpoint.state_generation ?? checkpoint.generation;
    if (
      stateGeneration !== rec.generation ||
      stateGeneration > checkpoint.generation ||
      checkpoint.state_sha256 !== stateSha256
    )
      throw new VaultStoreError('corrupt', 'state does not match its checkpoint');

    // AUD-2: extra rows are insert-only; fewer (or more) than the checkpoint counts is tampering.
    const rowCount = checkpoint.row_count ?? 0;
    if ((this.countExtraRows.get() as { n: number }).n !== rowCount)
      throw new VaultStoreError('corrupt', 'sealed rows do not match the checkpoint');
    // AUD-2: revision rows are numbered 1..n without gaps; a removed or added row changes n or max.
    const revisionCount = checkpoint.revision_count ?? 0;
    const revisions = this.countRevisions.get() as { n: number; m: number };
    if (revisions.n !== revisionCount || revisions.m !== revisionCount)
      throw new VaultStoreError('corrupt', 'revision rows do not match the checkpoint');

    const device = openNative(masterKey, deviceRow.value, DEVICE_KEYS_LABEL);
    if (device.length !== 2 * DEVICE_KEY_BYTES) {
      wipe(device);
      throw new VaultStoreError('corrupt', 'device keys length');
    }
    const signingSeed = device.slice(0, DEVICE_KEY_BYTES);
    const exchangePrivateKey = device.slice(DEVICE_KEY_BYTES);
    wipe(device);
    // Computed so a damaged key row fails here, not at first signature.
    x25519.getPublicKey(exchangePrivateKey);
    return {
      masterKey,
      signingSeed,
      signingPublicKey: ed25519PublicKey(signingSeed),
      exchangePrivateKey,
      generation: checkpoint.generation,
      stateGeneration,
      stateSha256,
      value: rec.value,
      auditCount: checkpoint.audit_count,
      auditHead: checkpoint.audit_head,
      rowCount,
      revisionCount,
      lookupKey: createHmac('sha256', masterKey).update(LOOKUP_KEY_INFO).digest(),
      lookups: undefined,
    };
  }

  private assertOpen(): void {
    if (!this.db.open) throw new VaultStoreError('closed');
  }

  private requireSession(): Session {
    this.assertOpen();
    if (!this.session) throw new VaultStoreError('locked');
    return this.session;
  }
}
