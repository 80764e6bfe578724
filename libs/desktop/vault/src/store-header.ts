// VAULT-1/2: the clear `header` row (format version, KDF params, salt, wrapped master key).
import { bytesToHex } from '@arslan/util';
import { type KeyringHeader, VAULT_FORMAT_VERSION, parseKeyringHeader } from '@arslan/vault-core';
import type Database from 'better-sqlite3';
import { VaultStoreError } from './vault-store.errors';

interface HeaderRow {
  format_version: unknown;
  kdf: unknown;
  salt: unknown;
  wrapped_master_key: unknown;
}

export function readHeader(db: Database.Database): KeyringHeader {
  const row = db
    .prepare('SELECT format_version, kdf, salt, wrapped_master_key FROM header WHERE id = 1')
    .get() as HeaderRow | undefined;
  if (!row) throw new VaultStoreError('corrupt', 'no header row');
  // VAULT-1: the version decides before anything else is interpreted.
  if (row.format_version !== VAULT_FORMAT_VERSION)
    throw new VaultStoreError('unsupported_version', `format_version ${String(row.format_version)}`);
  if (typeof row.kdf !== 'string' || !Buffer.isBuffer(row.salt) || !Buffer.isBuffer(row.wrapped_master_key))
    throw new VaultStoreError('corrupt', 'header column types');
  let kdf: unknown;
  try {
    kdf = JSON.parse(row.kdf);
  } catch {
    throw new VaultStoreError('corrupt', 'header kdf is not JSON');
  }
  return parseKeyringHeader({
    format_version: row.format_version,
    kdf,
    salt: bytesToHex(row.salt),
    wrapped_master_key: bytesToHex(row.wrapped_master_key),
  });
}
