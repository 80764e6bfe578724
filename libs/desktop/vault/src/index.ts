// Public API of @arslan/desktop-vault: the vault store on better-sqlite3 (platform:node).
export {
  VAULT_STORE_ERROR_CODES,
  type VaultStoreErrorCode,
  VaultStoreError,
  isVaultStoreError,
} from './vault-store.errors';
export { argon2idKdf, assertArgon2idParams } from './argon2-kdf';
export { type JsonValue, type JsonObject, canonicalJson } from './canonical-json';
export { LOCK_FILE_NAME, type DirectoryLock, acquireDirectoryLock } from './directory-lock';
export { STORE_FILE_NAME, storePath } from './store-schema';
export { type InitStoreOptions, initStore } from './store-init';
export {
  AUDIT_GENESIS_HASH,
  type AuditEntry,
  type AuditEntryType,
  type AuditRecord,
  type AuditProblem,
  type AuditVerification,
  verifyAuditRecords,
} from './audit-chain';
export { type OpenStoreOptions, type SqliteDurability, VaultStore, openStore } from './vault-store';
export {
  VaultServiceError,
  type VaultServiceState,
  type VaultService,
  type CardSurface,
  type GrantVaultContext,
  type IndexSource,
  type IndexSourceStamp,
  type IndexSources,
} from './vault-service.port';
export { type SealedRowInput, type CommitOptions } from './vault-store';
export {
  type VaultServiceOptions,
  type LoadedRevision,
  LocalVaultService,
  createVaultService,
} from './vault-service';
export { toServiceError } from './vault-service.errors';
export { unifiedDiff } from './text-diff';
export { deviceFingerprintOf } from './device-identity';
export { BACKUP_FORMAT, BACKUP_VERSION, type BackupHeader } from './backup-envelope';
export { nodeEd25519, useNodeEd25519 } from './node-ed25519';
