// AUD-1/2 (local part): a per-device hash chain of audit entries, each signed by the
// device's Ed25519 key. entryHash = SHA-256(prevHash ‖ canonical(entry)); sig = Ed25519(entryHash).
// Pure: the store seals each record (VAULT-2) and keeps the head in the checkpoint.
import { bytesToHex, concatBytes, constantTimeEqual, hexToBytes, utf8Encode } from '@arslan/util';
import { ed25519Sign, ed25519Verify } from '@arslan/vault-core';
import { sha256 } from '@noble/hashes/sha2.js';
import { canonicalJson, type JsonObject } from './canonical-json';

/** `intent`: announced before delivery (VAULT-13); `event`: anything else worth auditing (AUD-5). */
export type AuditEntryType = 'intent' | 'event';

export interface AuditEntry {
  /** 1-based position in the chain. */
  seq: number;
  /** Unix time, ms. */
  at: number;
  type: AuditEntryType;
  kind: string;
  details: JsonObject;
}

export interface AuditRecord {
  entry: AuditEntry;
  /** Hash of the previous record (hex); 64 zeros for the first. */
  prev: string;
  /** SHA-256(prev ‖ canonical(entry)), hex. */
  hash: string;
  /** Ed25519 signature of the 32 hash bytes by the device key, hex. */
  sig: string;
}

export const AUDIT_GENESIS_HASH = '0'.repeat(64);
const KIND_RE = /^[a-z0-9_.:-]{1,64}$/;

export type AuditProblem =
  'malformed' | 'out_of_order' | 'broken_link' | 'modified' | 'bad_signature' | 'checkpoint_mismatch';

export type AuditVerification =
  { ok: true; count: number; head: string } | { ok: false; problem: AuditProblem | 'tampered'; seq: number };

export function isAuditKind(kind: unknown): kind is string {
  return typeof kind === 'string' && KIND_RE.test(kind);
}

export function auditEntryHash(prevHex: string, entry: AuditEntry): Uint8Array {
  return sha256(concatBytes(hexToBytes(prevHex), utf8Encode(canonicalJson(entry))));
}

/** Builds and signs the record that follows `prevHex`. `signingSeed` is the device Ed25519 seed. */
export function signAuditRecord(prevHex: string, entry: AuditEntry, signingSeed: Uint8Array): AuditRecord {
  const hash = auditEntryHash(prevHex, entry);
  return { entry, prev: prevHex, hash: bytesToHex(hash), sig: bytesToHex(ed25519Sign(signingSeed, hash)) };
}

function isRecordShape(value: unknown): value is AuditRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  const e = r['entry'] as Record<string, unknown> | undefined;
  return (
    typeof r['prev'] === 'string' &&
    /^[0-9a-f]{64}$/.test(r['prev']) &&
    typeof r['hash'] === 'string' &&
    /^[0-9a-f]{64}$/.test(r['hash']) &&
    typeof r['sig'] === 'string' &&
    /^[0-9a-f]{128}$/.test(r['sig']) &&
    typeof e === 'object' &&
    e !== null &&
    Number.isSafeInteger(e['seq']) &&
    Number.isSafeInteger(e['at']) &&
    (e['type'] === 'intent' || e['type'] === 'event') &&
    isAuditKind(e['kind']) &&
    typeof e['details'] === 'object' &&
    e['details'] !== null &&
    !Array.isArray(e['details'])
  );
}

/**
 * Walks the chain in storage order and reports the first problem: a reordered or
 * missing entry (`out_of_order`/`broken_link`), a changed entry (`modified`), a
 * foreign signature (`bad_signature`), or a chain shorter than the checkpoint says
 * (`checkpoint_mismatch`: entries removed from the end, or a stale checkpoint; AUD-2).
 */
export function verifyAuditRecords(
  records: readonly unknown[],
  devicePublicKey: Uint8Array,
  expected?: { count: number; head: string },
): AuditVerification {
  let head = AUDIT_GENESIS_HASH;
  for (let i = 0; i < records.length; i++) {
    const record = records[i];
    const seq = i + 1;
    if (!isRecordShape(record)) return { ok: false, problem: 'malformed', seq };
    if (record.entry.seq !== seq) return { ok: false, problem: 'out_of_order', seq };
    if (record.prev !== head) return { ok: false, problem: 'broken_link', seq };
    const hash = auditEntryHash(record.prev, record.entry);
    if (!constantTimeEqual(hash, hexToBytes(record.hash))) return { ok: false, problem: 'modified', seq };
    let signed = false;
    try {
      signed = ed25519Verify(devicePublicKey, hash, hexToBytes(record.sig));
    } catch {
      signed = false;
    }
    if (!signed) return { ok: false, problem: 'bad_signature', seq };
    head = record.hash;
  }
  if (expected && (expected.count !== records.length || expected.head !== head))
    return { ok: false, problem: 'checkpoint_mismatch', seq: Math.min(records.length, expected.count) + 1 };
  return { ok: true, count: records.length, head };
}
