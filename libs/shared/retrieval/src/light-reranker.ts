// RAG-15: the default light reranker. It looks at a bounded candidate set only and scores query coverage
// and exact phrase matches higher; the incoming order only breaks ties.
import { fieldMatcher } from './mode-matcher';
import { type ChunkWords, type ParsedQuery, type ScoredChunk, type WordSegmenter } from './retrieval.ports';
import { RetrievalError } from './retrieval.errors';

/** The bounded candidate set: candidates past this position are never looked at. */
export const RERANK_CANDIDATES = 50;
export const PHRASE_BONUS = 0.5;
/** Weight of the incoming position; at most 1/61, below one coverage step (1/32 at MAX_QUERY_TERMS). */
const PRIOR_K = 60;

export interface RerankCandidate {
  chunkId: string;
  text: string;
  title?: string;
  /** The fields' matching words kept by the index (see `ChunkWords`), so the candidate is not segmented again. */
  words?: Pick<ChunkWords, 'text' | 'title'>;
}

export interface RerankOptions {
  limit: number;
  segmenter: WordSegmenter;
  /** Defaults to RERANK_CANDIDATES. */
  maxCandidates?: number;
}

/**
 * `score = coverage + PHRASE_BONUS·phrase + 1/(60 + incoming rank)`, where coverage is the share of distinct
 * query terms present in the title or text, and `phrase` is 1 when a query of two or more terms appears
 * contiguously. Ties keep the incoming order, then the chunk id.
 */
export function lightRerank(
  query: ParsedQuery,
  candidates: readonly RerankCandidate[],
  options: RerankOptions,
): ScoredChunk[] {
  const maxCandidates = options.maxCandidates ?? RERANK_CANDIDATES;
  if (!Number.isSafeInteger(options.limit) || options.limit < 1) {
    throw new RetrievalError('invalid_argument', 'rerank limit must be a positive integer');
  }
  if (!Number.isSafeInteger(maxCandidates) || maxCandidates < 1) {
    throw new RetrievalError('invalid_argument', 'maxCandidates must be a positive integer');
  }
  const distinct = [...new Set(query.terms)];
  const scored = candidates.slice(0, maxCandidates).map((candidate, index) => {
    const words = candidate.words;
    const fields = [fieldMatcher(candidate.text, options.segmenter, words?.text)];
    if (candidate.title !== undefined) {
      fields.push(fieldMatcher(candidate.title, options.segmenter, words?.title));
    }
    const covered = distinct.filter((term) => fields.some((f) => f.hasTerm(term))).length;
    const coverage = distinct.length === 0 ? 0 : covered / distinct.length;
    const phrase = query.terms.length >= 2 && fields.some((f) => f.hasPhrase(query)) ? PHRASE_BONUS : 0;
    return { chunkId: candidate.chunkId, index, score: coverage + phrase + 1 / (PRIOR_K + index + 1) };
  });
  scored.sort(
    (a, b) =>
      b.score - a.score || a.index - b.index || (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0),
  );
  return scored.slice(0, options.limit).map(({ chunkId, score }) => ({ chunkId, score }));
}
