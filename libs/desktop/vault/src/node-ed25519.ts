// The OpenSSL-backed Ed25519 for vault-core in Node: revision and audit signatures are
// verified in bulk (history walks, audit verification), where noble's pure-JS
// verification dominated (measured: ~10x slower). Same strict RFC 8032 semantics;
// node-ed25519.spec.ts checks both providers agree.
import { nodeCrypto } from '@arslan/envelope-node';
import { type Ed25519Provider, setEd25519Provider } from '@arslan/vault-core';

export const nodeEd25519: Ed25519Provider = {
  name: 'node',
  sign: (seed, message) => nodeCrypto.ed25519Sign(seed, message),
  verify: (publicKey, message, signature) => nodeCrypto.ed25519Verify(publicKey, message, signature),
  publicKey: (seed) => nodeCrypto.ed25519PublicKey(seed),
};

/** Idempotent: every store and service of this lib calls it before signing or verifying. */
export function useNodeEd25519(): void {
  setEd25519Provider(nodeEd25519);
}
