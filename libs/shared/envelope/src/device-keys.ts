import { bytesToHex } from '@arslan/util';
import type { EnvelopeCrypto } from './crypto-backend';
import { assertKey } from './key-assertions';
import { KEY_BYTES } from './limits';
import { lps } from './length-prefix';

/** fingerprint = hex(SHA-256(lps("arslan-device/v1", ed25519_pub, x25519_pub))): the device id. */
export function deviceFingerprint(
  crypto: EnvelopeCrypto,
  signingPublicKey: Uint8Array,
  exchangePublicKey: Uint8Array,
): string {
  assertKey(signingPublicKey, KEY_BYTES, 'signingPublicKey');
  assertKey(exchangePublicKey, KEY_BYTES, 'exchangePublicKey');
  return bytesToHex(crypto.sha256(lps('arslan-device/v1', signingPublicKey, exchangePublicKey)));
}

export interface DeviceKeys {
  signingSeed: Uint8Array;
  signingPublicKey: Uint8Array;
  exchangePrivateKey: Uint8Array;
  exchangePublicKey: Uint8Array;
  fingerprint: string;
}

/** Fresh, independent device keys (DEV-3). */
export function generateDeviceKeys(crypto: EnvelopeCrypto): DeviceKeys {
  return deviceKeysFromSecrets(crypto, crypto.randomBytes(KEY_BYTES), crypto.randomBytes(KEY_BYTES));
}

export function deviceKeysFromSecrets(
  crypto: EnvelopeCrypto,
  signingSeed: Uint8Array,
  exchangePrivateKey: Uint8Array,
): DeviceKeys {
  assertKey(signingSeed, KEY_BYTES, 'signingSeed');
  assertKey(exchangePrivateKey, KEY_BYTES, 'exchangePrivateKey');
  const signingPublicKey = crypto.ed25519PublicKey(signingSeed);
  const exchangePublicKey = crypto.x25519PublicKey(exchangePrivateKey);
  return {
    signingSeed,
    signingPublicKey,
    exchangePrivateKey,
    exchangePublicKey,
    fingerprint: deviceFingerprint(crypto, signingPublicKey, exchangePublicKey),
  };
}
