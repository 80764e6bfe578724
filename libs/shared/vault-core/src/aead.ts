// XChaCha20-Poly1305 (VAULT-6) with a random 24-byte nonce prepended: nonce || ciphertext || tag.
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { concatBytes } from '@arslan/util';
import { KEY_BYTES, NONCE_BYTES, SEALED_OVERHEAD_BYTES } from './format-constants';
import type { RandomSource } from './ports';
import { VaultFormatError } from './vault-core.errors';

export function aeadSeal(
  key: Uint8Array,
  plaintext: Uint8Array,
  aad: Uint8Array,
  random: RandomSource,
): Uint8Array {
  const nonce = random.randomBytes(NONCE_BYTES);
  if (nonce.length !== NONCE_BYTES)
    throw new VaultFormatError('malformed', 'random source returned a short nonce');
  return concatBytes(nonce, xchacha20poly1305(key, nonce, aad).encrypt(plaintext));
}

/** Undefined when the sealed value is too short or fails authentication. */
export function aeadOpen(key: Uint8Array, sealed: Uint8Array, aad: Uint8Array): Uint8Array | undefined {
  if (key.length !== KEY_BYTES || sealed.length < SEALED_OVERHEAD_BYTES) return undefined;
  try {
    return xchacha20poly1305(key, sealed.subarray(0, NONCE_BYTES), aad).decrypt(sealed.subarray(NONCE_BYTES));
  } catch {
    return undefined;
  }
}

export function randomKey(random: RandomSource): Uint8Array {
  const key = random.randomBytes(KEY_BYTES);
  if (key.length !== KEY_BYTES) throw new VaultFormatError('malformed', 'random source returned a short key');
  return key;
}
