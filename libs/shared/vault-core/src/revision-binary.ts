// The binary forms of a revision and of its storage row (README.md, "Binary revision and
// revision row"). Every variable-length field is u32be length-prefixed, every other field has
// a fixed width, and parsing is strict: a truncated, over-long or non-canonical record is
// `malformed`. Same fields as the JSON form (revision-json.ts), ~30 % smaller for 4 KiB
// content (no base64url), and encoded without an intermediate string.
import { bytesToHex, hexToBytes, isBytes, utf8Encode } from '@arslan/util';
import { ByteReader, ByteWriter } from './byte-reader';
import {
  CONTENT_NONCE_BYTES,
  ED25519_KEY_BYTES,
  MAX_PARENTS,
  SIGNATURE_BYTES,
  WRAPPED_KEY_BYTES,
  X25519_KEY_BYTES,
} from './format-constants';
import { idBytes } from './input-guards';
import { assertRevisionShape, type RevisionRecord } from './revision';
import { VaultFormatError } from './vault-core.errors';

/** First byte of a binary revision. */
export const REVISION_BINARY_VERSION = 1;
/** First byte of a revision row. */
export const REVISION_ROW_VERSION = 1;

const ID_BYTES = 32;
const KIND_RE = /^[a-z][a-z0-9_-]{0,31}$/;

/** A revision with the index fields its storage row carries (sealed with it, not signed). */
export interface RevisionRowFields {
  vault_id: string;
  /** Unix ms when the storing device wrote the row. */
  created_at: number;
  /** Index title (a tombstone keeps the title it deleted). */
  title: string;
  /** The content's kind, `[a-z][a-z0-9_-]{0,31}` (the service checks it is a known kind). */
  kind: string;
  revision: RevisionRecord;
}

function revisionSize(r: RevisionRecord, assetId: Uint8Array): number {
  let size = 1 + ID_BYTES + 4 + assetId.length + 4 + ID_BYTES * r.parents.length;
  size += ID_BYTES + 1 + 4 + CONTENT_NONCE_BYTES + WRAPPED_KEY_BYTES + 4;
  for (const chunk of r.chunks) size += 4 + chunk.length;
  size += ED25519_KEY_BYTES * 2 + X25519_KEY_BYTES + 8 + SIGNATURE_BYTES + SIGNATURE_BYTES;
  return size;
}

function writeRevision(w: ByteWriter, r: RevisionRecord, assetId: Uint8Array): void {
  w.u8(REVISION_BINARY_VERSION);
  w.raw(hexToBytes(r.id));
  w.lp(assetId);
  w.u32(r.parents.length);
  for (const parent of r.parents) w.raw(hexToBytes(parent));
  w.raw(hexToBytes(r.policy_head));
  w.u8(r.tombstone ? 1 : 0);
  w.u32(r.epoch);
  w.raw(r.content_nonce);
  w.raw(r.wrapped_data_key);
  w.u32(r.chunks.length);
  for (const chunk of r.chunks) w.lp(chunk);
  const c = r.certificate;
  w.raw(c.user_key);
  w.raw(c.device_signing_key);
  w.raw(c.device_exchange_key);
  w.u64(c.created_at);
  w.raw(c.signature);
  w.raw(r.signature);
}

function readRevision(reader: ByteReader): RevisionRecord {
  if (reader.u8('revision version') !== REVISION_BINARY_VERSION)
    throw new VaultFormatError('malformed', 'unknown binary revision version');
  const id = bytesToHex(reader.bytesOf(ID_BYTES, 'id'));
  const assetId = reader.lpText('asset_id');
  const parentCount = reader.u32('parent count');
  if (parentCount > MAX_PARENTS || parentCount * ID_BYTES > reader.remaining)
    throw new VaultFormatError('malformed', 'parent count');
  const parents: string[] = [];
  for (let i = 0; i < parentCount; i++) parents.push(bytesToHex(reader.bytesOf(ID_BYTES, 'parent')));
  const policyHead = bytesToHex(reader.bytesOf(ID_BYTES, 'policy_head'));
  const tombstone = reader.u8('tombstone');
  if (tombstone > 1) throw new VaultFormatError('malformed', 'tombstone must be 0 or 1');
  const epoch = reader.u32('epoch');
  const contentNonce = reader.bytesOf(CONTENT_NONCE_BYTES, 'content_nonce');
  const wrappedDataKey = reader.bytesOf(WRAPPED_KEY_BYTES, 'wrapped_data_key');
  const chunkCount = reader.u32('chunk count');
  // Each chunk takes at least its 4-byte length prefix.
  if (chunkCount * 4 > reader.remaining) throw new VaultFormatError('malformed', 'chunk count');
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < chunkCount; i++) chunks.push(reader.lp('chunk'));
  const record: RevisionRecord = {
    id,
    asset_id: assetId,
    parents,
    policy_head: policyHead,
    tombstone: tombstone === 1,
    epoch,
    content_nonce: contentNonce,
    wrapped_data_key: wrappedDataKey,
    chunks,
    certificate: {
      user_key: reader.bytesOf(ED25519_KEY_BYTES, 'user_key'),
      device_signing_key: reader.bytesOf(ED25519_KEY_BYTES, 'device_signing_key'),
      device_exchange_key: reader.bytesOf(X25519_KEY_BYTES, 'device_exchange_key'),
      created_at: reader.u64('certificate created_at'),
      signature: reader.bytesOf(SIGNATURE_BYTES, 'certificate signature'),
    },
    signature: reader.bytesOf(SIGNATURE_BYTES, 'signature'),
  };
  return assertRevisionShape(record);
}

/** The binary form of a revision (shape-checked first). */
export function revisionToBinary(revision: RevisionRecord): Uint8Array {
  const r = assertRevisionShape(revision);
  const assetId = utf8Encode(r.asset_id);
  const w = new ByteWriter(revisionSize(r, assetId));
  writeRevision(w, r, assetId);
  return w.done();
}

/** Strict parse of revisionToBinary output (exact length, canonical fields, assertRevisionShape). */
export function parseRevisionBinary(bytes: Uint8Array): RevisionRecord {
  if (!isBytes(bytes)) throw new VaultFormatError('malformed', 'binary revision');
  const reader = new ByteReader(bytes);
  const record = readRevision(reader);
  reader.end('binary revision');
  return record;
}

function assertRowFields(row: RevisionRowFields): void {
  if (typeof row !== 'object' || row === null) throw new VaultFormatError('malformed', 'revision row');
  idBytes(row.vault_id, 'vault_id');
  if (typeof row.created_at !== 'number' || !Number.isSafeInteger(row.created_at) || row.created_at < 0)
    throw new VaultFormatError('malformed', 'created_at must be a non-negative safe integer');
  if (typeof row.title !== 'string') throw new VaultFormatError('malformed', 'title must be a string');
  if (typeof row.kind !== 'string' || !KIND_RE.test(row.kind))
    throw new VaultFormatError('malformed', 'kind must match [a-z][a-z0-9_-]{0,31}');
}

/**
 * A revision storage row: u8 version ‖ lp(vault_id) ‖ u64be(created_at) ‖ lp(title) ‖
 * lp(kind) ‖ binary revision.
 */
export function encodeRevisionRow(row: RevisionRowFields): Uint8Array {
  assertRowFields(row);
  const r = assertRevisionShape(row.revision);
  const vaultId = utf8Encode(row.vault_id);
  const title = utf8Encode(row.title);
  const kind = utf8Encode(row.kind);
  const assetId = utf8Encode(r.asset_id);
  const size = 1 + 4 + vaultId.length + 8 + 4 + title.length + 4 + kind.length + revisionSize(r, assetId);
  const w = new ByteWriter(size);
  w.u8(REVISION_ROW_VERSION);
  w.lp(vaultId);
  w.u64(row.created_at);
  w.lp(title);
  w.lp(kind);
  writeRevision(w, r, assetId);
  title.fill(0);
  return w.done();
}

/** Strict parse of encodeRevisionRow output. */
export function decodeRevisionRow(bytes: Uint8Array): RevisionRowFields {
  if (!isBytes(bytes)) throw new VaultFormatError('malformed', 'revision row');
  const reader = new ByteReader(bytes);
  if (reader.u8('row version') !== REVISION_ROW_VERSION)
    throw new VaultFormatError('malformed', 'unknown revision row version');
  const row: RevisionRowFields = {
    vault_id: reader.lpText('vault_id'),
    created_at: reader.u64('created_at'),
    title: reader.lpText('title'),
    kind: reader.lpText('kind'),
    revision: readRevision(reader),
  };
  reader.end('revision row');
  assertRowFields(row);
  return row;
}
