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

/** Requests up to this many bytes are served from the pool; larger ones go to the CSPRNG directly. */
const POOLED_MAX = 64;
const POOL_BYTES = 4096;
let pool = new Uint8Array(0);
let poolOffset = 0;

/**
 * The platform CSPRNG (crypto.getRandomValues via @noble/hashes). Small requests (keys,
 * nonces: a revision commit asks for ~8 of them) are cut from a 4 KiB buffer filled by one
 * CSPRNG call, because each call costs ~5-10 µs in Node; bytes are zeroed in the pool as
 * they are handed out, so the pool never holds a copy of issued key material.
 */
export const systemRandom: RandomSource = {
  randomBytes: (length) => {
    if (!Number.isSafeInteger(length) || length < 0 || length > POOLED_MAX) return nobleRandomBytes(length);
    if (pool.length - poolOffset < length) {
      pool.fill(0);
      pool = nobleRandomBytes(POOL_BYTES);
      poolOffset = 0;
    }
    const out = pool.slice(poolOffset, poolOffset + length);
    pool.fill(0, poolOffset, poolOffset + length);
    poolOffset += length;
    return out;
  },
};
