// The ONE place where lower-level errors become VaultServiceError (IPC wire codes).
// Messages name the failing step only: never passwords, keys or plaintext.
import type { IpcErrorCode } from '@arslan/protocol';
import { isPolicyError } from '@arslan/policy';
import { isVaultFormatError, type VaultFormatErrorCode } from '@arslan/vault-core';
import { VaultServiceError } from './vault-service.port';
import { isVaultStoreError, type VaultStoreErrorCode } from './vault-store.errors';

const STORE_CODES: Record<VaultStoreErrorCode, IpcErrorCode> = {
  store_exists: 'already_initialized',
  store_missing: 'not_initialized',
  store_locked: 'store_locked',
  unsupported_version: 'corrupt',
  bad_password: 'bad_password',
  locked: 'locked',
  closed: 'locked',
  intent_failed: 'intent_failed',
  commit_failed: 'io_failed',
  corrupt: 'corrupt',
  invalid_argument: 'bad_request',
  io_failed: 'io_failed',
};

const FORMAT_CODES: Partial<Record<VaultFormatErrorCode, IpcErrorCode>> = {
  bad_password: 'bad_password',
  unresolved_heads: 'conflicted',
};

export function serviceError(code: IpcErrorCode, message: string): VaultServiceError {
  return new VaultServiceError(code, message);
}

/**
 * Maps any error to a VaultServiceError. Stored data that fails a format or policy
 * check is `corrupt` (tampered, bad signature, device not allowed, ...).
 */
export function toServiceError(error: unknown, step: string): VaultServiceError {
  if (error instanceof VaultServiceError) return error;
  let code: IpcErrorCode = 'internal';
  let reason = 'unexpected failure';
  if (isVaultStoreError(error)) {
    code = STORE_CODES[error.code];
    reason = error.code;
  } else if (isVaultFormatError(error)) {
    code = FORMAT_CODES[error.code] ?? 'corrupt';
    reason = error.code;
  } else if (isPolicyError(error)) {
    code = 'corrupt';
    reason = `policy ${error.code}`;
  }
  const mapped = new VaultServiceError(code, `${step} failed (${reason})`);
  (mapped as { cause?: unknown }).cause = error;
  return mapped;
}

/** Runs `work`, mapping whatever it throws. */
export function mapErrors<T>(step: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw toServiceError(error, step);
  }
}

export async function mapErrorsAsync<T>(step: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toServiceError(error, step);
  }
}
