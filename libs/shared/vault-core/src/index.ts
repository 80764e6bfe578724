// Public API of @arslan/vault-core (vault storage format v1). platform:any: no node: imports.
export {
  VAULT_FORMAT_ERROR_CODES,
  type VaultFormatErrorCode,
  VaultFormatError,
  isVaultFormatError,
} from './vault-core.errors';
export {
  VAULT_FORMAT_VERSION,
  ARGON2ID_PARAMS,
  type Argon2idParams,
  KEY_BYTES,
  NONCE_BYTES,
  TAG_BYTES,
  SALT_BYTES,
  WRAPPED_KEY_BYTES,
  CONTENT_NONCE_BYTES,
  CHUNK_SIZE,
  MASTER_KEY_AAD,
  EPOCH_KEY_AAD_TAG,
  DATA_KEY_AAD_TAG,
  CHUNK_AAD_TAG,
  REVISION_SIGNATURE_TAG,
  DEVICE_CERTIFICATE_TAG,
  MAX_ID_BYTES,
  MAX_PARENTS,
} from './format-constants';
export { type PasswordKdf, type RandomSource, systemRandom } from './ports';
export { type VaultCipherProvider, nobleCipher, setCipherProvider } from './cipher-provider';
export {
  type KeyringHeader,
  type CreatedKeyring,
  parseKeyringHeader,
  createKeyring,
  unlockKeyring,
} from './keyring';
export {
  type CreatedEpochKey,
  type DataKeyBinding,
  createEpochKey,
  unwrapEpochKey,
  wrapDataKey,
  unwrapDataKey,
} from './epoch-keys';
export {
  SEALED_TABLES,
  type SealedTable,
  type SealedValueLabel,
  sealedValueAad,
  sealState,
  openState,
} from './sealed-state';
export { type ChunkBinding, chunkCount, encryptContent, decryptContent } from './content-chunks';
export {
  type UserIdentityKeys,
  type DeviceKeys,
  generateUserIdentity,
  generateDeviceKeys,
  type Ed25519Provider,
  nobleEd25519,
  setEd25519Provider,
  ed25519Sign,
  ed25519Verify,
  ed25519PublicKey,
} from './signing';
export {
  type DeviceCertificate,
  type DeviceCertificateInput,
  deviceCertificateSignedBytes,
  issueDeviceCertificate,
  verifyDeviceCertificate,
} from './device-certificate';
export {
  type RevisionRecord,
  type RevisionSigner,
  type WriteRevisionInput,
  type RevisionKeyContext,
  type VerifyRevisionOptions,
  revisionSignedBytes,
  revisionIdOf,
  writeRevision,
  verifyRevision,
  openRevisionContent,
  readRevision,
} from './revision';
export {
  type RevisionJson,
  type DeviceCertificateJson,
  revisionToJson,
  parseRevisionJson,
} from './revision-json';
export {
  type RevisionRowFields,
  REVISION_BINARY_VERSION,
  REVISION_ROW_VERSION,
  revisionToBinary,
  parseRevisionBinary,
  encodeRevisionRow,
  decodeRevisionRow,
} from './revision-binary';
export {
  type RevisionNode,
  type AssetState,
  type AssetView,
  assetHeads,
  isConflicted,
  assetState,
  currentView,
  appendRevision,
  checkResolution,
  createResolution,
} from './asset-dag';
export {
  type VectorResult,
  type KeyringVectorCase,
  type SealedStateVectorCase,
  type EpochKeyVectorCase,
  type RevisionVectorCase,
  type RevisionRowVectorCase,
  type VaultVectorCase,
  type VaultVectorOutcome,
  checkVaultVectorCase,
  parseVaultVectorFile,
} from './vector-case';
