import { randomBytes as nobleRandomBytes } from '@noble/hashes/utils.js';

/**
 * VAULT-4 port: Argon2id v0x13 with ARGON2ID_PARAMS (64 MiB, t=3, p=1), 16-byte
 * salt, 32-byte output. The Node adapter (the `argon2` package) lives in
 * libs/desktop/vault; this lib never computes Argon2 itself.
 */
export interface PasswordKdf {
  deriveKey(password: Uint8Array, salt: Uint8Array): Promise<Uint8Array>;
}

/** Source of key material and nonces; injected so tests and vectors are deterministic. */
export interface RandomSource {
  randomBytes(length: number): Uint8Array;
}

/** The platform CSPRNG (crypto.getRandomValues via @noble/hashes). */
export const systemRandom: RandomSource = {
  randomBytes: (length) => nobleRandomBytes(length),
};
