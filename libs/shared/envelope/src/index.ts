// Public API of @arslan/envelope (envelope-format.md v1). platform:any: no node: imports.
export { type EnvelopeCrypto } from './crypto-backend';
export { nobleCrypto } from './noble-crypto';
export {
  PROFILE_FIELDS,
  ENVELOPE_PROFILES,
  type EnvelopeProfile,
  isEnvelopeProfile,
  profileFields,
} from './profiles';
export {
  ENVELOPE_ERROR_CODES,
  type EnvelopeErrorCode,
  EnvelopeError,
  isEnvelopeError,
} from './envelope.errors';
export {
  KEY_BYTES,
  SIGNATURE_BYTES,
  TAG_BYTES,
  MAX_HEADER_VALUE_BYTES,
  DEFAULT_MAX_CIPHERTEXT_BYTES,
  MAX_ATTACHMENT_BYTES,
} from './limits';
export { type EnvelopeWire, parseWireText } from './wire';
export { type JsonObject, buildPlaintext, headerObject } from './plaintext';
export { type SealInput, sealEnvelope } from './seal';
export { type OpenOptions, type OpenedEnvelope, openEnvelope, openEnvelopeText } from './open';
export { type DeviceKeys, deviceFingerprint, generateDeviceKeys, deviceKeysFromSecrets } from './device-keys';
export {
  type AttachmentDescriptor,
  type SealedAttachment,
  parseAttachmentDescriptor,
  sealAttachment,
  openAttachment,
} from './attachments';
export {
  type EnvelopeVectorCase,
  type AttachmentVectorCase,
  type VectorCase,
  type VectorOutcome,
  parseVectorFile,
  checkVectorCase,
} from './vector-case';
export { type PrimitiveVectorKind, primitiveVectorKind, checkPrimitiveVectorFile } from './primitive-vectors';
