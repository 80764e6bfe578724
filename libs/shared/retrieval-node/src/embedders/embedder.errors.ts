// Typed embedder errors. Messages never carry secrets (API keys, credentials in URLs,
// Authorization headers): callers may log `message` as is.
export const EMBEDDER_ERROR_CODES = [
  'model_missing',
  'model_invalid',
  'checksum_mismatch',
  'manifest_unpinned',
  'egress_refused',
  'invalid_config',
  'http_error',
  'bad_response',
  'timeout',
  'aborted',
  'network_error',
  'closed',
  'inference_failed',
] as const;
export type EmbedderErrorCode = (typeof EMBEDDER_ERROR_CODES)[number];

export class EmbedderError extends Error {
  override readonly name = 'EmbedderError';

  constructor(
    readonly code: EmbedderErrorCode,
    message: string,
    /** HTTP status for `http_error`. */
    readonly status?: number,
  ) {
    super(`${code}: ${message}`);
  }
}

export function isEmbedderError(value: unknown, code?: EmbedderErrorCode): value is EmbedderError {
  return value instanceof EmbedderError && (code === undefined || value.code === code);
}

/** A short reason from a caught value (duck-typed: native/undici errors come from another realm). */
export function reasonOf(e: unknown, max = 300): string {
  const message = typeof e === 'object' && e !== null ? (e as { message?: unknown }).message : undefined;
  return typeof message === 'string' && message !== '' ? message.slice(0, max) : 'unknown error';
}
