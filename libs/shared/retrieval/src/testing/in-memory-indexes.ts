// Spec-only fakes of the storage ports: a lexical index that scores like BM25 column weights (title 5,
// body 1, metadata 2) over segmented words, a brute-force cosine vector index, and a table embedder.
import { chunkMatchesMode } from '../mode-matcher';
import {
  type ChunkRecord,
  type Embedder,
  type LexicalIndex,
  type ParsedQuery,
  type ScoredChunk,
  type VectorIndex,
  type WordSegmenter,
} from '../retrieval.ports';
import { cosine, normalize } from '../vector-math';

const byScore = (a: ScoredChunk, b: ScoredChunk): number =>
  b.score - a.score || (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0);

export class InMemoryLexicalIndex implements LexicalIndex {
  private readonly chunks = new Map<string, ChunkRecord>();
  readonly queries: ParsedQuery[] = [];

  constructor(private readonly segmenter: WordSegmenter) {}

  add(chunks: readonly ChunkRecord[]): void {
    for (const chunk of chunks) this.chunks.set(chunk.chunkId, chunk);
  }

  removeAsset(assetId: string): void {
    for (const [id, chunk] of this.chunks) if (chunk.assetId === assetId) this.chunks.delete(id);
  }

  search(query: ParsedQuery, limit: number): ScoredChunk[] {
    this.queries.push(query);
    const count = (text: string): number => {
      const words = this.segmenter.segment(text);
      return words.filter((w) => query.terms.includes(w)).length;
    };
    return [...this.chunks.values()]
      .filter((chunk) => chunkMatchesMode(query, chunk, this.segmenter))
      .map((chunk) => ({
        chunkId: chunk.chunkId,
        score: 5 * count(chunk.title) + count(chunk.text) + 2 * count(chunk.metadata),
      }))
      .sort(byScore)
      .slice(0, limit);
  }

  get(chunkId: string): ChunkRecord | undefined {
    return this.chunks.get(chunkId);
  }

  size(): number {
    return this.chunks.size;
  }

  clear(): void {
    this.chunks.clear();
  }
}

export class InMemoryVectorIndex implements VectorIndex {
  private readonly vectors = new Map<string, Float32Array>();

  add(chunkId: string, vector: Float32Array): void {
    this.vectors.set(chunkId, normalize(vector));
  }

  removeChunks(chunkIds: readonly string[]): void {
    for (const id of chunkIds) this.vectors.delete(id);
  }

  search(query: Float32Array, limit: number): ScoredChunk[] {
    return [...this.vectors.entries()]
      .map(([chunkId, v]) => ({ chunkId, score: cosine(query, v) }))
      .sort(byScore)
      .slice(0, limit);
  }

  size(): number {
    return this.vectors.size;
  }

  clear(): void {
    this.vectors.clear();
  }
}

/** Embeds a text as the vector of the first table key it contains (else a fixed "unrelated" vector). */
export class TableEmbedder implements Embedder {
  readonly id = 'test:table';
  readonly local = true;
  readonly calls: string[][] = [];

  constructor(
    readonly dimensions: number,
    private readonly table: ReadonlyMap<string, readonly number[]>,
  ) {}

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    return texts.map((text) => {
      for (const [key, v] of this.table) if (text.includes(key)) return normalize(Float32Array.from(v));
      const fallback = new Float32Array(this.dimensions);
      fallback[this.dimensions - 1] = 1;
      return fallback;
    });
  }

  async close(): Promise<void> {}
}
