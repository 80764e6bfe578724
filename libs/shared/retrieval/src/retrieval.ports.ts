// The ports of the retrieval domain (RAG-*, KNOW-*). Storage (FTS5, vector cache) and
// embedders live in platform-specific libs (@arslan/retrieval-node) behind these shapes.

/** RAG-10: `any` = at least one keyword, `all` = every term, `phrase` = the original phrase. */
export type MatchMode = 'any' | 'all' | 'phrase';

/** One indexed chunk of one revision (RAG-7, RAG-12). Offsets are UTF-8 byte offsets into the original body. */
export interface ChunkRecord {
  /** Stable chunk hash: lowercase hex SHA-256 over (revision id, byte range, text). */
  chunkId: string;
  vaultId: string;
  assetId: string;
  revisionId: string;
  title: string;
  /** The chunk's text exactly as it appears in the body (never segmented). */
  text: string;
  /** Safe metadata only (e.g. tags); never secrets or credentials (RAG-3). */
  metadata: string;
  byteStart: number;
  byteEnd: number;
  /** Position of the chunk in its revision, from 0. */
  ordinal: number;
}

/** A query after parsing: terms are already segmented words (RAG-8), never raw FTS syntax (RAG-11). */
export interface ParsedQuery {
  text: string;
  mode: MatchMode;
  terms: string[];
}

/** Splits text into words for indexing and for queries (Intl.Segmenter, Jieba for Chinese). */
export interface WordSegmenter {
  segment(text: string): string[];
}

export interface ScoredChunk {
  chunkId: string;
  /** Higher is better (BM25 negated, or cosine similarity). */
  score: number;
}

/**
 * The matching words of a chunk's fields (its segmenter words, each passed through `foldForMatch`: NFKC,
 * lowercase, Latin diacritics removed), computed once when the chunk is indexed so the RAG-10 mode filter and the RAG-15
 * reranker need not segment candidates again on every query.
 */
export interface ChunkWords {
  title: readonly string[];
  text: readonly string[];
  metadata: readonly string[];
}

/** A per-vault lexical index (FTS5/BM25 with title 5, body 1, metadata 2 — RAG-9). */
export interface LexicalIndex {
  add(chunks: readonly ChunkRecord[]): void;
  removeAsset(assetId: string): void;
  search(query: ParsedQuery, limit: number): ScoredChunk[];
  get(chunkId: string): ChunkRecord | undefined;
  /**
   * Optional: the chunk's matching words, if the index kept them (it may keep none, or only some, e.g. within a
   * memory budget). They MUST equal `segmenter.segment(field).map(foldForMatch)` with the retriever's segmenter; `undefined` makes
   * the caller segment the chunk itself.
   */
  words?(chunkId: string): ChunkWords | undefined;
  size(): number;
  clear(): void;
}

/** A per-vault vector index of normalised Float32 vectors, cosine similarity (RAG-13). */
export interface VectorIndex {
  add(chunkId: string, vector: Float32Array): void;
  removeChunks(chunkIds: readonly string[]): void;
  search(query: Float32Array, limit: number): ScoredChunk[];
  size(): number;
  clear(): void;
}

/** Turns texts into vectors; local (ONNX, USE-lite) or remote (OpenAI-compatible, EGRESS-*). */
export interface Embedder {
  /** e.g. `onnx:embeddinggemma-300m-q4`, `tfjs:use-lite-en`, `remote:<host>/<model>`. */
  readonly id: string;
  readonly dimensions: number;
  /** true when inference runs in-process or on a loopback endpoint (EGRESS-11). */
  readonly local: boolean;
  /** Vectors are returned L2-normalised, one per input, in order. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/** How `search` ranks: FTS5 only, vectors only, or both fused by RRF (RAG-14, KNOW-01..03). */
export type SearchKind = 'lexical' | 'vector' | 'hybrid';

/** One retrieved chunk as returned by `memory_retrieve` / `rag search` (RAG-12). */
export interface RetrievedChunk extends ChunkRecord {
  /** Final score of the stage that ordered the list (higher is better; only comparable within one list). */
  score: number;
  /** 1-based position in the result list. */
  rank: number;
  /** Source id used by the answer flow: `S1`, `S2`, ... */
  sourceId: string;
  /** Citation label shown to users and the model: `[S1]`, `[S2]`, ... */
  citation: string;
}

/** One message sent to a chat model. The model gets no tools (RAG-24). */
export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

/** A generation endpoint (local or remote, EGRESS-*), implemented by the caller. */
export interface ChatModel {
  /** Returns the raw completion text; the answer flow parses it strictly (RAG-25). */
  complete(messages: readonly ChatMessage[], options: { signal?: AbortSignal }): Promise<string>;
}
