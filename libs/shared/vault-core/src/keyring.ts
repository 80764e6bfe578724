// VAULT-1, -4, -5, -19: the password-derived key wraps a random master key.
import { bytesToHex, hexToBytes, utf8Encode, wipe } from '@arslan/util';
import { aeadOpen, aeadSeal, randomKey } from './aead';
import {
  ARGON2ID_PARAMS,
  type Argon2idParams,
  KEY_BYTES,
  MASTER_KEY_AAD,
  SALT_BYTES,
  VAULT_FORMAT_VERSION,
  WRAPPED_KEY_BYTES,
} from './format-constants';
import { assertBytes } from './input-guards';
import { type PasswordKdf, type RandomSource, systemRandom } from './ports';
import { VaultFormatError } from './vault-core.errors';

/** The plaintext `header` row: format metadata and salt (VAULT-2 allows these in clear). */
export interface KeyringHeader {
  format_version: 1;
  kdf: Argon2idParams;
  /** 16 bytes, lowercase hex. */
  salt: string;
  /** nonce(24) || XChaCha20-Poly1305(master key) || tag(16), lowercase hex; AAD `memories/master/v1`. */
  wrapped_master_key: string;
}

export interface CreatedKeyring {
  header: KeyringHeader;
  /** Owned by the caller: wipe() it on lock (VAULT-19). */
  masterKey: Uint8Array;
}

const HEADER_KEYS = ['format_version', 'kdf', 'salt', 'wrapped_master_key'];
const KDF_KEYS = Object.keys(ARGON2ID_PARAMS);
const masterAad = (): Uint8Array => utf8Encode(MASTER_KEY_AAD);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sameKeys(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((k) => Object.prototype.hasOwnProperty.call(value, k));
}

function hexField(value: unknown, bytes: number, what: string): Uint8Array {
  if (typeof value !== 'string' || value.length !== bytes * 2)
    throw new VaultFormatError('malformed', `${what} must be ${bytes} bytes of hex`);
  try {
    return hexToBytes(value);
  } catch {
    throw new VaultFormatError('malformed', `${what} must be lowercase hex`);
  }
}

/**
 * Strict parse of a header row. Any format_version other than 1 is
 * `unsupported_version` (VAULT-1), checked before everything else.
 */
export function parseKeyringHeader(value: unknown): KeyringHeader {
  if (!isPlainObject(value)) throw new VaultFormatError('malformed', 'header must be an object');
  if (!('format_version' in value)) throw new VaultFormatError('malformed', 'header has no format_version');
  if (value['format_version'] !== VAULT_FORMAT_VERSION)
    throw new VaultFormatError('unsupported_version', `format_version ${String(value['format_version'])}`);
  if (!sameKeys(value, HEADER_KEYS)) throw new VaultFormatError('malformed', 'header members');
  const kdf = value['kdf'];
  if (
    !isPlainObject(kdf) ||
    !sameKeys(kdf, KDF_KEYS) ||
    !KDF_KEYS.every((k) => kdf[k] === ARGON2ID_PARAMS[k as keyof Argon2idParams])
  )
    throw new VaultFormatError('malformed', 'kdf parameters must be the VAULT-4 constants');
  hexField(value['salt'], SALT_BYTES, 'salt');
  hexField(value['wrapped_master_key'], WRAPPED_KEY_BYTES, 'wrapped_master_key');
  return {
    format_version: VAULT_FORMAT_VERSION,
    kdf: ARGON2ID_PARAMS,
    salt: value['salt'] as string,
    wrapped_master_key: value['wrapped_master_key'] as string,
  };
}

async function deriveKek(kdf: PasswordKdf, password: unknown, salt: Uint8Array): Promise<Uint8Array> {
  if (typeof kdf !== 'object' || kdf === null || typeof kdf.deriveKey !== 'function')
    throw new VaultFormatError('malformed', 'kdf must implement PasswordKdf');
  const pw = assertBytes(password, 'password');
  if (pw.length === 0) throw new VaultFormatError('malformed', 'password must not be empty');
  const kek = await kdf.deriveKey(pw, salt);
  return assertBytes(kek, 'kdf output', KEY_BYTES);
}

/** VAULT-4/5: a new random master key wrapped by the password-derived key. */
export async function createKeyring(
  kdf: PasswordKdf,
  password: Uint8Array,
  random: RandomSource = systemRandom,
): Promise<CreatedKeyring> {
  const salt = assertBytes(random.randomBytes(SALT_BYTES), 'salt', SALT_BYTES);
  const kek = await deriveKek(kdf, password, salt);
  const masterKey = randomKey(random);
  try {
    const wrapped = aeadSeal(kek, masterKey, masterAad(), random);
    const header: KeyringHeader = {
      format_version: VAULT_FORMAT_VERSION,
      kdf: ARGON2ID_PARAMS,
      salt: bytesToHex(salt),
      wrapped_master_key: bytesToHex(wrapped),
    };
    return { header, masterKey };
  } catch (error) {
    wipe(masterKey);
    throw error;
  } finally {
    wipe(kek);
  }
}

/**
 * VAULT-1/5: the master key, or `bad_password`. A wrong password and a damaged
 * wrapped key are deliberately the same error (one AEAD check decides both).
 */
export async function unlockKeyring(
  kdf: PasswordKdf,
  password: Uint8Array,
  header: unknown,
): Promise<Uint8Array> {
  const parsed = parseKeyringHeader(header);
  const kek = await deriveKek(kdf, password, hexToBytes(parsed.salt));
  try {
    const masterKey = aeadOpen(kek, hexToBytes(parsed.wrapped_master_key), masterAad());
    if (!masterKey || masterKey.length !== KEY_BYTES) throw new VaultFormatError('bad_password');
    return masterKey;
  } finally {
    wipe(kek);
  }
}
