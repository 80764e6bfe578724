// The per-vault search cache manager (RAG-1, RAG-2, RAG-4, RAG-6, RAG-28).
import { type ChunkRecord, type LexicalIndex, type VectorIndex, type WordSegmenter } from '@arslan/retrieval';
import { chunkTextBytes, createFtsLexicalIndex, type FtsLexicalIndex } from './fts-lexical-index';
import { RetrievalCacheClosedError, RetrievalLimitError } from './retrieval-errors';
import { createVectorIndex, type InMemoryVectorIndex } from './vector-index';

const MiB = 1024 * 1024;

export interface SearchCacheLimits {
  /** RAG-1: vaults whose indexes are held at once. */
  maxVaults: number;
  /** RAG-2, per vault. */
  maxChunks: number;
  /** RAG-2: UTF-8 bytes of title + text + metadata over all chunks of a vault. */
  maxTextBytes: number;
  /** RAG-2: 4 bytes × dimensions × vectors. */
  maxVectorBytes: number;
}

export const DEFAULT_SEARCH_CACHE_LIMITS: Readonly<SearchCacheLimits> = Object.freeze({
  maxVaults: 2,
  maxChunks: 10_000,
  maxTextBytes: 16 * MiB,
  maxVectorBytes: 32 * MiB,
});

export interface SearchCacheOptions {
  segmenter: WordSegmenter;
  limits?: Partial<SearchCacheLimits>;
}

export interface VaultCacheStats {
  vaultId: string;
  closed: boolean;
  chunks: number;
  textBytes: number;
  /**
   * UTF-8 bytes of the matching words kept per chunk for the reranker and the mode filter; they live within the
   * text limit's room (`textBytes + wordBytes ≤ maxTextBytes`) and are dropped, oldest first, when text needs it.
   */
  wordBytes: number;
  vectors: number;
  vectorBytes: number;
  dimensions: number | undefined;
}

/** A vector index that refuses vectors past the vault's limit and vectors of chunks not in the lexical index. */
export interface VaultVectorIndex extends VectorIndex {
  readonly dimensions: number;
  /** All-or-nothing (RAG-2). Returns how many vectors were stored; vectors of unknown chunks are skipped. */
  addBatch(entries: readonly { chunkId: string; vector: Float32Array }[]): number;
}

/** The indexes of one vault. After lock, invalidation or eviction the handle is dead: reads are empty, writes throw. */
export interface VaultSearchCache {
  readonly vaultId: string;
  /** Adds are all-or-nothing against the chunk and text limits; `removeAsset` also drops the asset's vectors. */
  readonly lexical: LexicalIndex;
  /** The vector index, if one was opened with `vectors(dimensions)`. */
  readonly vector: VaultVectorIndex | undefined;
  /** Opens (or returns) the vector index; other dimensions (a new embedder) replace it, dropping all vectors. */
  vectors(dimensions: number): VaultVectorIndex;
  stats(): VaultCacheStats;
  readonly closed: boolean;
  /** Diagnostics of the in-memory database (RAG-4). */
  database(): ReturnType<FtsLexicalIndex['diagnostics']>;
}

export interface SearchCache {
  /** Opens or returns a vault's cache and marks it most recently used; a vault beyond `maxVaults` evicts the least recently used one. */
  vault(vaultId: string): VaultSearchCache;
  has(vaultId: string): boolean;
  /** Vault ids, least recently used first. */
  openVaults(): string[];
  /** RAG-6: policy, revision or quarantine change: drops the vault's indexes (reopen with `vault`). */
  invalidate(vaultId: string): void;
  /** RAG-6: lock: drops every index and vector and closes every in-memory database. */
  clearAll(): void;
  readonly limits: Readonly<SearchCacheLimits>;
}

export function createSearchCache(options: SearchCacheOptions): SearchCache {
  const limits: Readonly<SearchCacheLimits> = Object.freeze({
    ...DEFAULT_SEARCH_CACHE_LIMITS,
    ...options.limits,
  });
  for (const [name, value] of Object.entries(limits)) {
    if (!(Number.isInteger(value) && value >= 1))
      throw new RangeError(`search cache limit ${name} must be a positive integer`);
  }
  /** Insertion order = recency: the first entry is the least recently used. */
  const open = new Map<string, VaultEntry>();

  function drop(vaultId: string): void {
    const entry = open.get(vaultId);
    if (!entry) return;
    open.delete(vaultId);
    entry.close();
  }

  return {
    limits,
    vault(vaultId) {
      const existing = open.get(vaultId);
      if (existing) {
        open.delete(vaultId);
        open.set(vaultId, existing);
        return existing.handle;
      }
      while (open.size >= limits.maxVaults) {
        const lru = open.keys().next().value as string;
        drop(lru);
      }
      const entry = openVault(vaultId, options.segmenter, limits);
      open.set(vaultId, entry);
      return entry.handle;
    },
    has(vaultId) {
      return open.has(vaultId);
    },
    openVaults() {
      return [...open.keys()];
    },
    invalidate(vaultId) {
      drop(vaultId);
    },
    clearAll() {
      for (const vaultId of [...open.keys()]) drop(vaultId);
    },
  };
}

interface VaultEntry {
  handle: VaultSearchCache;
  close(): void;
}

function openVault(
  vaultId: string,
  segmenter: WordSegmenter,
  limits: Readonly<SearchCacheLimits>,
): VaultEntry {
  // The kept words share the text budget (RAG-2): they never let the vault's text memory exceed the limit.
  const fts = createFtsLexicalIndex({ segmenter, memoryBudgetBytes: limits.maxTextBytes });
  let vec: InMemoryVectorIndex | undefined;
  let vectorHandle: VaultVectorIndex | undefined;
  let closed = false;

  const assertOpen = (): void => {
    if (closed) throw new RetrievalCacheClosedError(vaultId);
  };

  const lexical: LexicalIndex = {
    add(chunks) {
      assertOpen();
      const fresh = new Map<string, ChunkRecord>();
      for (const chunk of chunks) {
        if (chunk.vaultId !== vaultId)
          throw new RangeError(`chunk ${chunk.chunkId} belongs to vault ${chunk.vaultId}, not ${vaultId}`);
        if (!fresh.has(chunk.chunkId) && !fts.has(chunk.chunkId)) fresh.set(chunk.chunkId, chunk);
      }
      const chunkCount = fts.size() + fresh.size;
      if (chunkCount > limits.maxChunks)
        throw new RetrievalLimitError(vaultId, 'chunks', limits.maxChunks, chunkCount);
      let textBytes = fts.textBytes();
      for (const chunk of fresh.values()) textBytes += chunkTextBytes(chunk);
      if (textBytes > limits.maxTextBytes)
        throw new RetrievalLimitError(vaultId, 'text_bytes', limits.maxTextBytes, textBytes);
      fts.add([...fresh.values()]); // one transaction
    },
    removeAsset(assetId) {
      if (closed) return;
      vec?.removeChunks(fts.chunkIdsOfAsset(assetId));
      fts.removeAsset(assetId);
    },
    search(query, limit) {
      return closed ? [] : fts.search(query, limit);
    },
    get(chunkId) {
      return closed ? undefined : fts.get(chunkId);
    },
    words(chunkId) {
      return closed ? undefined : fts.words(chunkId);
    },
    size() {
      return closed ? 0 : fts.size();
    },
    clear() {
      if (closed) return;
      vec?.clear();
      fts.clear();
    },
  };

  function makeVectorHandle(index: InMemoryVectorIndex): VaultVectorIndex {
    const addBatch = (entries: readonly { chunkId: string; vector: Float32Array }[]): number => {
      assertOpen();
      if (vec !== index) throw new RetrievalCacheClosedError(vaultId); // replaced by another embedder's index
      const fresh = new Set<string>();
      for (const { chunkId, vector } of entries) {
        if (vector.length !== index.dimensions) {
          throw new RangeError(`expected a vector of ${index.dimensions} dimensions, got ${vector.length}`);
        }
        if (fts.has(chunkId) && !index.has(chunkId)) fresh.add(chunkId);
      }
      const vectorBytes = (index.size() + fresh.size) * index.dimensions * Float32Array.BYTES_PER_ELEMENT;
      if (vectorBytes > limits.maxVectorBytes) {
        throw new RetrievalLimitError(vaultId, 'vector_bytes', limits.maxVectorBytes, vectorBytes);
      }
      const accepted = entries.filter(({ chunkId }) => fts.has(chunkId));
      // Validate (normalisable) before storing anything, so a bad vector leaves the index unchanged.
      const staged = createVectorIndex({ dimensions: index.dimensions, maxVectors: accepted.length });
      for (const { chunkId, vector } of accepted) staged.add(chunkId, vector);
      for (const { chunkId, vector } of accepted) index.add(chunkId, vector);
      return accepted.length;
    };
    return {
      dimensions: index.dimensions,
      add(chunkId, vector) {
        addBatch([{ chunkId, vector }]);
      },
      addBatch,
      removeChunks(chunkIds) {
        if (!closed && vec === index) index.removeChunks(chunkIds);
      },
      search(query, limit) {
        return closed || vec !== index ? [] : index.search(query, limit);
      },
      size() {
        return closed || vec !== index ? 0 : index.size();
      },
      clear() {
        if (!closed && vec === index) index.clear();
      },
    };
  }

  const handle: VaultSearchCache = {
    vaultId,
    lexical,
    get vector() {
      return closed ? undefined : vectorHandle;
    },
    vectors(dimensions) {
      assertOpen();
      if (vec && vectorHandle && vec.dimensions === dimensions) return vectorHandle;
      vec?.clear();
      const maxVectors = Math.floor(limits.maxVectorBytes / (dimensions * Float32Array.BYTES_PER_ELEMENT));
      if (maxVectors < 1)
        throw new RetrievalLimitError(vaultId, 'vector_bytes', limits.maxVectorBytes, dimensions * 4);
      vec = createVectorIndex({ dimensions, maxVectors });
      vectorHandle = makeVectorHandle(vec);
      return vectorHandle;
    },
    stats() {
      return {
        vaultId,
        closed,
        chunks: lexical.size(),
        textBytes: closed ? 0 : fts.textBytes(),
        wordBytes: closed ? 0 : fts.wordBytes(),
        vectors: closed ? 0 : (vec?.size() ?? 0),
        vectorBytes: closed ? 0 : (vec?.byteLength() ?? 0),
        dimensions: closed ? undefined : vec?.dimensions,
      };
    },
    get closed() {
      return closed;
    },
    database() {
      return fts.diagnostics();
    },
  };

  return {
    handle,
    close() {
      closed = true;
      vec?.clear();
      vec = undefined;
      vectorHandle = undefined;
      fts.close();
    },
  };
}
