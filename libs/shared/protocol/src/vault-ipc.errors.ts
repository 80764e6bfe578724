/** Error codes on the vault IPC wire (IPC-1). Each transport maps domain errors to these in one place. */
export const IPC_ERROR_CODES = [
  'bad_request',
  'frame_too_large',
  'unknown_op',
  'too_many_clients',
  'timeout',
  'not_initialized',
  'already_initialized',
  'locked',
  'bad_password',
  'rate_limited',
  'sudo_required',
  'not_found',
  'conflicted',
  'store_locked',
  'io_failed',
  'intent_failed',
  'corrupt',
  'internal',
  // Retrieval (RAG-*, EGRESS-*).
  'index_limit',
  'stale',
  'egress_refused',
  'model_failed',
  // Capabilities (MCP-*, GRANT-*, CRED-*).
  'unauthorized',
  'forbidden',
  'limit_reached',
  // Centers (CTR-*).
  'center_managed',
  'unsupported_operation',
  'center_unavailable',
  'center_refused',
] as const;

export type IpcErrorCode = (typeof IPC_ERROR_CODES)[number];

/** Stable process exit codes for CLIs, one per wire error (0 = success, 1 = usage, 2 = daemon unreachable). */
export const IPC_EXIT_CODES: Record<IpcErrorCode, number> = {
  bad_request: 3,
  frame_too_large: 3,
  unknown_op: 3,
  too_many_clients: 4,
  timeout: 4,
  not_initialized: 5,
  already_initialized: 6,
  locked: 7,
  bad_password: 8,
  rate_limited: 9,
  sudo_required: 10,
  not_found: 11,
  conflicted: 12,
  store_locked: 13,
  io_failed: 14,
  intent_failed: 14,
  corrupt: 15,
  internal: 16,
  /** RAG-2: a vault's search index would exceed its chunk, text or vector limit. */
  index_limit: 17,
  /** RAG-21/28: the sources changed while the result was computed; it was discarded. */
  stale: 18,
  /** EGRESS-3/4/11: a model endpoint was refused (device-only vault, plain HTTP, redirect). */
  egress_refused: 19,
  /** A model endpoint or embedder failed, or its answer broke RAG-25 (bad or unknown citation). */
  model_failed: 20,
  /** MCP-6 / GRANT-11: the capability is unknown, expired, revoked or suspended by lock. */
  unauthorized: 21,
  /** The capability or surface may not do this (scope, vault, kind: MCP-8, CRED-1). */
  forbidden: 22,
  /** A count limit was reached (GRANT-9 active grants, REQ-9 pending requests). */
  limit_reached: 23,
  /** CTR-1/CTR-4: a Center is configured, so local self-initialisation is refused, or a ticket is needed. */
  center_managed: 24,
  /** CTR-8: the saas Center does not support this operation; nothing ran locally. */
  unsupported_operation: 25,
  /** The Center could not be reached in time (network, timeout, redirect, 5xx); no local fallback. */
  center_unavailable: 26,
  /** The Center answered with an error (its code is in the message): bad ticket, scope, credential. */
  center_refused: 27,
};

export class IpcError extends Error {
  readonly code: IpcErrorCode;

  constructor(code: IpcErrorCode, message: string) {
    super(message);
    this.name = 'IpcError';
    this.code = code;
  }
}

export function isIpcErrorCode(value: unknown): value is IpcErrorCode {
  return typeof value === 'string' && (IPC_ERROR_CODES as readonly string[]).includes(value);
}
