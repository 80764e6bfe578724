// AUD-3: the Center audit is an unkeyed hash chain of JSON lines.
// entry.hash = sha256(prev ‖ "\n" ‖ canonical({seq, at, prev, event})); the first prev is 64 zeros.
import { createHash } from 'node:crypto';
import { type AuditEvent } from './ports';

export const AUDIT_GENESIS = '0'.repeat(64);

export interface AuditEntry {
  readonly seq: number;
  readonly at: number;
  readonly prev: string;
  readonly event: AuditEvent;
  readonly hash: string;
}

/** Canonical JSON: object keys sorted recursively, no whitespace. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`)
    .join(',')}}`;
}

export function auditEntryHash(seq: number, at: number, prev: string, event: AuditEvent): string {
  return createHash('sha256')
    .update(`${prev}\n${canonicalJson({ seq, at, prev, event })}`)
    .digest('hex');
}

export function makeAuditEntry(seq: number, at: number, prev: string, event: AuditEvent): AuditEntry {
  return { seq, at, prev, event, hash: auditEntryHash(seq, at, prev, event) };
}

export type AuditVerdict =
  | { readonly ok: true; readonly entries: number; readonly head: string }
  | { readonly ok: false; readonly line: number; readonly reason: string };

/** Verifies every line; with `knownHead`, the chain must also contain that hash (AUD-3). */
export function verifyAuditLines(lines: readonly string[], knownHead?: string): AuditVerdict {
  let prev = AUDIT_GENESIS;
  let sawHead = knownHead === undefined;
  let n = 0;
  for (const [i, raw] of lines.entries()) {
    if (raw === '' && i === lines.length - 1) break;
    const line = i + 1;
    let entry: AuditEntry;
    try {
      entry = JSON.parse(raw) as AuditEntry;
    } catch {
      return { ok: false, line, reason: 'not JSON' };
    }
    if (typeof entry !== 'object' || entry === null) return { ok: false, line, reason: 'not an object' };
    if (entry.seq !== n + 1)
      return { ok: false, line, reason: `sequence ${String(entry.seq)}, expected ${n + 1}` };
    if (entry.prev !== prev) return { ok: false, line, reason: 'prev does not match the previous hash' };
    if (auditEntryHash(entry.seq, entry.at, entry.prev, entry.event) !== entry.hash) {
      return { ok: false, line, reason: 'hash mismatch (entry changed)' };
    }
    if (entry.hash === knownHead) sawHead = true;
    prev = entry.hash;
    n++;
  }
  if (!sawHead)
    return { ok: false, line: n, reason: 'the known head is not in the chain (truncated or rewritten)' };
  return { ok: true, entries: n, head: prev };
}
