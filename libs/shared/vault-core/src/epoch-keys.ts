// VAULT-7/8: one random key per permission epoch (wrapped by the master key) and one
// random data key per revision (wrapped by its epoch key).
import { aeadOpen, aeadSeal, randomKey } from './aead';
import { CONTENT_NONCE_BYTES, KEY_BYTES, WRAPPED_KEY_BYTES } from './format-constants';
import { assertBytes, assertEpoch, idBytes } from './input-guards';
import { dataKeyAad, epochKeyAad } from './key-binding';
import { type RandomSource, systemRandom } from './ports';
import { VaultFormatError } from './vault-core.errors';

export interface CreatedEpochKey {
  /** Owned by the caller: wipe() it when released (VAULT-19). */
  epochKey: Uint8Array;
  /** Store this; AAD binds vault id and epoch. */
  wrappedEpochKey: Uint8Array;
}

export function createEpochKey(
  masterKey: Uint8Array,
  vaultId: string,
  epoch: number,
  random: RandomSource = systemRandom,
): CreatedEpochKey {
  assertBytes(masterKey, 'masterKey', KEY_BYTES);
  const aad = epochKeyAad(idBytes(vaultId, 'vaultId'), assertEpoch(epoch));
  const epochKey = randomKey(random);
  return { epochKey, wrappedEpochKey: aeadSeal(masterKey, epochKey, aad, random) };
}

/** The epoch key, or `tampered` (wrong key, wrong vault/epoch, or any changed byte). */
export function unwrapEpochKey(
  masterKey: Uint8Array,
  vaultId: string,
  epoch: number,
  wrappedEpochKey: Uint8Array,
): Uint8Array {
  assertBytes(masterKey, 'masterKey', KEY_BYTES);
  const aad = epochKeyAad(idBytes(vaultId, 'vaultId'), assertEpoch(epoch));
  assertBytes(wrappedEpochKey, 'wrappedEpochKey', WRAPPED_KEY_BYTES);
  const key = aeadOpen(masterKey, wrappedEpochKey, aad);
  if (!key) throw new VaultFormatError('tampered', 'wrapped epoch key');
  return key;
}

export interface DataKeyBinding {
  vaultId: string;
  epoch: number;
  assetId: string;
  /** CONTENT_NONCE_BYTES random bytes chosen when the revision is written. */
  contentNonce: Uint8Array;
}

function bindingAad(binding: DataKeyBinding): Uint8Array {
  return dataKeyAad(
    idBytes(binding.vaultId, 'vaultId'),
    assertEpoch(binding.epoch),
    idBytes(binding.assetId, 'assetId'),
    assertBytes(binding.contentNonce, 'contentNonce', CONTENT_NONCE_BYTES),
  );
}

export function wrapDataKey(
  epochKey: Uint8Array,
  dataKey: Uint8Array,
  binding: DataKeyBinding,
  random: RandomSource = systemRandom,
): Uint8Array {
  assertBytes(epochKey, 'epochKey', KEY_BYTES);
  assertBytes(dataKey, 'dataKey', KEY_BYTES);
  return aeadSeal(epochKey, dataKey, bindingAad(binding), random);
}

export function unwrapDataKey(
  epochKey: Uint8Array,
  wrappedDataKey: Uint8Array,
  binding: DataKeyBinding,
): Uint8Array {
  assertBytes(epochKey, 'epochKey', KEY_BYTES);
  assertBytes(wrappedDataKey, 'wrappedDataKey', WRAPPED_KEY_BYTES);
  const key = aeadOpen(epochKey, wrappedDataKey, bindingAad(binding));
  if (!key) throw new VaultFormatError('tampered', 'wrapped data key');
  return key;
}
