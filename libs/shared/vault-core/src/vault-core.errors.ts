/** Every error code this lib throws (README.md, "Errors"). Pinned by vault-core.surface.spec.ts. */
export const VAULT_FORMAT_ERROR_CODES = [
  'unsupported_version',
  'bad_password',
  'malformed',
  'tampered',
  'bad_signature',
  'bad_certificate',
  'device_not_allowed',
  'id_mismatch',
  'unknown_parent',
  'duplicate_revision',
  'cycle',
  'asset_mismatch',
  'unresolved_heads',
] as const;

export type VaultFormatErrorCode = (typeof VAULT_FORMAT_ERROR_CODES)[number];

const MESSAGES: Record<VaultFormatErrorCode, string> = {
  unsupported_version: 'vault format version is not supported (only version 1)',
  bad_password: 'wrong password or damaged keyring header',
  malformed: 'vault data is malformed',
  tampered: 'authenticated ciphertext failed verification',
  bad_signature: 'revision signature does not verify',
  bad_certificate: 'device certificate does not verify',
  device_not_allowed: 'device is not in the vault device allowlist',
  id_mismatch: 'revision id does not match its signed bytes',
  unknown_parent: 'revision names a parent that is not in the history',
  duplicate_revision: 'two different revisions share one id',
  cycle: 'revision history contains a cycle',
  asset_mismatch: 'revision belongs to another asset',
  unresolved_heads: 'resolution does not name every visible head',
};

/**
 * The one error type this lib throws. `detail` is for developers (which check
 * failed); it never carries key or plaintext bytes.
 */
export class VaultFormatError extends Error {
  readonly code: VaultFormatErrorCode;
  readonly detail: string | undefined;

  constructor(code: VaultFormatErrorCode, detail?: string) {
    super(detail ? `${MESSAGES[code]}: ${detail}` : MESSAGES[code]);
    this.name = 'VaultFormatError';
    this.code = code;
    this.detail = detail;
  }
}

export function isVaultFormatError(error: unknown): error is VaultFormatError {
  return error instanceof VaultFormatError;
}
