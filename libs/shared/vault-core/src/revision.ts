// VAULT-8/9/10, HIST-1, DEV-2: a signed, content-addressed revision record.
import {
  bytesToHex,
  concatBytes,
  constantTimeEqual,
  hexToBytes,
  u32be,
  utf8Encode,
  wipe,
} from '@arslan/util';
import { randomKey } from './aead';
import { cipherProvider } from './cipher-provider';
import { domainTag, lengthPrefixed } from './canonical-encoding';
import { assertChunkShape, decryptContent, encryptContent } from './content-chunks';
import {
  assertCertificateShape,
  type DeviceCertificate,
  encodeDeviceCertificate,
  verifyDeviceCertificate,
} from './device-certificate';
import { unwrapDataKey, wrapDataKey } from './epoch-keys';
import {
  CONTENT_NONCE_BYTES,
  ED25519_KEY_BYTES,
  KEY_BYTES,
  MAX_PARENTS,
  REVISION_SIGNATURE_TAG,
  SIGNATURE_BYTES,
  WRAPPED_KEY_BYTES,
} from './format-constants';
import { assertBytes, assertEpoch, assertHex64, idBytes } from './input-guards';
import { type RandomSource, systemRandom } from './ports';
import { ed25519PublicKey, ed25519Sign, ed25519Verify } from './signing';
import { VaultFormatError } from './vault-core.errors';

export interface RevisionRecord {
  /** Lowercase hex SHA-256 of revisionSignedBytes (HIST-1). */
  id: string;
  asset_id: string;
  /** Parent revision ids, strictly ascending (sorted, no duplicates). */
  parents: string[];
  /** Hash (64 lowercase hex) of the vault's policy head at write time. */
  policy_head: string;
  tombstone: boolean;
  /** Permission epoch whose key wraps the data key (VAULT-8). */
  epoch: number;
  /** 32 random bytes; binds the wrapped data key and every chunk to this revision. */
  content_nonce: Uint8Array;
  /** nonce(24) || XChaCha20-Poly1305(data key) || tag(16) under the epoch key. */
  wrapped_data_key: Uint8Array;
  /** nonce(24) || ciphertext || tag(16) per 256 KiB content chunk (VAULT-9). */
  chunks: Uint8Array[];
  certificate: DeviceCertificate;
  /** Ed25519 by certificate.device_signing_key over revisionSignedBytes (VAULT-10). */
  signature: Uint8Array;
}

export interface RevisionSigner {
  /** The device's Ed25519 seed (secret; the caller owns it). */
  signingSeed: Uint8Array;
  certificate: DeviceCertificate;
}

export interface WriteRevisionInput {
  vaultId: string;
  assetId: string;
  /** Parent ids in any order; stored sorted. Duplicates are malformed. */
  parents: readonly string[];
  policyHead: string;
  tombstone: boolean;
  epoch: number;
  epochKey: Uint8Array;
  /** The serialized content (the caller's serialization). */
  content: Uint8Array;
  signer: RevisionSigner;
}

export interface RevisionKeyContext {
  vaultId: string;
  epochKey: Uint8Array;
}

export interface VerifyRevisionOptions {
  /** DEV-2: the vault policy's device allowlist, asked with the device signing key (hex). */
  isDeviceAllowed: (deviceSigningKeyHex: string, userKeyHex: string) => boolean;
}

function normaliseParents(parents: unknown): string[] {
  if (!Array.isArray(parents) || parents.length > MAX_PARENTS)
    throw new VaultFormatError('malformed', `parents must be an array of at most ${MAX_PARENTS} ids`);
  const sorted = parents.map((p) => assertHex64(p, 'parent')).sort();
  for (let i = 1; i < sorted.length; i++)
    if (sorted[i] === sorted[i - 1]) throw new VaultFormatError('malformed', 'duplicate parent');
  return sorted;
}

/** Types, lengths and canonical parent order of every field; `malformed` otherwise. */
export function assertRevisionShape(value: unknown): RevisionRecord {
  if (typeof value !== 'object' || value === null) throw new VaultFormatError('malformed', 'revision');
  const r = value as RevisionRecord;
  assertHex64(r.id, 'id');
  idBytes(r.asset_id, 'asset_id');
  const sorted = normaliseParents(r.parents);
  if (sorted.some((p, i) => p !== r.parents[i]))
    throw new VaultFormatError('malformed', 'parents must be strictly ascending');
  assertHex64(r.policy_head, 'policy_head');
  if (typeof r.tombstone !== 'boolean')
    throw new VaultFormatError('malformed', 'tombstone must be a boolean');
  assertEpoch(r.epoch);
  assertBytes(r.content_nonce, 'content_nonce', CONTENT_NONCE_BYTES);
  assertBytes(r.wrapped_data_key, 'wrapped_data_key', WRAPPED_KEY_BYTES);
  assertChunkShape(r.chunks);
  assertCertificateShape(r.certificate);
  assertBytes(r.signature, 'signature', SIGNATURE_BYTES);
  return r;
}

/**
 * The canonical signed bytes (VAULT-10): asset id, parents, policy head, tombstone flag,
 * the ciphertext (epoch, content nonce, wrapped data key, chunks) and the certificate.
 * See README.md, "Revision signed bytes".
 */
export function revisionSignedBytes(r: Omit<RevisionRecord, 'id' | 'signature'>): Uint8Array {
  const parts: Uint8Array[] = [
    domainTag(REVISION_SIGNATURE_TAG),
    lengthPrefixed(utf8Encode(r.asset_id)),
    u32be(r.parents.length),
    ...r.parents.map((p) => hexToBytes(p)),
    hexToBytes(r.policy_head),
    Uint8Array.of(r.tombstone ? 1 : 0),
    u32be(r.epoch),
    r.content_nonce,
    r.wrapped_data_key,
    u32be(r.chunks.length),
    ...r.chunks.map((c) => lengthPrefixed(c)),
    encodeDeviceCertificate(r.certificate),
  ];
  return concatBytes(...parts);
}

export function revisionIdOf(signedBytes: Uint8Array): string {
  return bytesToHex(cipherProvider().sha256(signedBytes));
}

/** Encrypts, signs and content-addresses a new revision with a fresh data key (VAULT-8). */
export function writeRevision(
  input: WriteRevisionInput,
  random: RandomSource = systemRandom,
): RevisionRecord {
  if (typeof input !== 'object' || input === null) throw new VaultFormatError('malformed', 'input');
  idBytes(input.vaultId, 'vaultId');
  idBytes(input.assetId, 'assetId');
  const parents = normaliseParents(input.parents);
  const policyHead = assertHex64(input.policyHead, 'policyHead');
  if (typeof input.tombstone !== 'boolean')
    throw new VaultFormatError('malformed', 'tombstone must be a boolean');
  const epoch = assertEpoch(input.epoch);
  assertBytes(input.epochKey, 'epochKey', KEY_BYTES);
  const content = assertBytes(input.content, 'content');
  if (typeof input.signer !== 'object' || input.signer === null)
    throw new VaultFormatError('malformed', 'signer');
  const seed = assertBytes(input.signer.signingSeed, 'signer.signingSeed', ED25519_KEY_BYTES);
  const certificate = input.signer.certificate;
  verifyDeviceCertificate(certificate);
  if (!constantTimeEqual(ed25519PublicKey(seed), certificate.device_signing_key))
    throw new VaultFormatError('bad_certificate', 'signing seed does not match the certificate');

  const contentNonce = random.randomBytes(CONTENT_NONCE_BYTES);
  assertBytes(contentNonce, 'content nonce', CONTENT_NONCE_BYTES);
  const dataKey = randomKey(random);
  try {
    const binding = { vaultId: input.vaultId, epoch, assetId: input.assetId, contentNonce };
    const wrappedDataKey = wrapDataKey(input.epochKey, dataKey, binding, random);
    const chunks = encryptContent(dataKey, content, binding, random);
    const unsigned = {
      asset_id: input.assetId,
      parents,
      policy_head: policyHead,
      tombstone: input.tombstone,
      epoch,
      content_nonce: contentNonce,
      wrapped_data_key: wrappedDataKey,
      chunks,
      certificate,
    };
    const signed = revisionSignedBytes(unsigned);
    return { id: revisionIdOf(signed), ...unsigned, signature: ed25519Sign(seed, signed) };
  } finally {
    wipe(dataKey);
  }
}

/**
 * VAULT-10, DEV-1, DEV-2, HIST-1, in this order: shape (`malformed`), certificate
 * (`bad_certificate`), allowlist (`device_not_allowed`), device signature
 * (`bad_signature`), content address (`id_mismatch`). Returns nothing; throws on failure.
 */
export function verifyRevision(revision: RevisionRecord, options: VerifyRevisionOptions): void {
  const r = assertRevisionShape(revision);
  if (typeof options !== 'object' || options === null || typeof options.isDeviceAllowed !== 'function')
    throw new VaultFormatError('malformed', 'options.isDeviceAllowed must be a function');
  verifyDeviceCertificate(r.certificate);
  const deviceHex = bytesToHex(r.certificate.device_signing_key);
  if (options.isDeviceAllowed(deviceHex, bytesToHex(r.certificate.user_key)) !== true)
    throw new VaultFormatError('device_not_allowed', deviceHex);
  const signed = revisionSignedBytes(r);
  if (!ed25519Verify(r.certificate.device_signing_key, signed, r.signature))
    throw new VaultFormatError('bad_signature');
  if (revisionIdOf(signed) !== r.id) throw new VaultFormatError('id_mismatch');
}

/**
 * Decrypts the content (`tampered` if the wrapped key or any chunk fails). It does not
 * check signatures: call verifyRevision first, or use readRevision.
 */
export function openRevisionContent(revision: RevisionRecord, context: RevisionKeyContext): Uint8Array {
  const r = assertRevisionShape(revision);
  if (typeof context !== 'object' || context === null) throw new VaultFormatError('malformed', 'context');
  const binding = {
    vaultId: context.vaultId,
    epoch: r.epoch,
    assetId: r.asset_id,
    contentNonce: r.content_nonce,
  };
  const dataKey = unwrapDataKey(context.epochKey, r.wrapped_data_key, binding);
  try {
    return decryptContent(dataKey, r.chunks, binding);
  } finally {
    wipe(dataKey);
  }
}

/** verifyRevision, then openRevisionContent: the content of an accepted revision. */
export function readRevision(
  revision: RevisionRecord,
  context: RevisionKeyContext & VerifyRevisionOptions,
): Uint8Array {
  verifyRevision(revision, context);
  return openRevisionContent(revision, context);
}
