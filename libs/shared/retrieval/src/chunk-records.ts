// Stable chunk ids and the ChunkRecords the indexes store (RAG-7, RAG-12).
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, u32be, utf8Encode } from '@arslan/util';
import { type ChunkRecord } from './retrieval.ports';
import { RetrievalError } from './retrieval.errors';
import { type ChunkOptions, chunkText } from './text-chunker';

export const CHUNK_ID_DOMAIN = 'arslan-chunk/v1';

function lp(bytes: Uint8Array): Uint8Array {
  return concatBytes(u32be(bytes.length), bytes);
}

/**
 * Lowercase hex SHA-256 of
 * `lp("arslan-chunk/v1") || lp(utf8 revisionId) || u32be(byteStart) || u32be(byteEnd) || lp(utf8 text)`,
 * where `lp(x) = u32be(len(x)) || x`. The same revision, range and text always give the same id.
 */
export function chunkIdOf(revisionId: string, byteStart: number, byteEnd: number, text: string): string {
  if (
    !Number.isSafeInteger(byteStart) ||
    !Number.isSafeInteger(byteEnd) ||
    byteStart < 0 ||
    byteEnd < byteStart
  ) {
    throw new RetrievalError('invalid_argument', 'chunk byte range must be 0 <= byteStart <= byteEnd');
  }
  if (byteEnd > 0xffffffff) throw new RetrievalError('invalid_argument', 'chunk byte range exceeds 4 GiB');
  const tbs = concatBytes(
    lp(utf8Encode(CHUNK_ID_DOMAIN)),
    lp(utf8Encode(revisionId)),
    u32be(byteStart),
    u32be(byteEnd),
    lp(utf8Encode(text)),
  );
  return bytesToHex(sha256(tbs));
}

export interface ChunkSource {
  vaultId: string;
  assetId: string;
  revisionId: string;
  title: string;
  /** The revision's body text; RAG-3 exclusions happen before this call. */
  body: string;
  /** Safe metadata only (e.g. tags), never secrets (RAG-3). */
  metadata: string;
}

export function buildChunkRecords(source: ChunkSource, options: ChunkOptions = {}): ChunkRecord[] {
  return chunkText(source.body, options).map((chunk) => ({
    chunkId: chunkIdOf(source.revisionId, chunk.byteStart, chunk.byteEnd, chunk.text),
    vaultId: source.vaultId,
    assetId: source.assetId,
    revisionId: source.revisionId,
    title: source.title,
    text: chunk.text,
    metadata: source.metadata,
    byteStart: chunk.byteStart,
    byteEnd: chunk.byteEnd,
    ordinal: chunk.ordinal,
  }));
}
