// Deterministic JSON for hashed and sealed values: object keys sorted, no undefined,
// functions, non-finite numbers or non-plain objects (those are `invalid_argument`).
import { VaultStoreError } from './vault-store.errors';

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

function encode(value: unknown, path: string, depth: number): string {
  if (depth > 64) throw new VaultStoreError('invalid_argument', `${path}: nested too deeply`);
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new VaultStoreError('invalid_argument', `${path}: non-finite number`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value))
    return `[${value.map((v, i) => encode(v, `${path}[${i}]`, depth + 1)).join(',')}]`;
  if (typeof value === 'object') {
    // plain objects from any realm (structuredClone, vm contexts); no class instances, Dates, Maps
    const proto = Object.getPrototypeOf(value);
    if (
      Object.prototype.toString.call(value) !== '[object Object]' ||
      (proto !== null && Object.getPrototypeOf(proto) !== null)
    )
      throw new VaultStoreError('invalid_argument', `${path}: only plain objects`);
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${encode(record[k], `${path}.${k}`, depth + 1)}`).join(',')}}`;
  }
  throw new VaultStoreError('invalid_argument', `${path}: not JSON (${typeof value})`);
}

/** Canonical JSON text of a JSON value (sorted keys, no whitespace). */
export function canonicalJson(value: unknown): string {
  return encode(value, '$', 0);
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
