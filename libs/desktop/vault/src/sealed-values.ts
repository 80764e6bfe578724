// Helpers shared by store-init.ts and vault-store.ts: sealed JSON rows and the head checkpoint.
import { bytesToHex, utf8DecodeStrict, utf8Encode, wipe } from '@arslan/util';
import { type RandomSource, type SealedValueLabel, openState, sealState } from '@arslan/vault-core';
import { sha256 } from '@noble/hashes/sha2.js';
import { canonicalJson, isJsonObject } from './canonical-json';
import { VaultStoreError } from './vault-store.errors';

/** Plaintext of the `checkpoints/head` row. */
export interface HeadCheckpoint {
  generation: number;
  state_sha256: string;
  audit_count: number;
  audit_head: string;
  /** Extra insert-only rows (commitState options.rows); absent = 0 (stores before rows existed). */
  row_count?: number;
}

export const DEVICE_KEY_BYTES = 32;

export function assertPassword(password: unknown): asserts password is Uint8Array {
  if (!(password instanceof Uint8Array) || password.length === 0)
    throw new VaultStoreError('invalid_argument', 'password must be non-empty bytes');
}

export function sha256Hex(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes));
}

export function sealJson(
  masterKey: Uint8Array,
  value: unknown,
  label: SealedValueLabel,
  random: RandomSource,
) {
  const plain = utf8Encode(canonicalJson(value));
  try {
    return sealState(masterKey, plain, label, random);
  } finally {
    wipe(plain);
  }
}

export function openJson(masterKey: Uint8Array, sealed: Uint8Array, label: SealedValueLabel): unknown {
  const plain = openState(masterKey, sealed, label);
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
    (v.row_count !== undefined && !Number.isSafeInteger(v.row_count))
  )
    throw new VaultStoreError('corrupt', 'checkpoint shape');
  return v as HeadCheckpoint;
}
