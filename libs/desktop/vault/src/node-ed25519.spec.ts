import { randomBytes } from 'node:crypto';
import { nobleEd25519 } from '@arslan/vault-core';
import { forgetEd25519SigningKeys, nodeEd25519 } from './node-ed25519';

describe('node Ed25519 provider (VAULT-10, AUD-1)', () => {
  it('agrees with the noble provider on keys, signatures and verification', () => {
    for (let i = 0; i < 50; i++) {
      const seed = randomBytes(32);
      const message = randomBytes(i * 37);
      const pub = nobleEd25519.publicKey(seed);
      expect(nodeEd25519.publicKey(seed)).toEqual(pub);
      const signature = nodeEd25519.sign(seed, message);
      expect(signature).toEqual(nobleEd25519.sign(seed, message));
      expect(nobleEd25519.verify(pub, message, signature)).toBe(true);
      expect(nodeEd25519.verify(pub, message, signature)).toBe(true);
      const forged = Uint8Array.from(signature);
      forged[i % 64] = (forged[i % 64] as number) ^ 1;
      expect(nodeEd25519.verify(pub, message, forged)).toBe(false);
      expect(nobleEd25519.verify(pub, message, forged)).toBe(false);
    }
  });

  it('rejects a non-canonical S (S + L) like noble does', () => {
    const seed = randomBytes(32);
    const message = randomBytes(10);
    const pub = nobleEd25519.publicKey(seed);
    const signature = Uint8Array.from(nodeEd25519.sign(seed, message));
    // Add the group order L to S (little-endian, bytes 32..63).
    const L = [
      0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14, 0, 0, 0,
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ];
    let carry = 0;
    for (let i = 0; i < 32; i++) {
      const sum = (signature[32 + i] as number) + (L[i] as number) + carry;
      signature[32 + i] = sum & 0xff;
      carry = sum >> 8;
    }
    expect(nobleEd25519.verify(pub, message, signature)).toBe(false);
    expect(nodeEd25519.verify(pub, message, signature)).toBe(false);
  });

  it('the signing-key slot and the verification memo never change a result', () => {
    const [a, b] = [randomBytes(32), randomBytes(32)];
    const message = randomBytes(50);
    const sigA = nodeEd25519.sign(a, message);
    expect(nodeEd25519.sign(b, message)).toEqual(nobleEd25519.sign(b, message));
    expect(nodeEd25519.sign(a, message)).toEqual(sigA);
    forgetEd25519SigningKeys();
    expect(nodeEd25519.sign(a, message)).toEqual(nobleEd25519.sign(a, message));
    const pubA = nobleEd25519.publicKey(a);
    expect(nodeEd25519.verify(pubA, message, sigA)).toBe(true);
    expect(nodeEd25519.verify(pubA, message, sigA)).toBe(true);
    const forged = Uint8Array.from(sigA);
    forged[0] = (forged[0] as number) ^ 1;
    expect(nodeEd25519.verify(pubA, message, forged)).toBe(false);
    expect(nodeEd25519.verify(nobleEd25519.publicKey(b), message, sigA)).toBe(false);
    expect(nodeEd25519.verify(pubA, Uint8Array.from([...message, 0]), sigA)).toBe(false);
  });
});
