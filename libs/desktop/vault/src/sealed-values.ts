// Helpers shared by store-init.ts and vault-store.ts: sealed JSON rows and the head checkpoint.
import { utf8DecodeStrict, utf8Encode, wipe } from '@arslan/util';
import type { RandomSource, SealedValueLabel } from '@arslan/vault-core';
import { createHash } from 'node:crypto';
import { canonicalJson, isJsonObject } from './canonical-json';
import { openNative, sealNative } from './native-sealed';
import { VaultStoreError } from './vault-store.errors';

/** Plaintext of the `checkpoints/head` row. */
export interface HeadCheckpoint {
  /** Commits since init (state commits and row appends). */
  generation: number;
  /** Generation stored inside the state row (its last rewrite); absent = `generation`. */
  state_generation?: number;
  state_sha256: string;
  audit_count: number;
  audit_head: string;
  /** Extra insert-only rows (commitState options.rows); absent = 0 (stores before rows existed). */
  row_count?: number;
  /** Rows of the append-only `revisions` table (= its highest seq); absent = 0. */
  revision_count?: number;
}

export const DEVICE_KEY_BYTES = 32;

export function assertPassword(password: unknown): asserts password is Uint8Array {
  if (!(password instanceof Uint8Array) || password.length === 0)
    throw new VaultStoreError('invalid_argument', 'password must be non-empty bytes');
}

/** OpenSSL SHA-256 (the state hash is computed over up to megabytes at unlock and snapshot commits). */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Seals `value` as JSON. `canonical: false` (extra rows: never hashed, opened with JSON.parse)
 * skips the canonical encoder's key sorting and checks; the write path seals a ~12 KB revision
 * row per commit. The caller then guarantees a JSON value.
 */
export function sealJson(
  masterKey: Uint8Array,
  value: unknown,
  label: SealedValueLabel,
  random: RandomSource,
  canonical = true,
) {
  const text = canonical ? canonicalJson(value) : JSON.stringify(value);
  if (typeof text !== 'string') throw new VaultStoreError('invalid_argument', 'not a JSON value');
  const plain = utf8Encode(text);
  try {
    return sealNative(masterKey, plain, label, random);
  } finally {
    wipe(plain);
  }
}

export function openJson(masterKey: Uint8Array, sealed: Uint8Array, label: SealedValueLabel): unknown {
  const plain = openNative(masterKey, sealed, label);
  try {
    return JSON.parse(utf8DecodeStrict(plain) ?? '');
  } catch {
    throw new VaultStoreError('corrupt', `${label.table}/${label.purpose} is not JSON`);
  } finally {
    wipe(plain);
  }
}

export function parseCheckpoint(value: unknown): HeadCheckpoint {
  const v = value as Partial<HeadCheckpoint> | null;
  if (
    !isJsonObject(v) ||
    !Number.isSafeInteger(v.generation) ||
    !Number.isSafeInteger(v.audit_count) ||
    typeof v.state_sha256 !== 'string' ||
    typeof v.audit_head !== 'string' ||
    (v.row_count !== undefined && !Number.isSafeInteger(v.row_count)) ||
    (v.revision_count !== undefined && !Number.isSafeInteger(v.revision_count)) ||
    (v.state_generation !== undefined && !Number.isSafeInteger(v.state_generation))
  )
    throw new VaultStoreError('corrupt', 'checkpoint shape');
  return v as HeadCheckpoint;
}
