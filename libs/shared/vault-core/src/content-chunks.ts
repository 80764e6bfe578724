// VAULT-9: content is split into 256 KiB chunks, each sealed separately with the
// revision's data key. The AAD carries the position and the total count, so reordering,
// dropping, duplicating or appending chunks fails. Empty content is one empty chunk.
import { concatBytes } from '@arslan/util';
import { aeadOpen, aeadSeal } from './aead';
import { CHUNK_SIZE, CONTENT_NONCE_BYTES, KEY_BYTES, SEALED_OVERHEAD_BYTES } from './format-constants';
import { assertBytes, idBytes } from './input-guards';
import { chunkAad } from './key-binding';
import { type RandomSource, systemRandom } from './ports';
import { VaultFormatError } from './vault-core.errors';

export interface ChunkBinding {
  vaultId: string;
  assetId: string;
  /** The revision's CONTENT_NONCE_BYTES random content nonce. */
  contentNonce: Uint8Array;
}

interface BoundIds {
  vault: Uint8Array;
  asset: Uint8Array;
  nonce: Uint8Array;
}

function bind(binding: ChunkBinding): BoundIds {
  if (typeof binding !== 'object' || binding === null)
    throw new VaultFormatError('malformed', 'binding must be an object');
  return {
    vault: idBytes(binding.vaultId, 'vaultId'),
    asset: idBytes(binding.assetId, 'assetId'),
    nonce: assertBytes(binding.contentNonce, 'contentNonce', CONTENT_NONCE_BYTES),
  };
}

export function chunkCount(contentBytes: number): number {
  return Math.max(1, Math.ceil(contentBytes / CHUNK_SIZE));
}

export function encryptContent(
  dataKey: Uint8Array,
  content: Uint8Array,
  binding: ChunkBinding,
  random: RandomSource = systemRandom,
): Uint8Array[] {
  assertBytes(dataKey, 'dataKey', KEY_BYTES);
  assertBytes(content, 'content');
  const ids = bind(binding);
  const count = chunkCount(content.length);
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const piece = content.subarray(i * CHUNK_SIZE, (i + 1) * CHUNK_SIZE);
    chunks.push(aeadSeal(dataKey, piece, chunkAad(ids.vault, ids.asset, ids.nonce, i, count), random));
  }
  return chunks;
}

/**
 * Shape check without keys: at least one chunk, each between the AEAD overhead and
 * one full sealed chunk. Positions and count are proven by the AEAD, not here.
 */
export function assertChunkShape(chunks: unknown): Uint8Array[] {
  if (!Array.isArray(chunks) || chunks.length === 0)
    throw new VaultFormatError('malformed', 'chunks must be a non-empty array');
  if (chunks.length > 0xffffffff) throw new VaultFormatError('malformed', 'too many chunks');
  for (const chunk of chunks) {
    const c = assertBytes(chunk, 'chunk');
    if (c.length < SEALED_OVERHEAD_BYTES || c.length > CHUNK_SIZE + SEALED_OVERHEAD_BYTES)
      throw new VaultFormatError('malformed', 'chunk length out of range');
  }
  return chunks as Uint8Array[];
}

/** The content, or `tampered` if any chunk fails; `malformed` for a non-canonical split. */
export function decryptContent(
  dataKey: Uint8Array,
  chunks: readonly Uint8Array[],
  binding: ChunkBinding,
): Uint8Array {
  assertBytes(dataKey, 'dataKey', KEY_BYTES);
  const ids = bind(binding);
  const sealed = assertChunkShape(chunks);
  const count = sealed.length;
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const piece = aeadOpen(
      dataKey,
      sealed[i] as Uint8Array,
      chunkAad(ids.vault, ids.asset, ids.nonce, i, count),
    );
    if (!piece) throw new VaultFormatError('tampered', `chunk ${i} of ${count}`);
    const last = i === count - 1;
    if ((!last && piece.length !== CHUNK_SIZE) || (last && count > 1 && piece.length === 0))
      throw new VaultFormatError('malformed', 'content is not split into full 256 KiB chunks');
    pieces.push(piece);
  }
  return concatBytes(...pieces);
}
