import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildPlaintext,
  checkPrimitiveVectorFile,
  checkVectorCase,
  generateDeviceKeys,
  nobleCrypto,
  openEnvelope,
  parseVectorFile,
  primitiveVectorKind,
  sealEnvelope,
} from '@arslan/envelope';
import { nodeCrypto } from './node-crypto';

const vectors = join(__dirname, '..', '..', 'envelope', 'vectors');

describe('node:crypto backend', () => {
  it('passes every shipped envelope vector', () => {
    for (const name of readdirSync(vectors).filter((n) => n.endsWith('.json'))) {
      const failures = parseVectorFile(readFileSync(join(vectors, name), 'utf8'))
        .map((c) => checkVectorCase(nodeCrypto, c))
        .filter((o) => !o.passed);
      expect({ name, failures }).toEqual({ name, failures: [] });
    }
  });

  it('passes the published primitive vectors (ChaCha20-Poly1305, X25519, Ed25519, HKDF)', () => {
    const dir = join(vectors, 'primitives');
    let count = 0;
    for (const name of readdirSync(dir)) {
      const kind = primitiveVectorKind(name);
      if (!kind) continue;
      const outcomes = checkPrimitiveVectorFile(nodeCrypto, kind, readFileSync(join(dir, name), 'utf8'));
      count += outcomes.length;
      expect(outcomes.filter((o) => !o.passed)).toEqual([]);
    }
    expect(count).toBeGreaterThanOrEqual(1000);
  });

  it('agrees byte for byte with the noble backend on every primitive', () => {
    const seed = nobleCrypto.randomBytes(32);
    const x = nobleCrypto.randomBytes(32);
    const peer = nobleCrypto.x25519PublicKey(nobleCrypto.randomBytes(32));
    const msg = nobleCrypto.randomBytes(1000);
    const key = nobleCrypto.randomBytes(32);
    const nonce = nobleCrypto.randomBytes(12);
    const aad = nobleCrypto.randomBytes(7);
    expect(nodeCrypto.ed25519PublicKey(seed)).toEqual(nobleCrypto.ed25519PublicKey(seed));
    expect(nodeCrypto.ed25519Sign(seed, msg)).toEqual(nobleCrypto.ed25519Sign(seed, msg));
    expect(nodeCrypto.x25519PublicKey(x)).toEqual(nobleCrypto.x25519PublicKey(x));
    expect(nodeCrypto.x25519SharedSecret(x, peer)).toEqual(nobleCrypto.x25519SharedSecret(x, peer));
    expect(nodeCrypto.x25519SharedSecret(x, new Uint8Array(32))).toEqual(new Uint8Array(32));
    expect(nodeCrypto.hkdfSha256(msg, aad, nonce, 44)).toEqual(nobleCrypto.hkdfSha256(msg, aad, nonce, 44));
    const sealed = nodeCrypto.chacha20Poly1305Seal(key, nonce, msg, aad);
    expect(sealed).toEqual(nobleCrypto.chacha20Poly1305Seal(key, nonce, msg, aad));
    expect(nodeCrypto.chacha20Poly1305Open(key, nonce, sealed, aad)).toEqual(msg);
    sealed[5] = (sealed[5] as number) ^ 1;
    expect(nodeCrypto.chacha20Poly1305Open(key, nonce, sealed, aad)).toBeUndefined();
    expect(nodeCrypto.chacha20Poly1305Open(key, nonce, new Uint8Array(3), aad)).toBeUndefined();
    expect(nodeCrypto.ed25519Verify(new Uint8Array(32).fill(0xff), msg, new Uint8Array(64))).toBe(false);
  });

  it('interoperates: noble seals, node opens, and the reverse', () => {
    for (const [a, b] of [
      [nobleCrypto, nodeCrypto],
      [nodeCrypto, nobleCrypto],
    ] as const) {
      const s = generateDeviceKeys(a);
      const r = generateDeviceKeys(b);
      const header = [s.fingerprint, r.fingerprint, 'v', 'sync-export', '1'];
      const wire = sealEnvelope(a, {
        profile: 'transfer',
        header,
        plaintext: buildPlaintext('transfer', header, { n: 1 }),
        senderSigningSeed: s.signingSeed,
        recipientExchangePublicKey: r.exchangePublicKey,
      });
      const opened = openEnvelope(b, wire, {
        recipientExchangePrivateKey: r.exchangePrivateKey,
        acceptedSenders: [s.signingPublicKey],
      });
      expect(opened.message['n']).toBe(1);
    }
  });
});
