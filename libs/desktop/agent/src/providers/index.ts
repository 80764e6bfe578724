// Public API of the model providers (PROV-*): three streaming adapters behind ModelProvider,
// PROV-08 flattened-history fallback, PROV-09 parameter memory, PROV-10 schema sanitizing, PROV-12/13 prices and context windows.
// The scripted fake server lives in ./testing and is for specs only (not exported here).
export { AnthropicProvider, ANTHROPIC_VERSION, renderAnthropicMessages } from './anthropic.provider';
export { createModelProvider, DEFAULT_BASE_URLS, PROVIDER_KINDS, type ProviderKind } from './create-provider';
export { GeminiProvider, GEMINI_SYNTHETIC_ID_PREFIX, renderGeminiContents } from './gemini.provider';
export { detectRejectedHistory, flattenTrajectory, hasToolHistory } from './history-fallback';
export { OpenAiCompatibleProvider, renderOpenAiMessages } from './openai-compatible.provider';
export {
  contextWindowOf,
  costUsd,
  MODEL_TABLE,
  modelInfo,
  normalizeModelName,
  PRICE_TABLE_DATE,
  priceOf,
  type ModelInfo,
} from './pricing';
export { processParamMemory, RejectedParamMemory, type ParamDecision } from './rejected-params';
export { sanitizeToolSchema, toolSchemaFor, type SchemaTarget } from './schema-sanitize';
export { SseParser, type SseEvent } from './sse';
export {
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_TOTAL_TIMEOUT_MS,
  StreamingProvider,
  type ProviderOptions,
} from './streaming-provider';
export {
  MODEL_ROLES,
  ModelCatalog,
  UnknownModelError,
  type ConfiguredModel,
  type ModelListing,
  type ModelRole,
  type ProviderFactory,
  type ResolvedModel,
} from './model-catalog';
