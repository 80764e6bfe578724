// Producing signed entries: the genesis entry and raw signing of a body.
// Signing does NOT authorize: `proposePolicyChange` and the verifier do.
import { memberIdFromSeed, signBytes } from './policy-crypto';
import { PolicyError } from './policy.errors';
import { isPlainObject } from './validation';
import { policySigningBytes } from './policy-encoding';
import {
  canonicalizeBody,
  parsePolicyBody,
  parsePolicyEntry,
  type PolicyBody,
  type PolicyEntry,
} from './policy-entry';

/**
 * Signs any well-formed body with the identity key `signerSeed`. Lists are put
 * into canonical order first; everything else is validated, never repaired.
 */
export function signPolicyEntry(body: PolicyBody, signerSeed: Uint8Array): PolicyEntry {
  const parsed = parsePolicyBody(canonicalizeBody(body));
  const signer = memberIdFromSeed(signerSeed);
  const signature = signBytes(policySigningBytes(parsed, signer), signerSeed);
  return parsePolicyEntry({ ...parsed, signer, signature });
}

export interface GenesisInput {
  readonly vaultId: string;
  /** The single Owner: its display name and its initial device allow-list. */
  readonly owner: { readonly name: string; readonly devices?: readonly string[] };
  /** The Owner's 32-byte identity seed; the member id is its public key. */
  readonly ownerSeed: Uint8Array;
}

/** Entry 0 of a vault's history: seq 0, no previous hash, epoch 0, one Owner who signs it. */
export function createGenesisPolicy(input: GenesisInput): PolicyEntry {
  if (!isPlainObject(input) || !isPlainObject(input.owner)) {
    throw new PolicyError('malformed', 'genesis input needs vaultId, owner and ownerSeed');
  }
  const devices: unknown = input.owner.devices ?? [];
  if (!Array.isArray(devices)) throw new PolicyError('malformed', 'owner devices must be an array');
  const id = memberIdFromSeed(input.ownerSeed);
  const owner = {
    id,
    name: input.owner.name,
    role: 'owner' as const,
    devices: [...(devices as string[])],
    selfEnrollment: true,
  };
  return signPolicyEntry(
    { vaultId: input.vaultId, seq: 0, prevHash: null, epoch: 0, members: [owner], revoked: [] },
    input.ownerSeed,
  );
}
