// Typed retrieval errors. Transports map `code` in exactly one place each; the
// message is for logs and never decides anything.
export const RETRIEVAL_ERROR_CODES = [
  'empty_query',
  'query_too_long',
  'invalid_argument',
  'insufficient_evidence',
  'bad_answer',
  'unknown_citation',
  'missing_citation',
] as const;
export type RetrievalErrorCode = (typeof RETRIEVAL_ERROR_CODES)[number];

export class RetrievalError extends Error {
  override readonly name = 'RetrievalError';

  constructor(
    readonly code: RetrievalErrorCode,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

export function isRetrievalError(value: unknown, code?: RetrievalErrorCode): value is RetrievalError {
  return value instanceof RetrievalError && (code === undefined || value.code === code);
}
