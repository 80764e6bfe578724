// Storage of signed revisions: one insert-only sealed row per revision, purpose
// `rev.<first 60 hex of the revision id>` (sealed-value purposes are at most 64 chars;
// the full id is inside and checked on read).
import {
  type RevisionJson,
  type RevisionRecord,
  parseRevisionJson,
  revisionToJson,
} from '@arslan/vault-core';
import type { JsonValue } from './canonical-json';
import type { SealedRowInput } from './vault-store';
import { serviceError } from './vault-service.errors';

export interface RevisionRow {
  vault_id: string;
  /** Unix ms when this device stored it (not signed; sealed with the row). */
  created_at: number;
  revision: RevisionJson;
}

export function revisionPurpose(revisionId: string): string {
  return `rev.${revisionId.slice(0, 60)}`;
}

export function revisionRowInput(
  vaultId: string,
  createdAt: number,
  revision: RevisionRecord,
): SealedRowInput {
  const row: RevisionRow = { vault_id: vaultId, created_at: createdAt, revision: revisionToJson(revision) };
  return { purpose: revisionPurpose(revision.id), value: row as unknown as JsonValue };
}

/** Parses a stored row and checks it is the revision asked for, in the vault asked for. */
export function parseRevisionRow(
  value: JsonValue | undefined,
  revisionId: string,
  vaultId: string,
): { createdAt: number; record: RevisionRecord } {
  if (value === undefined) throw serviceError('not_found', 'no such revision');
  const row = value as unknown as Partial<RevisionRow>;
  if (typeof row !== 'object' || row === null || !Number.isSafeInteger(row.created_at))
    throw serviceError('corrupt', 'revision row shape');
  const record = parseRevisionJson(row.revision);
  if (record.id !== revisionId) throw serviceError('not_found', 'no such revision');
  if (row.vault_id !== vaultId) throw serviceError('not_found', 'revision belongs to another vault');
  return { createdAt: row.created_at as number, record };
}
