export {
  AGENT_DB_FILE,
  createAgentRuntime,
  registryCatalog,
  type AgentRuntime,
  type AgentRuntimeOptions,
} from './agent-runtime';
export {
  ARTIFACTS_DIR_NAME,
  ArtifactStore,
  isActiveContent,
  mediaTypeOf,
  type OpenedArtifact,
} from './artifact-store';
export {
  ConversationModels,
  conversationModelBodySchema,
  type ConversationModelView,
} from './conversation-models';
