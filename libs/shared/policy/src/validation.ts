// Boundary checks shared by the policy and grant code. Everything here is a
// predicate; callers turn a `false` into their own typed error.
import { utf8Encode } from '@arslan/util';
import { RESERVED_MEMBER_NAME } from './grant-scope';

const HEX64_RE = /^[0-9a-f]{64}$/;
const HEX128_RE = /^[0-9a-f]{128}$/;
const VAULT_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
// C0 controls, DEL and C1 controls never belong in a display name.
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f]/;
// A lone surrogate would encode to U+FFFD, so two names could share bytes.
const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const MAX_NAME_BYTES = 128;

/** 32 bytes as 64 lowercase hex digits: member ids, fingerprints, hashes. */
export function isHex32(value: unknown): value is string {
  return typeof value === 'string' && HEX64_RE.test(value);
}

/** 64 bytes as 128 lowercase hex digits: Ed25519 signatures. */
export function isHex64(value: unknown): value is string {
  return typeof value === 'string' && HEX128_RE.test(value);
}

/** 1–128 ASCII characters `[A-Za-z0-9._:-]`, not starting with punctuation. */
export function isVaultId(value: unknown): value is string {
  return typeof value === 'string' && VAULT_ID_RE.test(value);
}

/** A member name: 1–128 UTF-8 bytes, no control characters, compared byte-exactly. */
export function isMemberName(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || CONTROL_RE.test(value)) return false;
  if (LONE_SURROGATE_RE.test(value)) return false;
  return utf8Encode(value).length <= MAX_NAME_BYTES;
}

export function isReservedName(name: string): boolean {
  return name === RESERVED_MEMBER_NAME;
}

export function isU32(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffffffff;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object has exactly these own enumerable keys (no more, no fewer). */
export function hasExactKeys(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((k) => Object.prototype.hasOwnProperty.call(value, k));
}

/** Strictly ascending by code unit order: sorted and free of duplicates. */
export function isStrictlyAscending(values: readonly string[]): boolean {
  for (let i = 1; i < values.length; i++)
    if (!((values[i - 1] as string) < (values[i] as string))) return false;
  return true;
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
