// Public API of @arslan/retrieval (platform:any).
export {
  type MatchMode,
  type ChunkRecord,
  type ParsedQuery,
  type WordSegmenter,
  type ScoredChunk,
  type LexicalIndex,
  type VectorIndex,
  type Embedder,
} from './retrieval.ports';
