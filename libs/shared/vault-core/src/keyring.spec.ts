import { isAllZero, utf8Encode } from '@arslan/util';
import { ARGON2ID_PARAMS, MASTER_KEY_AAD } from './format-constants';
import { createKeyring, type KeyringHeader, parseKeyringHeader, unlockKeyring } from './keyring';
import type { PasswordKdf } from './ports';
import { recordingRandom, testOnlyKdf, testOnlyRandom } from './test-only-support';
import { VaultFormatError } from './vault-core.errors';

const pw = utf8Encode('hunter2 — 合言葉');

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    return error instanceof VaultFormatError ? error.code : `other: ${String(error)}`;
  }
}

function flipHexByte(hex: string, i: number): string {
  const b = (parseInt(hex.slice(i * 2, i * 2 + 2), 16) ^ 1).toString(16).padStart(2, '0');
  return hex.slice(0, i * 2) + b + hex.slice(i * 2 + 2);
}

describe('keyring (VAULT-1, VAULT-4, VAULT-5, VAULT-19)', () => {
  it('VAULT-4/5: round trip returns the same random master key; header holds the normative params', async () => {
    const { header, masterKey } = await createKeyring(testOnlyKdf, pw, testOnlyRandom('k'));
    expect(header.format_version).toBe(1);
    expect(header.kdf).toEqual({
      algorithm: 'argon2id',
      version: 0x13,
      memory_kib: 65536,
      iterations: 3,
      parallelism: 1,
      salt_bytes: 16,
      output_bytes: 32,
    });
    expect(header.salt).toHaveLength(32);
    expect(header.wrapped_master_key).toHaveLength(144);
    expect(masterKey).toHaveLength(32);
    expect(await unlockKeyring(testOnlyKdf, pw, JSON.parse(JSON.stringify(header)))).toEqual(masterKey);
    expect(MASTER_KEY_AAD).toBe('memories/master/v1');
  });

  it('VAULT-5: two keyrings get different master keys and salts (system random)', async () => {
    const a = await createKeyring(testOnlyKdf, pw);
    const b = await createKeyring(testOnlyKdf, pw);
    expect(a.masterKey).not.toEqual(b.masterKey);
    expect(a.header.salt).not.toEqual(b.header.salt);
  });

  it('VAULT-4: the KDF is called with the password bytes and the 16-byte header salt', async () => {
    const calls: [Uint8Array, Uint8Array][] = [];
    const kdf: PasswordKdf = {
      deriveKey: async (p, s) => (calls.push([p.slice(), s.slice()]), testOnlyKdf.deriveKey(p, s)),
    };
    const { header } = await createKeyring(kdf, pw, testOnlyRandom('k'));
    await unlockKeyring(kdf, pw, header);
    expect(calls).toHaveLength(2);
    expect(calls[0]![0]).toEqual(pw);
    expect(calls[0]![1]).toHaveLength(ARGON2ID_PARAMS.salt_bytes);
    expect(calls[1]).toEqual(calls[0]);
  });

  it('bad_password: wrong password', async () => {
    const { header } = await createKeyring(testOnlyKdf, pw, testOnlyRandom('k'));
    expect(await code(unlockKeyring(testOnlyKdf, utf8Encode('hunter3'), header))).toBe('bad_password');
  });

  it('bad_password: a flip of every single byte of the wrapped master key (and of the salt) is detected', async () => {
    const { header } = await createKeyring(testOnlyKdf, pw, testOnlyRandom('k'));
    for (let i = 0; i < 72; i++) {
      const h = { ...header, wrapped_master_key: flipHexByte(header.wrapped_master_key, i) };
      expect(await code(unlockKeyring(testOnlyKdf, pw, h))).toBe('bad_password');
    }
    for (let i = 0; i < 16; i++) {
      const h = { ...header, salt: flipHexByte(header.salt, i) };
      expect(await code(unlockKeyring(testOnlyKdf, pw, h))).toBe('bad_password');
    }
  });

  it('VAULT-1: unsupported_version for any format_version other than 1, before anything else', async () => {
    const { header } = await createKeyring(testOnlyKdf, pw, testOnlyRandom('k'));
    for (const v of [0, 2, -1, 1.5, '1', null, true])
      expect(await code(unlockKeyring(testOnlyKdf, pw, { ...header, format_version: v, salt: 'zz' }))).toBe(
        'unsupported_version',
      );
  });

  it('malformed: header shape, kdf params, lengths and encodings', async () => {
    const { header } = await createKeyring(testOnlyKdf, pw, testOnlyRandom('k'));
    const variants: unknown[] = [
      null,
      'header',
      [header],
      { ...header, extra: 1 },
      { kdf: header.kdf, salt: header.salt, wrapped_master_key: header.wrapped_master_key },
      { ...header, kdf: { ...header.kdf, iterations: 2 } },
      { ...header, kdf: { ...header.kdf, parallelism: 4 } },
      { ...header, kdf: { ...header.kdf, algorithm: 'argon2i' } },
      { ...header, kdf: { ...header.kdf, extra: 1 } },
      { ...header, salt: header.salt + '00' },
      { ...header, salt: header.salt.toUpperCase() },
      { ...header, wrapped_master_key: header.wrapped_master_key.slice(0, -2) },
      { ...header, wrapped_master_key: 'g'.repeat(144) },
    ];
    for (const v of variants) expect(await code(unlockKeyring(testOnlyKdf, pw, v))).toBe('malformed');
    expect(() => parseKeyringHeader(header satisfies KeyringHeader)).not.toThrow();
  });

  it('malformed: bad password argument, bad KDF, or a KDF output that is not 32 bytes', async () => {
    const { header } = await createKeyring(testOnlyKdf, pw, testOnlyRandom('k'));
    expect(await code(unlockKeyring(testOnlyKdf, new Uint8Array(0), header))).toBe('malformed');
    expect(await code(unlockKeyring(testOnlyKdf, 'pw' as unknown as Uint8Array, header))).toBe('malformed');
    expect(await code(createKeyring({} as PasswordKdf, pw))).toBe('malformed');
    const short: PasswordKdf = { deriveKey: async () => new Uint8Array(31) };
    expect(await code(createKeyring(short, pw))).toBe('malformed');
    expect(await code(unlockKeyring(short, pw, header))).toBe('malformed');
  });

  it('VAULT-19: the password-derived key is wiped after create and after unlock (even on bad_password)', async () => {
    const derived: Uint8Array[] = [];
    const kdf: PasswordKdf = {
      deriveKey: async (p, s) => {
        const k = await testOnlyKdf.deriveKey(p, s);
        derived.push(k);
        return k;
      },
    };
    const { header } = await createKeyring(kdf, pw, recordingRandom('k'));
    await unlockKeyring(kdf, pw, header);
    await code(unlockKeyring(kdf, utf8Encode('nope'), header));
    expect(derived).toHaveLength(3);
    for (const k of derived) expect(isAllZero(k)).toBe(true);
  });
});
