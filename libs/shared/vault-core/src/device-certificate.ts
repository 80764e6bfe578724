// DEV-1/2: the user identity key certifies a device's Ed25519 signing key and X25519
// exchange key. A valid certificate alone never admits a device (see verifyRevision).
import { concatBytes } from '@arslan/util';
import { domainTag, u64be } from './canonical-encoding';
import {
  DEVICE_CERTIFICATE_TAG,
  ED25519_KEY_BYTES,
  SIGNATURE_BYTES,
  X25519_KEY_BYTES,
} from './format-constants';
import { assertBytes } from './input-guards';
import { ed25519PublicKey, ed25519Sign, ed25519Verify } from './signing';
import { VaultFormatError } from './vault-core.errors';

export interface DeviceCertificate {
  user_key: Uint8Array;
  device_signing_key: Uint8Array;
  device_exchange_key: Uint8Array;
  /** Milliseconds since the Unix epoch, a non-negative safe integer. */
  created_at: number;
  /** Ed25519 by user_key over deviceCertificateSignedBytes. */
  signature: Uint8Array;
}

export interface DeviceCertificateInput {
  deviceSigningKey: Uint8Array;
  deviceExchangeKey: Uint8Array;
  createdAt: number;
}

function assertCreatedAt(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new VaultFormatError('malformed', 'created_at must be a non-negative safe integer');
  return value;
}

/** Shape check of every field (lengths and types); `malformed` otherwise. */
export function assertCertificateShape(cert: unknown): DeviceCertificate {
  if (typeof cert !== 'object' || cert === null) throw new VaultFormatError('malformed', 'certificate');
  const c = cert as DeviceCertificate;
  assertBytes(c.user_key, 'certificate.user_key', ED25519_KEY_BYTES);
  assertBytes(c.device_signing_key, 'certificate.device_signing_key', ED25519_KEY_BYTES);
  assertBytes(c.device_exchange_key, 'certificate.device_exchange_key', X25519_KEY_BYTES);
  assertCreatedAt(c.created_at);
  assertBytes(c.signature, 'certificate.signature', SIGNATURE_BYTES);
  return c;
}

/** tag("memories/device-certificate/v1") || user_key(32) || device_signing_key(32) || device_exchange_key(32) || u64be(created_at) */
export function deviceCertificateSignedBytes(
  userKey: Uint8Array,
  deviceSigningKey: Uint8Array,
  deviceExchangeKey: Uint8Array,
  createdAt: number,
): Uint8Array {
  return concatBytes(
    domainTag(DEVICE_CERTIFICATE_TAG),
    userKey,
    deviceSigningKey,
    deviceExchangeKey,
    u64be(createdAt),
  );
}

/** Signed bytes followed by the signature: the certificate's place in revision bytes. */
export function encodeDeviceCertificate(cert: DeviceCertificate): Uint8Array {
  const c = assertCertificateShape(cert);
  return concatBytes(
    deviceCertificateSignedBytes(c.user_key, c.device_signing_key, c.device_exchange_key, c.created_at),
    c.signature,
  );
}

export function issueDeviceCertificate(
  userSeed: Uint8Array,
  input: DeviceCertificateInput,
): DeviceCertificate {
  assertBytes(userSeed, 'userSeed', ED25519_KEY_BYTES);
  if (typeof input !== 'object' || input === null) throw new VaultFormatError('malformed', 'input');
  const deviceSigningKey = assertBytes(input.deviceSigningKey, 'deviceSigningKey', ED25519_KEY_BYTES);
  const deviceExchangeKey = assertBytes(input.deviceExchangeKey, 'deviceExchangeKey', X25519_KEY_BYTES);
  const createdAt = assertCreatedAt(input.createdAt);
  const userKey = ed25519PublicKey(userSeed);
  const signed = deviceCertificateSignedBytes(userKey, deviceSigningKey, deviceExchangeKey, createdAt);
  return {
    user_key: userKey,
    device_signing_key: deviceSigningKey.slice(),
    device_exchange_key: deviceExchangeKey.slice(),
    created_at: createdAt,
    signature: ed25519Sign(userSeed, signed),
  };
}

/** DEV-1: `bad_certificate` unless the user key's signature verifies; `malformed` for bad shapes. */
export function verifyDeviceCertificate(cert: DeviceCertificate): void {
  const c = assertCertificateShape(cert);
  const signed = deviceCertificateSignedBytes(
    c.user_key,
    c.device_signing_key,
    c.device_exchange_key,
    c.created_at,
  );
  if (!ed25519Verify(c.user_key, signed, c.signature)) throw new VaultFormatError('bad_certificate');
}
