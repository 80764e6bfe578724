import { randomBytes } from 'node:crypto';
import { openState, sealState, systemRandom } from '@arslan/vault-core';
import { openNative, sealNative } from './native-sealed';

describe('native sealed values (VAULT-6, byte format of vault-core)', () => {
  const key = new Uint8Array(randomBytes(32));
  const label = { table: 'state' as const, purpose: 'meta.000000000001' };

  it('interoperates with sealState/openState both ways, for empty to multi-block plaintexts', () => {
    for (const n of [0, 1, 63, 64, 65, 300, 12_000]) {
      const plain = new Uint8Array(randomBytes(n));
      expect(openState(key, sealNative(key, plain, label, systemRandom), label)).toEqual(plain);
      expect(openNative(key, sealState(key, plain, label), label)).toEqual(plain);
    }
  });

  it('is byte-identical to sealState for the same nonce', () => {
    const nonce = new Uint8Array(randomBytes(24));
    const fixed = { randomBytes: () => nonce.slice() };
    const plain = new Uint8Array(randomBytes(500));
    expect(sealNative(key, plain, label, fixed)).toEqual(sealState(key, plain, label, fixed));
  });

  it('rejects a flipped byte, another label or another key (tampered)', () => {
    const sealed = sealNative(key, new Uint8Array([1, 2, 3]), label, systemRandom);
    for (let i = 0; i < sealed.length; i++) {
      const bad = sealed.slice();
      bad[i] = (bad[i] as number) ^ 1;
      expect(() => openNative(key, bad, label)).toThrow(expect.objectContaining({ code: 'tampered' }));
    }
    expect(() => openNative(key, sealed, { table: 'state', purpose: 'meta.000000000002' })).toThrow(
      expect.objectContaining({ code: 'tampered' }),
    );
    expect(() => openNative(new Uint8Array(32), sealed, label)).toThrow(
      expect.objectContaining({ code: 'tampered' }),
    );
    expect(() => openNative(key, sealed.subarray(0, 39), label)).toThrow(
      expect.objectContaining({ code: 'malformed' }),
    );
  });
});
