// The one place where errors become IPC error bodies. VaultServiceError and IpcError carry a
// wire code and a message that never contains secrets; anything else is `internal` with a
// generic message (local details never cross the wire).
import { IpcError, type IpcErrorCode, isIpcErrorCode } from '@arslan/protocol';

export interface IpcErrorBody {
  code: IpcErrorCode;
  message: string;
}

/** Duck-typed so the IPC layer does not load the store implementation to map its errors. */
function isVaultServiceError(error: unknown): error is Error & { code: IpcErrorCode } {
  return (
    error instanceof Error &&
    error.name === 'VaultServiceError' &&
    isIpcErrorCode((error as { code?: unknown }).code)
  );
}

export function toIpcErrorBody(error: unknown): IpcErrorBody {
  if (error instanceof IpcError || isVaultServiceError(error))
    return { code: error.code, message: error.message };
  return { code: 'internal', message: 'internal error' };
}
