// VAULT-16: creating a new store.
import fs from 'node:fs';
import path from 'node:path';
import { bytesToHex, concatBytes, utf8Encode, wipe } from '@arslan/util';
import {
  type PasswordKdf,
  type RandomSource,
  createKeyring,
  generateDeviceKeys,
  sealState,
  systemRandom,
} from '@arslan/vault-core';
import Database from 'better-sqlite3';
import { AUDIT_GENESIS_HASH } from './audit-chain';
import { canonicalJson, isJsonObject, type JsonObject } from './canonical-json';
import { acquireDirectoryLock } from './directory-lock';
import { fsyncFile, publishWithoutOverwrite } from './durable-fs';
import {
  DEVICE_KEYS_LABEL,
  HEAD_CHECKPOINT_LABEL,
  SCHEMA_SQL,
  STATE_LABEL,
  STORE_FILE_NAME,
  applyDurabilityPragmas,
  storePath,
} from './store-schema';
import { type HeadCheckpoint, assertPassword, sealJson, sha256Hex } from './sealed-values';
import { VaultStoreError, toStoreError } from './vault-store.errors';
import { useNodeEd25519 } from './node-ed25519';

export interface InitStoreOptions {
  /** The first committed state (generation 0); `{}` by default. */
  initialState?: JsonObject;
  random?: RandomSource;
}

/**
 * VAULT-16: builds the complete database in a temp file next to the target, closes
 * and fsyncs it, then publishes it with link(2) (never overwrites: `store_exists`),
 * removes the temp name and fsyncs the directory. Holds the directory lock throughout.
 */
export async function initStore(
  dir: string,
  password: Uint8Array,
  kdf: PasswordKdf,
  options: InitStoreOptions = {},
): Promise<{ path: string }> {
  useNodeEd25519();
  assertPassword(password);
  const initial = options.initialState ?? {};
  if (!isJsonObject(initial)) throw new VaultStoreError('invalid_argument', 'initialState must be an object');
  const initialText = canonicalJson(initial);
  const random = options.random ?? systemRandom;
  const target = storePath(dir);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new VaultStoreError('io_failed', 'cannot create the data directory', { cause: error });
  }
  const lock = acquireDirectoryLock(dir);
  let tmp: string | undefined;
  const secrets: Uint8Array[] = [];
  try {
    if (fs.existsSync(target) || isSymlink(target)) throw new VaultStoreError('store_exists');
    const { header, masterKey } = await createKeyring(kdf, password, random);
    secrets.push(masterKey);
    const device = generateDeviceKeys(random);
    secrets.push(device.signingSeed, device.exchangePrivateKey);
    const deviceSecret = concatBytes(device.signingSeed, device.exchangePrivateKey);
    secrets.push(deviceSecret);

    const statePlain = utf8Encode(canonicalJson({ generation: 0, value: JSON.parse(initialText) }));
    const checkpoint: HeadCheckpoint = {
      generation: 0,
      state_sha256: sha256Hex(statePlain),
      audit_count: 0,
      audit_head: AUDIT_GENESIS_HASH,
    };
    const sealedState = sealState(masterKey, statePlain, STATE_LABEL, random);
    wipe(statePlain);
    const sealedDevice = sealState(masterKey, deviceSecret, DEVICE_KEYS_LABEL, random);
    const sealedCheckpoint = sealJson(masterKey, checkpoint, HEAD_CHECKPOINT_LABEL, random);

    tmp = path.join(dir, `.${STORE_FILE_NAME}.init-${bytesToHex(random.randomBytes(8))}`);
    const db = new Database(tmp);
    try {
      applyDurabilityPragmas(db);
      db.exec(SCHEMA_SQL);
      db.transaction(() => {
        db.prepare(
          'INSERT INTO header (id, format_version, kdf, salt, wrapped_master_key) VALUES (1, ?, ?, ?, ?)',
        ).run(
          header.format_version,
          canonicalJson(header.kdf),
          Buffer.from(header.salt, 'hex'),
          Buffer.from(header.wrapped_master_key, 'hex'),
        );
        const insertState = db.prepare('INSERT INTO state (purpose, value) VALUES (?, ?)');
        insertState.run(DEVICE_KEYS_LABEL.purpose, sealedDevice);
        insertState.run(STATE_LABEL.purpose, sealedState);
        db.prepare('INSERT INTO checkpoints (purpose, value) VALUES (?, ?)').run(
          HEAD_CHECKPOINT_LABEL.purpose,
          sealedCheckpoint,
        );
      }).immediate();
    } finally {
      db.close();
    }
    fs.chmodSync(tmp, 0o600);
    fsyncFile(tmp);
    const published = tmp;
    tmp = undefined;
    publishWithoutOverwrite(published, target, dir);
    return { path: target };
  } catch (error) {
    throw toStoreError(error, 'io_failed', 'initializing the store failed');
  } finally {
    if (tmp) {
      fs.rmSync(tmp, { force: true });
      fs.rmSync(`${tmp}-journal`, { force: true });
    }
    wipe(...secrets);
    lock.release();
  }
}

function isSymlink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}
