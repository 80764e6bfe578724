// The search pipeline: lexical (FTS5), vector (cosine) or hybrid (RRF) candidates, the RAG-10 mode filter
// on vector candidates, the light reranker, then citation labels (RAG-12..15, KNOW-01..03).
import { lightRerank, RERANK_CANDIDATES } from './light-reranker';
import { chunkMatchesMode } from './mode-matcher';
import { parseQuery } from './query-parser';
import { reciprocalRankFusion } from './rank-fusion';
import {
  type ChunkRecord,
  type Embedder,
  type LexicalIndex,
  type MatchMode,
  type ParsedQuery,
  type RetrievedChunk,
  type ScoredChunk,
  type SearchKind,
  type VectorIndex,
  type WordSegmenter,
} from './retrieval.ports';
import { RetrievalError } from './retrieval.errors';
import { normalize } from './vector-math';

export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = RERANK_CANDIDATES;
/** Vector hits fetched per candidate slot, so the RAG-10 filter still leaves a full candidate set. */
const VECTOR_OVERFETCH = 4;

export interface RetrieverDeps {
  lexical: LexicalIndex;
  vector?: VectorIndex;
  embedder?: Embedder;
  segmenter: WordSegmenter;
  /** RAG-15 light reranking of the candidate set (default true). */
  rerank?: boolean;
}

export interface SearchRequest {
  query: string;
  mode?: MatchMode;
  /** 1..50, default 10. */
  limit?: number;
  /** Default `hybrid`. */
  kind?: SearchKind;
  signal?: AbortSignal;
}

export interface SearchResult {
  query: ParsedQuery;
  requested: SearchKind;
  /** `lexical` when no embedder or no vectors are present (KNOW-03). */
  used: SearchKind;
  chunks: RetrievedChunk[];
}

/** RAG-12 basic search: one entry per document (asset), its best chunk and how many of its chunks matched. */
export interface DocumentHit {
  assetId: string;
  revisionId: string;
  title: string;
  rank: number;
  score: number;
  best: RetrievedChunk;
  matchingChunks: number;
}

export interface DocumentSearchResult {
  query: ParsedQuery;
  requested: SearchKind;
  used: SearchKind;
  documents: DocumentHit[];
}

export interface Retriever {
  search(request: SearchRequest): Promise<SearchResult>;
  searchDocuments(request: SearchRequest): Promise<DocumentSearchResult>;
}

function label(record: ChunkRecord, score: number, rank: number): RetrievedChunk {
  return { ...record, score, rank, sourceId: `S${rank}`, citation: `[S${rank}]` };
}

export function createRetriever(deps: RetrieverDeps): Retriever {
  const { lexical, vector, embedder, segmenter } = deps;
  const rerank = deps.rerank ?? true;

  async function vectorHits(query: ParsedQuery, signal: AbortSignal | undefined): Promise<ScoredChunk[]> {
    if (vector === undefined || embedder === undefined) return [];
    const vectors = await embedder.embed([query.text], signal);
    signal?.throwIfAborted();
    const first = vectors[0];
    if (vectors.length !== 1 || !(first instanceof Float32Array) || first.length !== embedder.dimensions) {
      throw new RetrievalError('invalid_argument', `embedder ${embedder.id} returned a malformed vector`);
    }
    // RAG-10 filter, best first, stopping at a full candidate set: in `any` mode nearly every hit passes,
    // so ~50 checks instead of 200 (same result as filtering all and keeping the first 50).
    const kept: ScoredChunk[] = [];
    for (const hit of vector.search(normalize(first), RERANK_CANDIDATES * VECTOR_OVERFETCH)) {
      if (kept.length >= RERANK_CANDIDATES) break;
      const record = lexical.get(hit.chunkId);
      if (record !== undefined && chunkMatchesMode(query, record, segmenter, lexical.words?.(hit.chunkId)))
        kept.push(hit);
    }
    return kept;
  }

  /** The candidate set (at most RERANK_CANDIDATES), best first, with records resolved. */
  async function candidates(request: SearchRequest) {
    const requested = request.kind ?? 'hybrid';
    if (requested !== 'lexical' && requested !== 'vector' && requested !== 'hybrid') {
      throw new RetrievalError('invalid_argument', 'unknown search kind');
    }
    const query = parseQuery(request.query, request.mode ?? 'any', segmenter);
    request.signal?.throwIfAborted();
    const vectorsReady = vector !== undefined && embedder !== undefined && vector.size() > 0;
    const used: SearchKind = requested === 'lexical' || !vectorsReady ? 'lexical' : requested;
    // The query embedding starts first: an embedder that runs off this thread (USE-lite's worker, a
    // remote endpoint) works while the synchronous FTS5 query below runs here.
    const pendingSemantic = used === 'lexical' ? undefined : vectorHits(query, request.signal);
    let lexicalHits: ScoredChunk[];
    try {
      // The lexical index applies the mode itself through toFtsMatch (RAG-10, RAG-11).
      lexicalHits = used === 'vector' ? [] : lexical.search(query, RERANK_CANDIDATES);
    } catch (e) {
      pendingSemantic?.catch(() => undefined);
      throw e;
    }
    const semantic = pendingSemantic === undefined ? [] : await pendingSemantic;
    const ranked =
      used === 'lexical'
        ? lexicalHits
        : used === 'vector'
          ? semantic
          : reciprocalRankFusion([lexicalHits, semantic]);
    const resolved: { record: ChunkRecord; score: number }[] = [];
    for (const hit of ranked) {
      if (resolved.length >= RERANK_CANDIDATES) break;
      const record = lexical.get(hit.chunkId);
      if (record !== undefined) resolved.push({ record, score: hit.score });
    }
    return { query, requested, used, resolved };
  }

  function order(query: ParsedQuery, resolved: { record: ChunkRecord; score: number }[], limit: number) {
    if (!rerank) return resolved.slice(0, limit);
    const byId = new Map(resolved.map((r) => [r.record.chunkId, r.record]));
    const reranked = lightRerank(
      query,
      resolved.map(({ record }) => {
        const words = lexical.words?.(record.chunkId);
        return {
          chunkId: record.chunkId,
          text: record.text,
          title: record.title,
          ...(words === undefined ? {} : { words }),
        };
      }),
      { limit, segmenter },
    );
    return reranked.map((hit) => ({ record: byId.get(hit.chunkId) as ChunkRecord, score: hit.score }));
  }

  function checkLimit(limit: number | undefined): number {
    const value = limit ?? DEFAULT_SEARCH_LIMIT;
    if (!Number.isSafeInteger(value) || value < 1 || value > MAX_SEARCH_LIMIT) {
      throw new RetrievalError('invalid_argument', `limit must be an integer in [1, ${MAX_SEARCH_LIMIT}]`);
    }
    return value;
  }

  return {
    async search(request) {
      const limit = checkLimit(request.limit);
      const { query, requested, used, resolved } = await candidates(request);
      const chunks = order(query, resolved, limit).map((r, i) => label(r.record, r.score, i + 1));
      return { query, requested, used, chunks };
    },

    async searchDocuments(request) {
      const limit = checkLimit(request.limit);
      const { query, requested, used, resolved } = await candidates(request);
      const byAsset = new Map<string, { best: { record: ChunkRecord; score: number }; count: number }>();
      for (const entry of order(query, resolved, RERANK_CANDIDATES)) {
        const group = byAsset.get(entry.record.assetId);
        if (group === undefined) byAsset.set(entry.record.assetId, { best: entry, count: 1 });
        else group.count += 1;
      }
      const documents = [...byAsset.values()].slice(0, limit).map(({ best, count }, i) => {
        const chunk = label(best.record, best.score, i + 1);
        return {
          assetId: chunk.assetId,
          revisionId: chunk.revisionId,
          title: chunk.title,
          rank: i + 1,
          score: chunk.score,
          best: chunk,
          matchingChunks: count,
        };
      });
      return { query, requested, used, documents };
    },
  };
}
