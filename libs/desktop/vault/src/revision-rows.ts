// Storage of signed revisions: one append-only sealed row per revision in the `revisions` table
// (store-schema.ts), found again by a keyed hash of its id. The row also carries what the
// asset index needs (vault, created_at, title, kind), so a write inserts ONE row (plus the
// checkpoint) and the index is rebuilt from the rows after its last snapshot. The row is
// vault-core's binary revision row (encodeRevisionRow: length-prefixed fields, ~4.7 KB for a
// 4 KiB body where the JSON/base64url form took ~6.7 KB).
import type { AssetKind } from '@arslan/protocol';
import { wipe } from '@arslan/util';
import {
  type RevisionRecord,
  type RevisionRowFields,
  decodeRevisionRow,
  encodeRevisionRow,
  isVaultFormatError,
} from '@arslan/vault-core';
import type { RevisionRowInput } from './vault-store';
import { serviceError } from './vault-service.errors';

export function revisionRowInput(
  vaultId: string,
  createdAt: number,
  title: string,
  kind: AssetKind,
  revision: RevisionRecord,
): RevisionRowInput {
  return {
    id: revision.id,
    value: encodeRevisionRow({ vault_id: vaultId, created_at: createdAt, title, kind, revision }),
  };
}

/** Decodes an opened row (wiping its plaintext); a row that does not decode is `corrupt`. */
export function decodeStoredRow(plain: Uint8Array): RevisionRowFields {
  try {
    return decodeRevisionRow(plain);
  } catch (error) {
    if (isVaultFormatError(error)) throw serviceError('corrupt', 'revision row shape');
    throw error;
  } finally {
    wipe(plain);
  }
}

/** Parses a stored row and checks it is the revision asked for, in the vault asked for. */
export function parseRevisionRow(
  value: Uint8Array | undefined,
  revisionId: string,
  vaultId: string,
): { createdAt: number; record: RevisionRecord } {
  if (value === undefined) throw serviceError('not_found', 'no such revision');
  const row = decodeStoredRow(value);
  if (row.revision.id !== revisionId) throw serviceError('not_found', 'no such revision');
  if (row.vault_id !== vaultId) throw serviceError('not_found', 'revision belongs to another vault');
  return { createdAt: row.created_at, record: row.revision };
}
