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
export {
  HuggingFaceTokenizer,
  HF_TOKENIZER_MAX_LENGTH_CAP,
  type HuggingFaceTokenizerOptions,
} from './embedders/huggingface.tokenizer';
export { disableOnnxTelemetry, loadOnnxRuntime, ORT_TELEMETRY_ENV } from './embedders/onnx-telemetry';
export {
  createOnnxEmbedder,
  isQueryAwareEmbedder,
  queryEmbedderOf,
  POOLED_OUTPUT_NAMES,
  TOKEN_OUTPUT_NAMES,
  type EmbeddingPrompts,
  type OnnxEmbedderOptions,
  type QueryAwareEmbedder,
} from './embedders/onnx.embedder';
export {
  createLocalDirEmbedder,
  createManifestEmbedder,
  hasManifestLayout,
  loadManifestTokenizer,
  type ManifestEmbedderOptions,
} from './embedders/manifest.embedder';
export {
  createUseLiteEmbedder,
  USE_LITE_ID,
  USE_LITE_DIMENSIONS,
  type UseLiteEmbedder,
  type UseLiteEmbedderOptions,
  type UseLiteThread,
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
  chooseProxy,
  bypassesProxy,
  describeProxy,
  parseProxyUrl,
  PROXY_SCHEMES,
  resolveConfiguredProxy,
  type ConfiguredProxy,
  type ProxyChoiceOptions,
  type ProxyRoute,
  type ProxyScheme,
} from './embedders/proxy.policy';
export { type TrustedCa } from './embedders/egress-transport';
export {
  MODEL_MANIFESTS,
  EMBEDDINGGEMMA_QUERY_PROMPT,
  EMBEDDINGGEMMA_DOCUMENT_PROMPT,
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
