// Associated data of every wrap and chunk (README.md, "Associated data").
import { concatBytes, u32be } from '@arslan/util';
import { domainTag, lengthPrefixed } from './canonical-encoding';
import { CHUNK_AAD_TAG, DATA_KEY_AAD_TAG, EPOCH_KEY_AAD_TAG } from './format-constants';

/** VAULT-7: binds a wrapped epoch key to its vault and epoch number. */
export function epochKeyAad(vaultId: Uint8Array, epoch: number): Uint8Array {
  return concatBytes(domainTag(EPOCH_KEY_AAD_TAG), lengthPrefixed(vaultId), u32be(epoch));
}

/** VAULT-8: binds a wrapped data key to vault, epoch, asset and the revision's content nonce. */
export function dataKeyAad(
  vaultId: Uint8Array,
  epoch: number,
  assetId: Uint8Array,
  contentNonce: Uint8Array,
): Uint8Array {
  return concatBytes(
    domainTag(DATA_KEY_AAD_TAG),
    lengthPrefixed(vaultId),
    u32be(epoch),
    lengthPrefixed(assetId),
    contentNonce,
  );
}

/** VAULT-9: binds a chunk to its revision, its position and the total chunk count. */
export function chunkAad(
  vaultId: Uint8Array,
  assetId: Uint8Array,
  contentNonce: Uint8Array,
  index: number,
  count: number,
): Uint8Array {
  return concatBytes(
    domainTag(CHUNK_AAD_TAG),
    lengthPrefixed(vaultId),
    lengthPrefixed(assetId),
    contentNonce,
    u32be(index),
    u32be(count),
  );
}
