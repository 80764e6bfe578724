// Typed errors of the vault storage layer. Transports map `code`, never `message`.
// Messages and details never carry passwords, keys or plaintext.
import { isVaultFormatError } from '@arslan/vault-core';

/** Every error code this lib throws (README.md, "Errors"). */
export const VAULT_STORE_ERROR_CODES = [
  'store_exists',
  'store_missing',
  'store_locked',
  'unsupported_version',
  'bad_password',
  'locked',
  'closed',
  'intent_failed',
  'commit_failed',
  'corrupt',
  'invalid_argument',
  'io_failed',
] as const;

export type VaultStoreErrorCode = (typeof VAULT_STORE_ERROR_CODES)[number];

const MESSAGES: Record<VaultStoreErrorCode, string> = {
  store_exists: 'a vault store already exists at the target path',
  store_missing: 'no vault store in this data directory',
  store_locked: 'another writer holds the data directory lock',
  unsupported_version: 'vault store format version is not supported (only version 1)',
  bad_password: 'wrong password or damaged keyring header',
  locked: 'the vault is locked',
  closed: 'the vault store is closed',
  intent_failed: 'the intent could not be committed; nothing was delivered',
  commit_failed: 'the commit failed; the state is unchanged',
  corrupt: 'the vault store is corrupt or was tampered with',
  invalid_argument: 'invalid argument',
  io_failed: 'file system operation failed',
};

export class VaultStoreError extends Error {
  readonly code: VaultStoreErrorCode;
  readonly detail: string | undefined;

  constructor(code: VaultStoreErrorCode, detail?: string, options?: { cause?: unknown }) {
    super(detail ? `${MESSAGES[code]}: ${detail}` : MESSAGES[code], options);
    this.name = 'VaultStoreError';
    this.code = code;
    this.detail = detail;
  }
}

export function isVaultStoreError(error: unknown): error is VaultStoreError {
  return error instanceof VaultStoreError;
}

/**
 * Maps an error from @arslan/vault-core (or anything else) to a store error.
 * `unsupported_version` and `bad_password` keep their code; every other format
 * failure (tampered, malformed, ...) of stored data is `corrupt`.
 */
export function toStoreError(
  error: unknown,
  fallback: VaultStoreErrorCode,
  detail?: string,
): VaultStoreError {
  if (isVaultStoreError(error)) return error;
  if (isVaultFormatError(error)) {
    if (error.code === 'unsupported_version' || error.code === 'bad_password')
      return new VaultStoreError(error.code, detail, { cause: error });
    return new VaultStoreError('corrupt', detail ? `${detail} (${error.code})` : error.code, {
      cause: error,
    });
  }
  return new VaultStoreError(fallback, detail, { cause: error });
}
