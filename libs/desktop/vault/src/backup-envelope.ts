// BAK-1: the backup file is an envelope of its own: a clear versioned header line
// (canonical JSON: format, version, kdf params, 16-byte salt) + "\n" + XChaCha20-Poly1305
// (nonce 24 ‖ ciphertext ‖ tag 16) of the canonical JSON payload, keyed by Argon2id(backup
// password, salt) and with the header bytes as associated data. Written atomically, mode 0600,
// never over an existing file.
import fs from 'node:fs';
import path from 'node:path';
import { bytesToHex, concatBytes, hexToBytes, utf8DecodeStrict, utf8Encode, wipe } from '@arslan/util';
import { ARGON2ID_PARAMS, type PasswordKdf, type RandomSource } from '@arslan/vault-core';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { canonicalJson } from './canonical-json';
import { fsyncDirectory } from './durable-fs';
import { serviceError } from './vault-service.errors';

export const BACKUP_FORMAT = 'arslan-backup';
export const BACKUP_VERSION = 1;
const SALT_BYTES = 16;
const NONCE_BYTES = 24;
const NEWLINE = 0x0a;

export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_VERSION;
  kdf: typeof ARGON2ID_PARAMS;
  salt: string;
}

/** Encrypts `payload` (any JSON) into the backup file bytes. */
export async function sealBackup(
  payload: unknown,
  backupPassword: Uint8Array,
  kdf: PasswordKdf,
  random: RandomSource,
): Promise<Uint8Array> {
  const salt = random.randomBytes(SALT_BYTES);
  const header: BackupHeader = {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    kdf: ARGON2ID_PARAMS,
    salt: bytesToHex(salt),
  };
  const headerBytes = utf8Encode(canonicalJson(header));
  const key = await kdf.deriveKey(backupPassword, salt);
  const plain = utf8Encode(canonicalJson(payload));
  try {
    const nonce = random.randomBytes(NONCE_BYTES);
    const sealed = xchacha20poly1305(key, nonce, headerBytes).encrypt(plain);
    return concatBytes(headerBytes, Uint8Array.of(NEWLINE), nonce, sealed);
  } finally {
    wipe(key, plain);
  }
}

function parseHeader(bytes: Uint8Array): BackupHeader {
  let value: unknown;
  try {
    value = JSON.parse(utf8DecodeStrict(bytes) ?? '');
  } catch {
    throw serviceError('corrupt', 'backup header is not JSON');
  }
  const h = value as Partial<BackupHeader> | null;
  if (typeof h !== 'object' || h === null || h.format !== BACKUP_FORMAT)
    throw serviceError('corrupt', 'not an arslan backup');
  if (h.version !== BACKUP_VERSION) throw serviceError('corrupt', 'unsupported backup version');
  if (canonicalJson(h.kdf) !== canonicalJson(ARGON2ID_PARAMS))
    throw serviceError('corrupt', 'unsupported backup kdf parameters');
  if (typeof h.salt !== 'string' || !/^[0-9a-f]{32}$/.test(h.salt))
    throw serviceError('corrupt', 'backup salt');
  if (canonicalJson(h) !== utf8DecodeStrict(bytes))
    throw serviceError('corrupt', 'backup header not canonical');
  return h as BackupHeader;
}

/** Decrypts backup file bytes. Wrong password or any changed byte → `bad_password`. */
export async function openBackup(
  file: Uint8Array,
  backupPassword: Uint8Array,
  kdf: PasswordKdf,
): Promise<unknown> {
  const newline = file.indexOf(NEWLINE);
  if (newline <= 0 || newline > 4096) throw serviceError('corrupt', 'backup header missing');
  const headerBytes = file.slice(0, newline);
  const header = parseHeader(headerBytes);
  const body = file.subarray(newline + 1);
  if (body.length < NONCE_BYTES + 16) throw serviceError('corrupt', 'backup too short');
  const key = await kdf.deriveKey(backupPassword, hexToBytes(header.salt));
  let plain: Uint8Array;
  try {
    plain = xchacha20poly1305(key, body.subarray(0, NONCE_BYTES), headerBytes).decrypt(
      body.subarray(NONCE_BYTES),
    );
  } catch {
    throw serviceError('bad_password', 'wrong backup password or damaged backup');
  } finally {
    wipe(key);
  }
  try {
    return JSON.parse(utf8DecodeStrict(plain) ?? '');
  } catch {
    throw serviceError('corrupt', 'backup payload is not JSON');
  } finally {
    wipe(plain);
  }
}

/**
 * Temp file in the target's directory (mode 0600, fsynced), then link(2) to the target
 * (EEXIST → `bad_request`: never overwrite), temp name removed, directory fsynced.
 */
export function writeFileNoOverwrite(target: string, bytes: Uint8Array, random: RandomSource): void {
  const dir = path.dirname(target);
  if (fs.existsSync(target)) throw serviceError('bad_request', 'the backup target already exists');
  const tmp = path.join(dir, `.${path.basename(target)}.tmp-${bytesToHex(random.randomBytes(8))}`);
  try {
    const fd = fs.openSync(tmp, 'wx', 0o600);
    try {
      fs.writeSync(fd, bytes);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.linkSync(tmp, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw serviceError('bad_request', 'the backup target already exists');
    throw serviceError('io_failed', 'writing the backup failed');
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  fsyncDirectory(dir);
}
