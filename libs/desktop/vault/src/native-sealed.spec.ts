import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  checkVaultVectorCase,
  nobleCipher,
  openState,
  parseVaultVectorFile,
  sealState,
  setCipherProvider,
  systemRandom,
} from '@arslan/vault-core';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { nodeCipher, openNative, sealNative } from './native-sealed';

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

describe('nodeCipher (vault-core cipher provider on OpenSSL)', () => {
  const bytes = (n: number) => new Uint8Array(randomBytes(n));

  it('is byte-identical to noble XChaCha20-Poly1305 and SHA-256, both ways', () => {
    for (const n of [0, 1, 15, 16, 63, 64, 65, 4096, 70_000]) {
      const key = bytes(32);
      const nonce = bytes(24);
      const aad = bytes(n % 50);
      const plain = bytes(n);
      const sealed = nodeCipher.xchachaSeal(key, nonce, aad, plain);
      expect(sealed).toEqual(nobleCipher.xchachaSeal(key, nonce, aad, plain));
      expect(nobleCipher.xchachaOpen(key, nonce, aad, sealed)).toEqual(plain);
      expect(nodeCipher.xchachaOpen(key, nonce, aad, sealed)).toEqual(plain);
      expect(nodeCipher.sha256(plain)).toEqual(nobleCipher.sha256(plain));
    }
  });

  it('returns undefined (never throws) for a changed byte, aad, nonce or key, or a short input', () => {
    const key = bytes(32);
    const nonce = bytes(24);
    const aad = bytes(7);
    const sealed = nodeCipher.xchachaSeal(key, nonce, aad, bytes(40));
    for (let i = 0; i < sealed.length; i++) {
      const bad = sealed.slice();
      bad[i] = (bad[i] as number) ^ 0x80;
      expect(nodeCipher.xchachaOpen(key, nonce, aad, bad)).toBeUndefined();
    }
    expect(nodeCipher.xchachaOpen(key, nonce, bytes(7), sealed)).toBeUndefined();
    expect(nodeCipher.xchachaOpen(key, bytes(24), aad, sealed)).toBeUndefined();
    expect(nodeCipher.xchachaOpen(bytes(32), nonce, aad, sealed)).toBeUndefined();
    expect(nodeCipher.xchachaOpen(key, nonce, aad, sealed.subarray(0, 15))).toBeUndefined();
  });

  it('leaves wrong key or nonce lengths to noble (same errors as the default provider)', () => {
    expect(() => nodeCipher.xchachaSeal(bytes(31), bytes(24), bytes(0), bytes(3))).toThrow();
    expect(() => nodeCipher.xchachaSeal(bytes(32), bytes(12), bytes(0), bytes(3))).toThrow();
  });

  it('passes every shipped vault-core vector when installed', async () => {
    // The vectors' test-only KDF (vault-core src/test-only-support.ts; NOT Argon2id).
    const testOnlyKdf = {
      deriveKey: async (password: Uint8Array, salt: Uint8Array) =>
        hkdf(sha256, password, salt, new TextEncoder().encode('arslan test-only kdf, not argon2id'), 32),
    };
    const dir = join(__dirname, '..', '..', '..', 'shared', 'vault-core', 'vectors');
    const cases = readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .flatMap((name) => parseVaultVectorFile(readFileSync(join(dir, name), 'utf8')));
    expect(cases.length).toBeGreaterThanOrEqual(60);
    setCipherProvider(nodeCipher);
    try {
      const outcomes = await Promise.all(cases.map((c) => checkVaultVectorCase(testOnlyKdf, c)));
      expect(outcomes.filter((o) => !o.passed)).toEqual([]);
    } finally {
      setCipherProvider(nobleCipher);
    }
  });
});
