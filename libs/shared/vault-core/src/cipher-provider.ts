// Where XChaCha20-Poly1305 (VAULT-6) and SHA-256 (HIST-1 content addresses) come from. The
// default is @noble/ciphers + @noble/hashes (any platform); a Node host may install an
// OpenSSL-backed provider (libs/desktop/vault native-sealed.ts: ChaCha20-Poly1305 under the
// HChaCha20 subkey of @noble/ciphers' `hchacha`), which must be byte-identical (tested
// against noble and the published vectors).
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { sha256 } from '@noble/hashes/sha2.js';

export interface VaultCipherProvider {
  readonly name: string;
  /** XChaCha20-Poly1305: ciphertext || tag(16) of `plaintext` (key 32 bytes, nonce 24 bytes). */
  xchachaSeal(key: Uint8Array, nonce: Uint8Array, aad: Uint8Array, plaintext: Uint8Array): Uint8Array;
  /** The plaintext, or undefined (never a throw) when `sealed` (ciphertext || tag) fails authentication. */
  xchachaOpen(
    key: Uint8Array,
    nonce: Uint8Array,
    aad: Uint8Array,
    sealed: Uint8Array,
  ): Uint8Array | undefined;
  sha256(bytes: Uint8Array): Uint8Array;
}

export const nobleCipher: VaultCipherProvider = {
  name: 'noble',
  xchachaSeal: (key, nonce, aad, plaintext) => xchacha20poly1305(key, nonce, aad).encrypt(plaintext),
  xchachaOpen: (key, nonce, aad, sealed) => {
    try {
      return xchacha20poly1305(key, nonce, aad).decrypt(sealed);
    } catch {
      return undefined;
    }
  },
  sha256: (bytes) => sha256(bytes),
};

let provider: VaultCipherProvider = nobleCipher;

/** Installs the cipher/hash implementation every seal, open and revision id of this lib uses (process-wide). */
export function setCipherProvider(next: VaultCipherProvider): void {
  if (
    typeof next?.xchachaSeal !== 'function' ||
    typeof next.xchachaOpen !== 'function' ||
    typeof next.sha256 !== 'function'
  )
    throw new TypeError('setCipherProvider: not a VaultCipherProvider');
  provider = next;
}

export function cipherProvider(): VaultCipherProvider {
  return provider;
}
