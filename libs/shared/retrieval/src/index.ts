// Public API of @arslan/retrieval (platform:any).
export {
  type MatchMode,
  type ChunkRecord,
  type ParsedQuery,
  type WordSegmenter,
  type ScoredChunk,
  type LexicalIndex,
  type ChunkWords,
  type VectorIndex,
  type Embedder,
  type SearchKind,
  type RetrievedChunk,
  type ChatMessage,
  type ChatModel,
} from './retrieval.ports';
export {
  RETRIEVAL_ERROR_CODES,
  RetrievalError,
  isRetrievalError,
  type RetrievalErrorCode,
} from './retrieval.errors';
export {
  DEFAULT_MAX_CHARS,
  DEFAULT_OVERLAP,
  chunkText,
  type ChunkOptions,
  type TextChunk,
} from './text-chunker';
export { CHUNK_ID_DOMAIN, chunkIdOf, buildChunkRecords, type ChunkSource } from './chunk-records';
export {
  intlWordSegmenter,
  composeSegmenter,
  scriptRuns,
  type ComposeSegmenterOptions,
  type ScriptRun,
  type ScriptRunKind,
} from './word-segmenter';
export {
  MATCH_MODES,
  MAX_QUERY_CHARS,
  MAX_QUERY_TERMS,
  isMatchMode,
  parseQuery,
  ftsQuote,
  toFtsMatch,
} from './query-parser';
export { matchesMode, chunkMatchesMode } from './mode-matcher';
export { foldForMatch } from './unicode-text';
export { normalize, cosine } from './vector-math';
export { RRF_K, reciprocalRankFusion } from './rank-fusion';
export {
  RERANK_CANDIDATES,
  PHRASE_BONUS,
  lightRerank,
  type RerankCandidate,
  type RerankOptions,
} from './light-reranker';
export {
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  createRetriever,
  type Retriever,
  type RetrieverDeps,
  type SearchRequest,
  type SearchResult,
  type DocumentHit,
  type DocumentSearchResult,
} from './hybrid-retriever';
export {
  DEFAULT_MAX_SOURCES,
  prepareAsk,
  neutralizeMarkers,
  type AskOptions,
  type AskSource,
  type PreparedAsk,
} from './ask-prompt';
export { MAX_ANSWER_CHARS, parseAnswer, type ParsedAnswer } from './answer-parser';
export { runAsk, type AskResult } from './ask-flow';
