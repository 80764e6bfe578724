// The one place where retrieval, embedder and cache errors become IPC errors for RAG ops.
import { IpcError } from '@arslan/protocol';
import { isRetrievalError } from '@arslan/retrieval';
import { RetrievalCacheClosedError, RetrievalLimitError, isEmbedderError } from '@arslan/retrieval-node';

/** Raised by the re-checks (RAG-21, RAG-28): the result was discarded. */
export function lockedError(): IpcError {
  return new IpcError('locked', 'the vault was locked; the result was discarded');
}

export function staleError(): IpcError {
  return new IpcError('stale', 'the vault changed while the result was computed; it was discarded, retry');
}

/** `lockedNow` tells whether a lock happened meanwhile (then aborts and closed caches are `locked`). */
export function toRagIpcError(error: unknown, lockedNow: boolean): unknown {
  if (error instanceof IpcError) return error;
  if ((error as { name?: unknown } | null)?.name === 'VaultServiceError') return error;
  if (error instanceof RetrievalLimitError) return new IpcError('index_limit', error.message);
  if (error instanceof RetrievalCacheClosedError) return lockedNow ? lockedError() : staleError();
  if (isAbort(error)) return lockedNow ? lockedError() : staleError();
  if (isRetrievalError(error)) {
    switch (error.code) {
      case 'empty_query':
      case 'query_too_long':
      case 'invalid_argument':
        return new IpcError('bad_request', error.message);
      case 'bad_answer':
      case 'unknown_citation':
      case 'missing_citation':
        return new IpcError('model_failed', `the model's answer was rejected (${error.code})`);
      default:
        return new IpcError('internal', error.message);
    }
  }
  if (isEmbedderError(error)) {
    if (error.code === 'egress_refused') return new IpcError('egress_refused', error.message);
    if (error.code === 'aborted') return lockedNow ? lockedError() : staleError();
    return new IpcError('model_failed', error.message);
  }
  return error;
}

function isAbort(error: unknown): boolean {
  return (error as { name?: unknown } | null)?.name === 'AbortError';
}
