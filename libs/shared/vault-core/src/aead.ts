// XChaCha20-Poly1305 (VAULT-6) with a random 24-byte nonce prepended: nonce || ciphertext || tag.
import { cipherProvider } from './cipher-provider';
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
  const body = cipherProvider().xchachaSeal(key, nonce, aad, plaintext);
  const out = new Uint8Array(NONCE_BYTES + body.length);
  out.set(nonce, 0);
  out.set(body, NONCE_BYTES);
  return out;
}

/** Undefined when the sealed value is too short or fails authentication. */
export function aeadOpen(key: Uint8Array, sealed: Uint8Array, aad: Uint8Array): Uint8Array | undefined {
  if (key.length !== KEY_BYTES || sealed.length < SEALED_OVERHEAD_BYTES) return undefined;
  return cipherProvider().xchachaOpen(
    key,
    sealed.subarray(0, NONCE_BYTES),
    aad,
    sealed.subarray(NONCE_BYTES),
  );
}

export function randomKey(random: RandomSource): Uint8Array {
  const key = random.randomBytes(KEY_BYTES);
  if (key.length !== KEY_BYTES) throw new VaultFormatError('malformed', 'random source returned a short key');
  return key;
}
