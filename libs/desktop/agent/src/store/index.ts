export { applyConnectionPragmas, openAgentDb, type AgentDb, type OpenAgentDbOptions } from './agent-db';
export {
  readSchemaVersion,
  runMigrations,
  type MigrateOptions,
  type MigrationReport,
} from './migration-runner';
export { AGENT_MIGRATIONS, type Migration } from './migrations';
export {
  RunRepository,
  UNSETTLED_ACTION_STATES,
  type ActionRow,
  type ActionState,
  type RunMode,
  type RunRow,
  type RunStatus,
  type ToolCallRow,
} from './run.repository';
export { StoreError, type StoreErrorCode } from './store.errors';
export {
  ContextRepository,
  ConversationSettingsError,
  conversationSettingsPatchSchema,
  type ConversationSettingsPatch,
} from './context.repository';
export {
  CheckpointRepository,
  type CheckpointRow,
  type CheckpointStatus,
  type TurnRow,
} from './checkpoint.repository';
export {
  ModelRequestRepository,
  type IncludedItems,
  type IncludedMaterial,
  type ModelRequestInput,
  type ModelRequestOutcome,
  type ModelRequestPurpose,
  type ModelRequestRow,
} from './model-request.repository';
export { ConversationModelRepository } from './conversation-model.repository';
export { ArtifactRepository, type ArtifactRow } from './artifact.repository';
