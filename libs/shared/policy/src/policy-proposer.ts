// Proposing a change: apply, authorize against the previous entry's roles,
// then sign. An entry this returns always passes `verifyPolicyTransition`.
import { memberIdFromSeed } from './policy-crypto';
import { applyPolicyChanges, type PolicyChange } from './policy-change';
import { policyEntryHashUnchecked } from './policy-encoding';
import { parsePolicyEntry, type PolicyEntry } from './policy-entry';
import { checkTransition } from './policy-rules';
import { signPolicyEntry } from './policy-signer';

/**
 * Builds, authorizes and signs the entry that follows `prev`. `signerSeed` is
 * the acting member's 32-byte identity seed. Throws `PolicyError` (for example
 * `not_authorized`, `owner_count`, `revoked_device`) and signs nothing then.
 */
export function proposePolicyChange(
  prev: PolicyEntry,
  changes: PolicyChange | readonly PolicyChange[],
  signerSeed: Uint8Array,
): PolicyEntry {
  const before = parsePolicyEntry(prev);
  const list: readonly PolicyChange[] = Array.isArray(changes) ? changes : [changes as PolicyChange];
  const body = applyPolicyChanges(before, list);
  const signer = memberIdFromSeed(signerSeed);
  checkTransition(before, policyEntryHashUnchecked(before), body, signer);
  return signPolicyEntry(body, signerSeed);
}
