import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { randomBytes } from '@noble/hashes/utils.js';
import type { EnvelopeCrypto } from './crypto-backend';

/** Pure @noble/* backend: runs in Node, browsers and the phone client. */
export const nobleCrypto: EnvelopeCrypto = {
  name: 'noble',
  randomBytes: (length) => randomBytes(length),
  sha256: (data) => sha256(data),
  hkdfSha256: (ikm, salt, info, length) => hkdf(sha256, ikm, salt, info, length),
  x25519PublicKey: (privateKey) => x25519.getPublicKey(privateKey),
  x25519SharedSecret: (privateKey, publicKey) => {
    try {
      return x25519.getSharedSecret(privateKey, publicKey);
    } catch {
      // With 32-byte inputs the only failure is the all-zero result of a low-order point.
      return new Uint8Array(32);
    }
  },
  ed25519PublicKey: (seed) => ed25519.getPublicKey(seed),
  ed25519Sign: (seed, message) => ed25519.sign(message, seed),
  ed25519Verify: (publicKey, message, signature) => {
    try {
      // zip215: false = strict RFC 8032 (canonical encodings), matching OpenSSL.
      return ed25519.verify(signature, message, publicKey, { zip215: false });
    } catch {
      return false;
    }
  },
  chacha20Poly1305Seal: (key, nonce, plaintext, aad) => chacha20poly1305(key, nonce, aad).encrypt(plaintext),
  chacha20Poly1305Open: (key, nonce, sealed, aad) => {
    try {
      return chacha20poly1305(key, nonce, aad).decrypt(sealed);
    } catch {
      return undefined;
    }
  },
};
