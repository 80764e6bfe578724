// The JSON form of a revision record (storage rows, sync, vectors). Binary ciphertext is
// unpadded base64url, keys and signatures are lowercase hex. Parsing is strict.
import { bytesToHex, fromBase64UrlStrict, hexToBytes, toBase64Url } from '@arslan/util';
import type { DeviceCertificate } from './device-certificate';
import { assertRevisionShape, type RevisionRecord } from './revision';
import { VaultFormatError } from './vault-core.errors';

export interface DeviceCertificateJson {
  user_key: string;
  device_signing_key: string;
  device_exchange_key: string;
  created_at: number;
  signature: string;
}

export interface RevisionJson {
  id: string;
  asset_id: string;
  parents: string[];
  policy_head: string;
  tombstone: boolean;
  epoch: number;
  content_nonce: string;
  wrapped_data_key: string;
  chunks: string[];
  certificate: DeviceCertificateJson;
  signature: string;
}

const REVISION_KEYS = [
  'id',
  'asset_id',
  'parents',
  'policy_head',
  'tombstone',
  'epoch',
  'content_nonce',
  'wrapped_data_key',
  'chunks',
  'certificate',
  'signature',
];
const CERT_KEYS = ['user_key', 'device_signing_key', 'device_exchange_key', 'created_at', 'signature'];

function exactObject(value: unknown, keys: readonly string[], what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new VaultFormatError('malformed', `${what} must be an object`);
  const own = Object.keys(value);
  if (own.length !== keys.length || !keys.every((k) => Object.prototype.hasOwnProperty.call(value, k)))
    throw new VaultFormatError('malformed', `${what} members`);
  return value as Record<string, unknown>;
}

function hex(value: unknown, what: string): Uint8Array {
  try {
    return hexToBytes(value as string);
  } catch {
    throw new VaultFormatError('malformed', `${what} must be lowercase hex`);
  }
}

function b64(value: unknown, what: string): Uint8Array {
  const bytes = typeof value === 'string' ? fromBase64UrlStrict(value) : undefined;
  if (!bytes) throw new VaultFormatError('malformed', `${what} must be canonical base64url`);
  return bytes;
}

export function certificateToJson(c: DeviceCertificate): DeviceCertificateJson {
  return {
    user_key: bytesToHex(c.user_key),
    device_signing_key: bytesToHex(c.device_signing_key),
    device_exchange_key: bytesToHex(c.device_exchange_key),
    created_at: c.created_at,
    signature: bytesToHex(c.signature),
  };
}

export function revisionToJson(revision: RevisionRecord): RevisionJson {
  const r = assertRevisionShape(revision);
  return {
    id: r.id,
    asset_id: r.asset_id,
    parents: [...r.parents],
    policy_head: r.policy_head,
    tombstone: r.tombstone,
    epoch: r.epoch,
    content_nonce: toBase64Url(r.content_nonce),
    wrapped_data_key: toBase64Url(r.wrapped_data_key),
    chunks: r.chunks.map((c) => toBase64Url(c)),
    certificate: certificateToJson(r.certificate),
    signature: bytesToHex(r.signature),
  };
}

/** Strict parse: exact members, canonical encodings, and every assertRevisionShape check. */
export function parseRevisionJson(value: unknown): RevisionRecord {
  const v = exactObject(value, REVISION_KEYS, 'revision');
  const c = exactObject(v['certificate'], CERT_KEYS, 'certificate');
  if (!Array.isArray(v['chunks'])) throw new VaultFormatError('malformed', 'chunks must be an array');
  if (!Array.isArray(v['parents'])) throw new VaultFormatError('malformed', 'parents must be an array');
  const record = {
    id: v['id'],
    asset_id: v['asset_id'],
    parents: [...(v['parents'] as unknown[])],
    policy_head: v['policy_head'],
    tombstone: v['tombstone'],
    epoch: v['epoch'],
    content_nonce: b64(v['content_nonce'], 'content_nonce'),
    wrapped_data_key: b64(v['wrapped_data_key'], 'wrapped_data_key'),
    chunks: (v['chunks'] as unknown[]).map((chunk) => b64(chunk, 'chunk')),
    certificate: {
      user_key: hex(c['user_key'], 'user_key'),
      device_signing_key: hex(c['device_signing_key'], 'device_signing_key'),
      device_exchange_key: hex(c['device_exchange_key'], 'device_exchange_key'),
      created_at: c['created_at'],
      signature: hex(c['signature'], 'certificate signature'),
    },
    signature: hex(v['signature'], 'signature'),
  };
  return assertRevisionShape(record);
}
