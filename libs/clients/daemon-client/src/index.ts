// Public API of @arslan/daemon-client: IPC-2 framing, the daemon socket path and the typed client (platform:node).
export { encodeFrame, parseFrameJson, FrameDecoder } from './frame-codec';
export { SOCKET_PATH_MAX_BYTES, type SocketPathOptions, daemonSocketPath } from './socket-path';
export {
  DEFAULT_CALL_TIMEOUT_MS,
  DaemonUnavailableError,
  type DaemonClientOptions,
  DaemonClient,
} from './daemon-client';
export { type PlatformInfo, defaultDataDir, defaultConfigFile } from './user-dirs';
