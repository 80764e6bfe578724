// Public API of @arslan/local-api: the daemon's loopback HTTP + WebSocket server over a RunService.
export {
  DEFAULT_MAX_BODY_BYTES,
  LOOPBACK,
  PREFERRED_PORT,
  startLocalApi,
  type ApiErrorCode,
  type LocalApi,
  type LocalApiDefaults,
  type LocalApiOptions,
  type StreamFrame,
  type JobFrame,
} from './local-api.server';
export {
  TOKEN_FILE_NAME,
  WS_PROTOCOL,
  WS_TOKEN_PROTOCOL_PREFIX,
  checkHostAndOrigin,
  newToken,
  tokenMatches,
} from './local-api.auth';
export {
  SURFACES,
  cardAnswerBodySchema,
  sendMessageBodySchema,
  startRunBodySchema,
} from './local-api.schemas';
export {
  UNDO_ACTIONS,
  routeUndo,
  undoTurnBodySchema,
  type UndoApiErrorCode,
  type UndoRouteContext,
} from './local-api.undo';
export {
  routeConversationSettings,
  routeRunRequests,
  type DataFlowApiErrorCode,
  type DataFlowRouteContext,
} from './local-api.data-flow';
export {
  routeConversationModel,
  routeModels,
  type ModelsApiErrorCode,
  type ModelsRouteContext,
} from './local-api.models';
export {
  attachmentDisposition,
  matchArtifactDownload,
  routeRunArtifacts,
  sendArtifact,
  type ArtifactsApiErrorCode,
  type ArtifactsRouteContext,
} from './local-api.artifacts';
export {
  cancelJobBodySchema,
  createJobBodySchema,
  routeJobs,
  type JobsApiErrorCode,
  type JobsRouteContext,
} from './local-api.jobs';
