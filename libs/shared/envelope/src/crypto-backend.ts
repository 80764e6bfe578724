/**
 * The primitives an envelope needs. Two implementations pass the same vectors:
 * `nobleCrypto` (pure JS, any platform) and `nodeCrypto` from `@arslan/envelope-node`.
 * Callers (seal/open) assert every length before calling in; backends may trust them.
 */
export interface EnvelopeCrypto {
  readonly name: string;
  randomBytes(length: number): Uint8Array;
  sha256(data: Uint8Array): Uint8Array;
  /** RFC 5869 HKDF with SHA-256. */
  hkdfSha256(ikm: Uint8Array, salt: Uint8Array, info: Uint8Array, length: number): Uint8Array;
  x25519PublicKey(privateKey: Uint8Array): Uint8Array;
  /** RFC 7748 X25519. Returns 32 zero bytes when the result is all-zero (low-order peer key). */
  x25519SharedSecret(privateKey: Uint8Array, publicKey: Uint8Array): Uint8Array;
  ed25519PublicKey(seed: Uint8Array): Uint8Array;
  ed25519Sign(seed: Uint8Array, message: Uint8Array): Uint8Array;
  /** RFC 8032 verification; false (never a throw) for any invalid signature or key. */
  ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean;
  /** RFC 8439 AEAD; returns ciphertext || 16-byte tag. */
  chacha20Poly1305Seal(
    key: Uint8Array,
    nonce: Uint8Array,
    plaintext: Uint8Array,
    aad: Uint8Array,
  ): Uint8Array;
  /** Returns undefined when the tag does not verify. */
  chacha20Poly1305Open(
    key: Uint8Array,
    nonce: Uint8Array,
    sealed: Uint8Array,
    aad: Uint8Array,
  ): Uint8Array | undefined;
}
