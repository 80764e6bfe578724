// Public API of @arslan/vault-ipc: the daemon's local IPC server (platform:node).
export {
  type VaultIpcLimits,
  DEFAULT_VAULT_IPC_LIMITS,
  type VaultIpcServerOptions,
  type VaultIpcServer,
  startVaultIpcServer,
} from './vault-ipc.server';
export { type Clock, systemClock } from './session-policy';
export { type IpcErrorBody, toIpcErrorBody } from './ipc-error.mapper';
export { ensurePrivateDir, removeStaleSocket } from './private-socket';
export { type CenterSeam, type McpTicketBounds, DEVICE_LOCAL_OPS } from './center-seam';
