// Public API of @arslan/vault-rag: retrieval over the local vault for the daemon (platform:node).
export { type RagService, type RagServiceOptions, type RagVault, createRagService } from './rag-service';
export {
  type RagServiceConfig,
  type RemoteEmbedderConfig,
  type GenerationConfig,
  DEFAULT_RAG_CONFIG,
  ragConfigFromToml,
} from './rag-config';
export { type OpenAiChatModelOptions, type RagChatModel, createOpenAiChatModel } from './openai-chat.model';
