export {
  type JsonSchema,
  type ToolSpec,
  type ToolCallRequest,
  type TrajectoryItem,
  type Usage,
  type StopReason,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
  type ProviderErrorKind,
  ProviderError,
  type ModelProvider,
  type ModelPrice,
} from './model.port';
export {
  ACTION_KINDS,
  type ActionKind,
  type TurnState,
  type ToolContext,
  type ToolArtifact,
  type ToolResult,
  type ToolSource,
  type ApprovalNeed,
  type Tool,
} from './tool.port';
export { type CardOption, type Surface, type Card, type CardAnswer, type CardOutcome } from './approval.port';
