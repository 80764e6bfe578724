// VAULT-4: the PasswordKdf port of @arslan/vault-core on the native `argon2` package.
import { wipe } from '@arslan/util';
import { ARGON2ID_PARAMS, type PasswordKdf } from '@arslan/vault-core';
import { type HashOptions, argon2id, hash } from 'argon2';
import { VaultStoreError } from './vault-store.errors';

/** The normative constants of vault-center.md 0.3 (VAULT-4), spelled out once more on purpose. */
const NORMATIVE = {
  algorithm: 'argon2id',
  version: 0x13,
  memory_kib: 65536,
  iterations: 3,
  parallelism: 1,
  salt_bytes: 16,
  output_bytes: 32,
} as const;

/** Throws unless vault-core's ARGON2ID_PARAMS are exactly the VAULT-4 constants. */
export function assertArgon2idParams(params: Readonly<Record<string, unknown>> = ARGON2ID_PARAMS): void {
  const keys = Object.keys(NORMATIVE) as (keyof typeof NORMATIVE)[];
  if (Object.keys(params).length !== keys.length || keys.some((k) => params[k] !== NORMATIVE[k]))
    throw new VaultStoreError('invalid_argument', 'Argon2id parameters differ from VAULT-4');
}

assertArgon2idParams();

/** Options passed to argon2.hash (exported so tests can pin them). */
export function argon2idHashOptions(salt: Buffer): HashOptions & { raw: true } {
  return {
    type: argon2id,
    version: ARGON2ID_PARAMS.version,
    memoryCost: ARGON2ID_PARAMS.memory_kib,
    timeCost: ARGON2ID_PARAMS.iterations,
    parallelism: ARGON2ID_PARAMS.parallelism,
    hashLength: ARGON2ID_PARAMS.output_bytes,
    salt,
    raw: true,
  };
}

/** Argon2id v0x13, 64 MiB, t=3, p=1, 16-byte salt, 32-byte key (VAULT-4). ~140 ms per call. */
export const argon2idKdf: PasswordKdf = {
  async deriveKey(password: Uint8Array, salt: Uint8Array): Promise<Uint8Array> {
    if (!(password instanceof Uint8Array) || password.length === 0)
      throw new VaultStoreError('invalid_argument', 'password must be non-empty bytes');
    if (!(salt instanceof Uint8Array) || salt.length !== ARGON2ID_PARAMS.salt_bytes)
      throw new VaultStoreError('invalid_argument', 'salt must be 16 bytes');
    const pw = Buffer.from(password);
    let raw: Buffer | undefined;
    try {
      raw = await hash(pw, argon2idHashOptions(Buffer.from(salt)));
      if (raw.length !== ARGON2ID_PARAMS.output_bytes)
        throw new VaultStoreError('invalid_argument', 'Argon2id returned a key of the wrong length');
      return new Uint8Array(raw);
    } finally {
      wipe(pw);
      if (raw) wipe(raw);
    }
  },
};
