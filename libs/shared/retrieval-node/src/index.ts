// Public API of @arslan/retrieval-node (platform:node): FTS5 and vector storage, Jieba, the search cache.
export { createJiebaSegmenter, type JiebaMode, type JiebaSegmenterOptions } from './lib/jieba-segmenter';
export { ftsMatchOf, ftsString, usableTerms } from './lib/fts-match';
export {
  createFtsLexicalIndex,
  chunkTextBytes,
  BM25_WEIGHTS,
  TRIGRAM_MIN_CHARS,
  type FtsLexicalIndex,
  type FtsLexicalIndexOptions,
  type FtsLexicalIndexDiagnostics,
} from './lib/fts-lexical-index';
export {
  createVectorIndex,
  normalised,
  type InMemoryVectorIndex,
  type VectorIndexOptions,
} from './lib/vector-index';
export {
  createSearchCache,
  DEFAULT_SEARCH_CACHE_LIMITS,
  type SearchCache,
  type SearchCacheLimits,
  type SearchCacheOptions,
  type VaultSearchCache,
  type VaultVectorIndex,
  type VaultCacheStats,
} from './lib/search-cache';
export {
  RetrievalLimitError,
  RetrievalCacheClosedError,
  type RetrievalLimitKind,
} from './lib/retrieval-errors';
export {
  eligibleForIndex,
  indexExclusionReason,
  type IndexAssetKind,
  type IndexCandidate,
  type IndexExclusionReason,
} from './lib/index-eligibility';
// Embedders (RAG-16..18, EGRESS-3..9): ONNX, USE-lite, remote OpenAI-compatible, model install.
export {
  EmbedderError,
  isEmbedderError,
  EMBEDDER_ERROR_CODES,
  type EmbedderErrorCode,
} from './embedders/embedder.errors';
export { l2Normalise, maskedMeanPool, cosineSimilarity } from './embedders/vector-math';
export { type Tokenizer, type EncodedText } from './embedders/tokenizer.port';
export { WordPieceTokenizer, type WordPieceOptions } from './embedders/wordpiece.tokenizer';
export { disableOnnxTelemetry, loadOnnxRuntime, ORT_TELEMETRY_ENV } from './embedders/onnx-telemetry';
export {
  createOnnxEmbedder,
  POOLED_OUTPUT_NAMES,
  TOKEN_OUTPUT_NAMES,
  type OnnxEmbedderOptions,
} from './embedders/onnx.embedder';
export {
  createUseLiteEmbedder,
  USE_LITE_ID,
  USE_LITE_DIMENSIONS,
  type UseLiteEmbedder,
  type UseLiteEmbedderOptions,
} from './embedders/use-lite.embedder';
export {
  createRemoteEmbedder,
  RETRYABLE_STATUSES,
  type RemoteEmbedder,
  type RemoteEmbedderOptions,
} from './embedders/remote.embedder';
export {
  createEgressJsonClient,
  type EgressJsonClient,
  type EgressJsonClientOptions,
} from './embedders/egress-json-client';
export { checkEndpointUrl, isLoopbackHostname, type CheckedEndpoint } from './embedders/endpoint-url.policy';
export {
  MODEL_MANIFESTS,
  modelManifestSchema,
  type ModelManifest,
  type ModelFileEntry,
} from './embedders/model.manifests';
export {
  installModel,
  sha256File,
  type InstallModelOptions,
  type InstallModelResult,
  type ModelSource,
} from './embedders/model-install';
