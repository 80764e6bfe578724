// Device fingerprints and the device certificate kept in the service state (DEV-1/2).
import { bytesToHex, concatBytes, hexToBytes, u32be, utf8Encode } from '@arslan/util';
import type { DeviceCertificate, DeviceCertificateJson } from '@arslan/vault-core';
import { sha256 } from '@noble/hashes/sha2.js';

function lp(bytes: Uint8Array): Uint8Array {
  return concatBytes(u32be(bytes.length), bytes);
}

/**
 * The device id used in policy allow-lists: hex(SHA-256(lps("arslan-device/v1",
 * ed25519_pub, x25519_pub))) — byte-identical to `@arslan/envelope`'s deviceFingerprint.
 */
export function deviceFingerprintOf(signingPublicKey: Uint8Array, exchangePublicKey: Uint8Array): string {
  return bytesToHex(
    sha256(concatBytes(lp(utf8Encode('arslan-device/v1')), lp(signingPublicKey), lp(exchangePublicKey))),
  );
}

export function certificateFingerprint(cert: DeviceCertificate): string {
  return deviceFingerprintOf(cert.device_signing_key, cert.device_exchange_key);
}

export function certificateToJson(c: DeviceCertificate): DeviceCertificateJson {
  return {
    user_key: bytesToHex(c.user_key),
    device_signing_key: bytesToHex(c.device_signing_key),
    device_exchange_key: bytesToHex(c.device_exchange_key),
    created_at: c.created_at,
    signature: bytesToHex(c.signature),
  };
}

export function certificateFromJson(c: DeviceCertificateJson): DeviceCertificate {
  return {
    user_key: hexToBytes(c.user_key),
    device_signing_key: hexToBytes(c.device_signing_key),
    device_exchange_key: hexToBytes(c.device_exchange_key),
    created_at: c.created_at,
    signature: hexToBytes(c.signature),
  };
}
