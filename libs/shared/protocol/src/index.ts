// Public API of @arslan/protocol: wire schemas shared by every client surface.
export {
  IPC_VERSION,
  MAX_FRAME_BYTES,
  MAX_IPC_CLIENTS,
  FRAME_DEADLINE_MS,
  IDLE_CONNECTION_MS,
  UNLOCK_IDLE_MS,
  SUDO_MAX_MS,
  SUDO_IDLE_MS,
  MAX_PASSWORD_CHARS,
  MAX_TITLE_CHARS,
  MAX_BODY_BYTES,
  MAX_IMPORT_ITEMS,
} from './vault-ipc.limits';
export {
  IPC_ERROR_CODES,
  type IpcErrorCode,
  IPC_EXIT_CODES,
  IpcError,
  isIpcErrorCode,
} from './vault-ipc.errors';
export {
  vaultOpArgs,
  type VaultOp,
  VAULT_OPS,
  type VaultOpArgs,
  requestWrapperSchema,
  type VaultRequest,
  responseWrapperSchema,
  type VaultResponse,
} from './vault-ipc.schema';
export { parseVaultRequest, requestIdOf } from './vault-ipc.parse';
export {
  type VaultSummary,
  type StatusResult,
  type AssetSummary,
  type ReadResult,
  type HistoryEntry,
  type VaultOpResults,
  type RetrievedChunk,
  type SearchHit,
  type RagStatusResult,
} from './vault-ipc.results';
export {
  RAG_EMBEDDERS,
  type RagEmbedderKind,
  ragConfigSchema,
  arslanConfigSchema,
  type ArslanConfig,
  type RagConfigToml,
  type ConfigParseResult,
  parseArslanConfig,
} from './arslan-config';
