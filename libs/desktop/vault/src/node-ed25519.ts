// The OpenSSL-backed Ed25519 for vault-core in Node: revision and audit signatures are
// verified in bulk (history walks, audit verification), where noble's pure-JS
// verification dominated (measured: ~10x slower). Same strict RFC 8032 semantics;
// node-ed25519.spec.ts checks both providers agree.
import { type KeyObject, createHash, createPrivateKey, sign } from 'node:crypto';
import { nodeCrypto } from '@arslan/envelope-node';
import { type Ed25519Provider, setEd25519Provider } from '@arslan/vault-core';
import { useNodeCipher } from './native-sealed';

/**
 * Successful verifications of exact (public key, message, signature) triples, keyed by their
 * SHA-256. vault-core's writeRevision re-verifies the signer's device certificate on every write
 * (~0.15 ms in OpenSSL), and audit verification and history walks re-check the same entries each
 * time they run; verification is deterministic, so an identical triple needs no second check,
 * while any changed byte is a different key and is verified for real. 65,536 keys ≈ 7 MB.
 */
const verified = new Set<string>();
const VERIFIED_MAX = 65_536;

function tripleKey(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): string {
  return createHash('sha256')
    .update(String(publicKey.length))
    .update(':')
    .update(publicKey)
    .update(String(signature.length))
    .update(':')
    .update(signature)
    .update(message)
    .digest('base64');
}

/**
 * The signing key of the most recently used seed, imported once instead of twice per
 * signature (each import also leaves an unwipeable base64 copy of the seed behind).
 * Keyed by SHA-256 of the seed; dropped by forgetEd25519SigningKeys() on lock (VAULT-19).
 */
let signingSlot: { digest: string; key: KeyObject; publicKey: Uint8Array } | undefined;

function slotFor(seed: Uint8Array): { key: KeyObject; publicKey: Uint8Array } {
  const digest = createHash('sha256').update(seed).digest('base64');
  if (signingSlot?.digest === digest) return signingSlot;
  const publicKey = nodeCrypto.ed25519PublicKey(seed);
  const b64 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.length).toString('base64url');
  const key = createPrivateKey({
    key: { kty: 'OKP', crv: 'Ed25519', d: b64(seed), x: b64(publicKey) },
    format: 'jwk',
  });
  signingSlot = { digest, key, publicKey };
  return signingSlot;
}

/** Drops the cached signing key (store lock/close, after a user-seed operation). */
export function forgetEd25519SigningKeys(): void {
  signingSlot = undefined;
}

const isSeed = (seed: unknown): seed is Uint8Array => seed instanceof Uint8Array && seed.length === 32;

export const nodeEd25519: Ed25519Provider = {
  name: 'node',
  sign: (seed, message) =>
    isSeed(seed) && message instanceof Uint8Array
      ? new Uint8Array(sign(null, message, slotFor(seed).key))
      : nodeCrypto.ed25519Sign(seed, message),
  verify: (publicKey, message, signature) => {
    if (![publicKey, message, signature].every((b) => b instanceof Uint8Array))
      return nodeCrypto.ed25519Verify(publicKey, message, signature);
    const key = tripleKey(publicKey, message, signature);
    if (verified.has(key)) return true;
    const ok = nodeCrypto.ed25519Verify(publicKey, message, signature);
    if (ok) {
      if (verified.size >= VERIFIED_MAX) verified.clear();
      verified.add(key);
    }
    return ok;
  },
  publicKey: (seed) => (isSeed(seed) ? slotFor(seed).publicKey.slice() : nodeCrypto.ed25519PublicKey(seed)),
};

/**
 * Idempotent: every store and service of this lib calls it before signing or verifying.
 * Installs both OpenSSL providers of vault-core: Ed25519 and the cipher/hash (native-sealed.ts).
 */
export function useNodeEd25519(): void {
  setEd25519Provider(nodeEd25519);
  useNodeCipher();
}
