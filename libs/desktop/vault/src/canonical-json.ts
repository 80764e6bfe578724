// Deterministic JSON for hashed and sealed values: object keys sorted, no undefined,
// functions, non-finite numbers or non-plain objects (those are `invalid_argument`).
import { VaultStoreError } from './vault-store.errors';

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** JSON text of a scalar, or undefined for containers and values that are not JSON. */
function scalar(value: unknown): string | undefined {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' && Number.isFinite(value)) return JSON.stringify(value);
  return undefined;
}

// `where` builds the error path only when one is thrown: building it for every element cost
// more than the encoding itself for the index snapshot (tens of thousands of scalars).
function encode(value: unknown, depth: number, where: () => string): string {
  const leaf = scalar(value);
  if (leaf !== undefined) return leaf;
  if (depth > 64) throw new VaultStoreError('invalid_argument', `${where()}: nested too deeply`);
  if (typeof value === 'number')
    throw new VaultStoreError('invalid_argument', `${where()}: non-finite number`);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (i > 0) out += ',';
      out += scalar(v) ?? encode(v, depth + 1, () => `${where()}[${i}]`);
    }
    return `${out}]`;
  }
  if (typeof value === 'object' && value !== null) {
    // plain objects from any realm (structuredClone, vm contexts); no class instances, Dates, Maps
    const proto = Object.getPrototypeOf(value);
    if (
      Object.prototype.toString.call(value) !== '[object Object]' ||
      (proto !== null && Object.getPrototypeOf(proto) !== null)
    )
      throw new VaultStoreError('invalid_argument', `${where()}: only plain objects`);
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    let out = '{';
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      const v = record[k];
      if (i > 0) out += ',';
      out += `${JSON.stringify(k)}:${scalar(v) ?? encode(v, depth + 1, () => `${where()}.${k}`)}`;
    }
    return `${out}}`;
  }
  throw new VaultStoreError('invalid_argument', `${where()}: not JSON (${typeof value})`);
}

/** Canonical JSON text of a JSON value (sorted keys, no whitespace). */
export function canonicalJson(value: unknown): string {
  return encode(value, 0, () => '$');
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
