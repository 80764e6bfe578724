import { ARGON2ID_PARAMS } from '@arslan/vault-core';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { argon2idHashOptions, argon2idKdf, assertArgon2idParams } from './argon2-kdf';
import { pw } from './test-only-support';

/**
 * @noble/hashes' pure-JS argon2id, run in a plain Node process: under Jest's
 * module transform it takes ~20 s instead of ~1 s.
 */
function nobleArgon2idHex(password: Uint8Array, salt: Uint8Array): string {
  const script = `
    import { argon2id } from '@noble/hashes/argon2.js';
    const [pw, salt] = process.argv.slice(1).map((h) => Uint8Array.from(Buffer.from(h, 'hex')));
    const key = argon2id(pw, salt, { t: 3, m: 65536, p: 1, dkLen: 32, version: 0x13 });
    process.stdout.write(Buffer.from(key).toString('hex'));`;
  return execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      script,
      Buffer.from(password).toString('hex'),
      Buffer.from(salt).toString('hex'),
    ],
    { cwd: path.resolve(__dirname, '../../../..'), encoding: 'utf8' },
  );
}

const salt = (fill: number) => new Uint8Array(16).fill(fill);

describe('argon2idKdf (VAULT-4)', () => {
  it('VAULT-4: vault-core ARGON2ID_PARAMS are the normative constants and reach argon2.hash', () => {
    expect(() => assertArgon2idParams()).not.toThrow();
    expect(() => assertArgon2idParams({ ...ARGON2ID_PARAMS, memory_kib: 32768 })).toThrow(/VAULT-4/);
    expect(() => assertArgon2idParams({ ...ARGON2ID_PARAMS, version: 0x10 })).toThrow(/VAULT-4/);
    const options = argon2idHashOptions(Buffer.alloc(16));
    expect(options).toMatchObject({
      type: 2, // argon2id
      version: 0x13,
      memoryCost: 65536,
      timeCost: 3,
      parallelism: 1,
      hashLength: 32,
      raw: true,
    });
  });

  it('VAULT-4: deterministic 32-byte key; another salt or password gives another key', async () => {
    const a = await argon2idKdf.deriveKey(pw('correct horse'), salt(1));
    const b = await argon2idKdf.deriveKey(pw('correct horse'), salt(1));
    const c = await argon2idKdf.deriveKey(pw('correct horse'), salt(2));
    const d = await argon2idKdf.deriveKey(pw('correct horsf'), salt(1));
    expect(a).toBeInstanceOf(Uint8Array);
    expect(a.length).toBe(32);
    expect(Buffer.from(b).equals(Buffer.from(a))).toBe(true);
    expect(Buffer.from(c).equals(Buffer.from(a))).toBe(false);
    expect(Buffer.from(d).equals(Buffer.from(a))).toBe(false);
  });

  it('VAULT-4: byte-identical to an independent Argon2id v0x13 (m=64 MiB, t=3, p=1) implementation', async () => {
    const password = pw('pässwörd 🔑');
    const s = Uint8Array.from({ length: 16 }, (_, i) => i * 7);
    const native = await argon2idKdf.deriveKey(password, s);
    expect(Buffer.from(native).toString('hex')).toBe(nobleArgon2idHex(password, s));
  }, 20_000);

  it('VAULT-4: rejects an empty password and a salt that is not 16 bytes', async () => {
    await expect(argon2idKdf.deriveKey(new Uint8Array(0), salt(1))).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    await expect(argon2idKdf.deriveKey(pw('x'), new Uint8Array(8))).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });
});
