// Deterministic keys and vaults for the specs. Imported only by *.spec.ts;
// never exported from the lib's index.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8Encode } from '@arslan/util';
import { memberIdFromSeed } from '../policy-crypto';
import { policyEntryHash } from '../policy-encoding';
import { type PolicyBody, type PolicyEntry, type PolicyMember } from '../policy-entry';
import { PolicyError, type PolicyErrorCode } from '../policy.errors';
import { proposePolicyChange } from '../policy-proposer';
import { createGenesisPolicy, signPolicyEntry } from '../policy-signer';
import { type Role } from '../roles';

export interface Person {
  readonly label: string;
  readonly seed: Uint8Array;
  readonly id: string;
}

const people = new Map<string, Person>();

/** A stable identity per label; the key derivation is cached (it is the slow part). */
export function person(label: string): Person {
  let found = people.get(label);
  if (!found) {
    const seed = sha256(utf8Encode(`test-seed:${label}`));
    found = { label, seed, id: memberIdFromSeed(seed) };
    people.set(label, found);
  }
  return found;
}

/** A stable 64-hex device fingerprint per label. */
export function device(label: string): string {
  return bytesToHex(sha256(utf8Encode(`test-device:${label}`)));
}

export const VAULT = 'vault-1';

/** Labels and roles of the standard vault; each member has device `<label>-phone`. */
export const STANDARD_MEMBERS: readonly (readonly [string, Role])[] = [
  ['olivia', 'owner'],
  ['adam', 'admin'],
  ['ada', 'admin'],
  ['eve', 'editor'],
  ['rita', 'reader'],
];

/** Genesis by olivia, then one Owner-signed entry inviting the other members. */
export function standardHistory(): PolicyEntry[] {
  const owner = person('olivia');
  const genesis = createGenesisPolicy({
    vaultId: VAULT,
    owner: { name: 'olivia', devices: [device('olivia-phone')] },
    ownerSeed: owner.seed,
  });
  const invites = STANDARD_MEMBERS.filter(([, role]) => role !== 'owner').map(([label, role]) => ({
    kind: 'add_member' as const,
    member: { id: person(label).id, name: label, role, devices: [device(`${label}-phone`)] },
  }));
  return [genesis, proposePolicyChange(genesis, invites, owner.seed)];
}

/**
 * The standard vault in ONE entry: an Owner-signed genesis that already lists
 * every standard member (and optional revocations). Cheaper to verify.
 */
export function standardGenesis(revoked: readonly string[] = []): PolicyEntry {
  const members = STANDARD_MEMBERS.map(([label, role]) => ({
    id: person(label).id,
    name: label,
    role,
    devices: [device(`${label}-phone`)],
    selfEnrollment: true,
  }));
  const body = { vaultId: VAULT, seq: 0, prevHash: null, epoch: 0, members, revoked: [...revoked] };
  return signPolicyEntry(body, person('olivia').seed);
}

/** The unsigned body that would follow `prev` if nothing changed; edit it freely. */
export function successorBody(prev: PolicyEntry): PolicyBody {
  const { signer: _s, signature: _g, ...body } = prev;
  return { ...body, seq: prev.seq + 1, prevHash: policyEntryHash(prev) };
}

/** Signs an arbitrary successor WITHOUT authorization checks (to attack the verifier). */
export function forge(
  prev: PolicyEntry,
  edit: (body: PolicyBody) => PolicyBody,
  signer: Person,
): PolicyEntry {
  return signPolicyEntry(edit(successorBody(prev)), signer.seed);
}

/** The PolicyError code thrown by `fn`, or 'ok'. Rethrows anything else. */
export function errorCode(fn: () => unknown): PolicyErrorCode | 'ok' {
  try {
    fn();
  } catch (e) {
    if (e instanceof PolicyError) return e.code;
    throw e;
  }
  return 'ok';
}

export function memberOf(entry: PolicyBody, label: string): PolicyMember {
  const found = entry.members.find((m) => m.id === person(label).id);
  if (!found) throw new Error(`fixture: ${label} is not a member`);
  return found;
}

/** Replaces one member (by label) in a body. */
export function withMember(body: PolicyBody, label: string, patch: Partial<PolicyMember>): PolicyBody {
  const id = person(label).id;
  return { ...body, members: body.members.map((m) => (m.id === id ? { ...m, ...patch } : m)) };
}
