// Verifying a vault's policy history (POL-1, POL-3, POL-9, POL-10, DEV-5).
// Every entry is checked against the roles of the entry before it; a failure
// anywhere rejects the whole input and returns nothing partial.
import { verifyBytes } from './policy-crypto';
import { policyEntryHashUnchecked, policySigningBytes } from './policy-encoding';
import { parsePolicyEntry, type PolicyEntry } from './policy-entry';
import { PolicyError } from './policy.errors';
import { checkGenesis, checkLink, checkTransition } from './policy-rules';
import { deepFreeze, isHex32, isVaultId } from './validation';

export interface VerifyPolicyOptions {
  /** Reject a history for any other vault. */
  readonly expectedVaultId?: string;
  /**
   * Pin the genesis entry (trust anchor). Without it a history proves only its
   * own consistency: anyone can write a self-consistent genesis for any vault id.
   */
  readonly expectedGenesisHash?: string;
}

export interface VerifiedPolicyHistory {
  readonly vaultId: string;
  readonly genesisHash: string;
  /** The policy head: the latest entry, which every revision signs. */
  readonly head: PolicyEntry;
  readonly headHash: string;
  readonly entries: readonly PolicyEntry[];
}

function checkSignature(entry: PolicyEntry): void {
  if (!verifyBytes(entry.signature, policySigningBytes(entry, entry.signer), entry.signer)) {
    throw new PolicyError('bad_signature', `entry ${entry.seq} is not signed by ${entry.signer}`);
  }
}

/**
 * Verifies one new entry on top of a trusted predecessor: link, signature by
 * the signer's identity key, then the rules against the predecessor's roles.
 * Returns the parsed, frozen `next`.
 */
export function verifyPolicyTransition(prev: PolicyEntry, next: unknown): PolicyEntry {
  const before = parsePolicyEntry(prev);
  const after = parsePolicyEntry(next);
  const prevHash = policyEntryHashUnchecked(before);
  checkLink(before, prevHash, after);
  checkSignature(after);
  checkTransition(before, prevHash, after, after.signer);
  return after;
}

/** Verifies a complete history from its genesis entry. Throws `PolicyError`. */
export function verifyPolicyHistory(
  entries: readonly unknown[],
  options: VerifyPolicyOptions = {},
): VerifiedPolicyHistory {
  if (!Array.isArray(entries) || entries.length === 0) {
    throw new PolicyError('malformed', 'a policy history is a non-empty array of entries');
  }
  const { expectedVaultId, expectedGenesisHash } = options;
  if (expectedVaultId !== undefined && !isVaultId(expectedVaultId)) {
    throw new PolicyError('malformed', 'expectedVaultId is not a vault id');
  }
  if (expectedGenesisHash !== undefined && !isHex32(expectedGenesisHash)) {
    throw new PolicyError('malformed', 'expectedGenesisHash must be 64 hex');
  }
  const genesis = parsePolicyEntry(entries[0]);
  if (genesis.seq !== 0 || genesis.prevHash !== null) {
    throw new PolicyError('broken_chain', 'a history starts with its genesis entry (seq 0)');
  }
  const genesisHash = policyEntryHashUnchecked(genesis);
  if (expectedVaultId !== undefined && genesis.vaultId !== expectedVaultId) {
    throw new PolicyError('untrusted_genesis', `history is for vault ${genesis.vaultId}`);
  }
  if (expectedGenesisHash !== undefined && genesisHash !== expectedGenesisHash) {
    throw new PolicyError('untrusted_genesis', 'genesis hash does not match the pinned hash');
  }
  checkSignature(genesis);
  checkGenesis(genesis, genesis.signer);

  const verified: PolicyEntry[] = [genesis];
  let head = genesis;
  let headHash = genesisHash;
  for (let i = 1; i < entries.length; i++) {
    const next = parsePolicyEntry(entries[i]);
    checkLink(head, headHash, next);
    checkSignature(next);
    checkTransition(head, headHash, next, next.signer);
    verified.push(next);
    head = next;
    headHash = policyEntryHashUnchecked(next);
  }
  return deepFreeze({ vaultId: genesis.vaultId, genesisHash, head, headHash, entries: verified });
}
