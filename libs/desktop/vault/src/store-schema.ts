// VAULT-2/12: the on-disk layout of a store (one SQLite file per data directory).
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { SealedValueLabel } from '@arslan/vault-core';
import { VaultStoreError } from './vault-store.errors';

export const STORE_FILE_NAME = 'vault.sqlite';

export function storePath(dir: string): string {
  return path.join(dir, STORE_FILE_NAME);
}

/**
 * revisions: one append-only row per stored revision (the write hot path: one B-tree append
 * per commit, no index). `seq` = 1, 2, … (row number, counted by the checkpoint); `lookup` =
 * keyed hash of the revision id, so reads by id need no plaintext id: the store maps lookup →
 * seq in memory (vault-store.ts, built on first use after unlock from this column), which
 * saved the random index leaf every commit dirtied (~9 KiB of journal + database writes);
 * `value` = the sealed row, AAD `revisions/rev.<seq, 12 digits>`.
 */
export const REVISIONS_SQL = `
CREATE TABLE IF NOT EXISTS revisions (
  seq INTEGER PRIMARY KEY,
  lookup BLOB NOT NULL,
  value BLOB NOT NULL
) STRICT;
`;

/**
 * header: format metadata, KDF parameters, salt and the AEAD-wrapped master key (one row).
 * state: sealed values keyed by purpose (the vault state, the device keys, audit entries).
 * checkpoints: sealed checkpoints keyed by purpose (`head`: generation, state hash, audit head,
 * row counts). revisions: see REVISIONS_SQL.
 * Every `value` is sealState() ciphertext whose AAD names the table and the purpose.
 */
export const SCHEMA_SQL = `
CREATE TABLE header (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  format_version INTEGER NOT NULL,
  kdf TEXT NOT NULL,
  salt BLOB NOT NULL,
  wrapped_master_key BLOB NOT NULL
) STRICT;
CREATE TABLE state (
  purpose TEXT PRIMARY KEY,
  value BLOB NOT NULL
) STRICT, WITHOUT ROWID;
CREATE TABLE checkpoints (
  purpose TEXT PRIMARY KEY,
  value BLOB NOT NULL
) STRICT, WITHOUT ROWID;
${REVISIONS_SQL}`;

export const STATE_LABEL: SealedValueLabel = { table: 'state', purpose: 'vault-state' };
export const DEVICE_KEYS_LABEL: SealedValueLabel = { table: 'state', purpose: 'device-keys' };
export const HEAD_CHECKPOINT_LABEL: SealedValueLabel = { table: 'checkpoints', purpose: 'head' };

/** Revision row `seq` (1-based) in `revisions`. */
export function revisionLabel(seq: number): SealedValueLabel {
  return { table: 'revisions', purpose: `rev.${String(seq).padStart(12, '0')}` };
}

/** Audit entry `seq` lives in `state` under `audit.<seq, 12 digits>` (sorts in chain order). */
export function auditLabel(seq: number): SealedValueLabel {
  return { table: 'state', purpose: `audit.${String(seq).padStart(12, '0')}` };
}

/** Range of audit purposes in `state` ('/' is the byte after '.'). */
export const AUDIT_PURPOSE_FROM = 'audit.';
export const AUDIT_PURPOSE_TO = 'audit/';

/** The store's own blocks of revision lookups (revision-lookups.ts), counted as extra rows. */
const LOOKUPS_PREFIX = 'lookups.';

/**
 * Extra rows of `state` (commitState options.rows): any sealed-value purpose except
 * the reserved `vault-state`, `device-keys`, `audit.*` and `lookups.*`.
 */
export function isExtraRowPurpose(purpose: unknown): purpose is string {
  return (
    typeof purpose === 'string' &&
    /^[a-z0-9_.-]{1,64}$/.test(purpose) &&
    purpose !== STATE_LABEL.purpose &&
    purpose !== DEVICE_KEYS_LABEL.purpose &&
    !purpose.startsWith(AUDIT_PURPOSE_FROM) &&
    !purpose.startsWith(LOOKUPS_PREFIX)
  );
}

/** A purpose range `[from, to)` that holds only extra rows (none of the reserved purposes). */
export function isExtraRowRange(from: string, to: string): boolean {
  const within = (p: string) => from <= p && p < to;
  return (
    isExtraRowPurpose(from) &&
    typeof to === 'string' &&
    from < to &&
    !within(STATE_LABEL.purpose) &&
    !within(DEVICE_KEYS_LABEL.purpose) &&
    !within(AUDIT_PURPOSE_FROM) &&
    !(from >= AUDIT_PURPOSE_FROM && from < AUDIT_PURPOSE_TO) &&
    !within(LOOKUPS_PREFIX) &&
    !(from >= LOOKUPS_PREFIX && from < 'lookups/')
  );
}

/** Stores created with the former `state_purposes` index count through it. */
export function countExtraRowsSql(hasPurposeIndex: boolean): string {
  return `SELECT COUNT(*) AS n FROM state ${hasPurposeIndex ? 'INDEXED BY state_purposes' : ''}
  WHERE purpose NOT IN ('${STATE_LABEL.purpose}', '${DEVICE_KEYS_LABEL.purpose}')
  AND NOT (purpose >= '${AUDIT_PURPOSE_FROM}' AND purpose < '${AUDIT_PURPOSE_TO}')`;
}

/** SQLite `synchronous` values; FULL = 2. */
export const SYNCHRONOUS_FULL = 2;

/** VAULT-12: rollback journal (DELETE) with synchronous=FULL; verified, not just requested. */
export function applyDurabilityPragmas(db: Database.Database): void {
  const mode = db.pragma('journal_mode = DELETE', { simple: true });
  db.pragma('synchronous = FULL');
  if (
    String(mode).toLowerCase() !== 'delete' ||
    db.pragma('synchronous', { simple: true }) !== SYNCHRONOUS_FULL
  )
    throw new VaultStoreError('io_failed', 'SQLite refused journal_mode=DELETE / synchronous=FULL');
}
