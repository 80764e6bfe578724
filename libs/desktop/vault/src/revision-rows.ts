// Storage of signed revisions: one append-only sealed row per revision in the `revisions` table
// (store-schema.ts), found again by a keyed hash of its id. The row also carries what the
// asset index needs (vault, created_at, title, kind), so a write inserts ONE row (plus the
// checkpoint) and the index is rebuilt from the rows after its last snapshot.
import type { AssetKind } from '@arslan/protocol';
import {
  type RevisionJson,
  type RevisionRecord,
  parseRevisionJson,
  revisionToJson,
} from '@arslan/vault-core';
import type { JsonValue } from './canonical-json';
import type { RevisionRowInput } from './vault-store';
import { serviceError } from './vault-service.errors';

export interface RevisionRow {
  vault_id: string;
  /** Unix ms when this device stored it (not signed; sealed with the row). */
  created_at: number;
  /** Index title (a tombstone keeps the title it deleted; sealed, not signed). */
  title: string;
  /** The content's kind (an asset never changes kind; sealed, not signed). */
  kind: AssetKind;
  revision: RevisionJson;
}

export function revisionRowInput(
  vaultId: string,
  createdAt: number,
  title: string,
  kind: AssetKind,
  revision: RevisionRecord,
): RevisionRowInput {
  const row: RevisionRow = {
    vault_id: vaultId,
    created_at: createdAt,
    title,
    kind,
    revision: revisionToJson(revision),
  };
  return { id: revision.id, value: row as unknown as JsonValue };
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
