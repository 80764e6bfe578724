// Normative constants of vault-center.md 0.3 (VAULT-1, -4, -5, -6, -9).

/** VAULT-1: the only store format version this code reads or writes. */
export const VAULT_FORMAT_VERSION = 1;

/** VAULT-4: Argon2id parameters of the key-encryption key. */
export const ARGON2ID_PARAMS = Object.freeze({
  algorithm: 'argon2id',
  version: 0x13,
  memory_kib: 65536,
  iterations: 3,
  parallelism: 1,
  salt_bytes: 16,
  output_bytes: 32,
} as const);

export type Argon2idParams = typeof ARGON2ID_PARAMS;

export const KEY_BYTES = 32;
export const NONCE_BYTES = 24;
export const TAG_BYTES = 16;
export const SALT_BYTES = ARGON2ID_PARAMS.salt_bytes;
/** nonce || ciphertext of a 32-byte key || tag */
export const WRAPPED_KEY_BYTES = NONCE_BYTES + KEY_BYTES + TAG_BYTES;
export const SEALED_OVERHEAD_BYTES = NONCE_BYTES + TAG_BYTES;
export const ED25519_KEY_BYTES = 32;
export const X25519_KEY_BYTES = 32;
export const SIGNATURE_BYTES = 64;
/** Random per-revision value that binds the wrapped data key and the chunks to one revision. */
export const CONTENT_NONCE_BYTES = 32;

/** VAULT-9: plaintext bytes per content chunk (the last chunk may be shorter). */
export const CHUNK_SIZE = 256 * 1024;

/** VAULT-5: associated data of the master-key wrap, exactly. */
export const MASTER_KEY_AAD = 'memories/master/v1';
export const EPOCH_KEY_AAD_TAG = 'memories/epoch-key/v1';
export const DATA_KEY_AAD_TAG = 'memories/data-key/v1';
export const CHUNK_AAD_TAG = 'memories/chunk/v1';
export const REVISION_SIGNATURE_TAG = 'memories/revision/v1';
export const DEVICE_CERTIFICATE_TAG = 'memories/device-certificate/v1';

/** Upper bounds on identifiers (UTF-8 bytes) and epochs. */
export const MAX_ID_BYTES = 256;
export const MAX_EPOCH = 0xffffffff;
export const MAX_PARENTS = 1024;
