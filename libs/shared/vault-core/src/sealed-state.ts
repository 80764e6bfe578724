// VAULT-2/3/6/11: every `state` and `checkpoints` value is XChaCha20-Poly1305 under the
// master key, with AAD `memories/<table>/<purpose>/v1` (table + row purpose + format version).
import { utf8Encode } from '@arslan/util';
import { aeadOpen, aeadSeal } from './aead';
import { KEY_BYTES, SEALED_OVERHEAD_BYTES, VAULT_FORMAT_VERSION } from './format-constants';
import { assertBytes } from './input-guards';
import { type RandomSource, systemRandom } from './ports';
import { VaultFormatError } from './vault-core.errors';

export const SEALED_TABLES = ['state', 'checkpoints', 'revisions'] as const;
export type SealedTable = (typeof SEALED_TABLES)[number];

export interface SealedValueLabel {
  table: SealedTable;
  /** Row purpose: 1-64 of [a-z0-9_.-] (no `/`, so the AAD string is unambiguous). */
  purpose: string;
}

const PURPOSE_RE = /^[a-z0-9_.-]{1,64}$/;

/** The exact AAD string of a label, e.g. `memories/state/vault-state/v1`. */
export function sealedValueAad(label: SealedValueLabel): string {
  if (typeof label !== 'object' || label === null)
    throw new VaultFormatError('malformed', 'label must be an object');
  if (!(SEALED_TABLES as readonly string[]).includes(label.table))
    throw new VaultFormatError('malformed', 'label.table must be state, checkpoints or revisions');
  if (typeof label.purpose !== 'string' || !PURPOSE_RE.test(label.purpose))
    throw new VaultFormatError('malformed', 'label.purpose must match [a-z0-9_.-]{1,64}');
  return `memories/${label.table}/${label.purpose}/v${VAULT_FORMAT_VERSION}`;
}

/** nonce(24) || ciphertext || tag(16). */
export function sealState(
  masterKey: Uint8Array,
  plaintext: Uint8Array,
  label: SealedValueLabel,
  random: RandomSource = systemRandom,
): Uint8Array {
  assertBytes(masterKey, 'masterKey', KEY_BYTES);
  assertBytes(plaintext, 'plaintext');
  return aeadSeal(masterKey, plaintext, utf8Encode(sealedValueAad(label)), random);
}

/** The plaintext, or `tampered` for any changed byte, other key or other label. */
export function openState(masterKey: Uint8Array, sealed: Uint8Array, label: SealedValueLabel): Uint8Array {
  assertBytes(masterKey, 'masterKey', KEY_BYTES);
  assertBytes(sealed, 'sealed');
  const aad = utf8Encode(sealedValueAad(label));
  if (sealed.length < SEALED_OVERHEAD_BYTES)
    throw new VaultFormatError('malformed', 'sealed value too short');
  const plaintext = aeadOpen(masterKey, sealed, aad);
  if (!plaintext) throw new VaultFormatError('tampered', `sealed ${label.table} value`);
  return plaintext;
}
