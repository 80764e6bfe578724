// The rules every entry and every transition must satisfy. These functions
// assume parsed (canonical) input; the verifier and the proposer call them.
import { PolicyError } from './policy.errors';
import { type PolicyBody, type PolicyMember } from './policy-entry';

function deny(message: string): never {
  throw new PolicyError('not_authorized', message);
}

function byId(body: PolicyBody): Map<string, PolicyMember> {
  return new Map(body.members.map((m) => [m.id, m]));
}

/** POL-8 and DEV-5 for a single entry: exactly one Owner; no revoked device in any allow-list. */
export function checkEntryInvariants(body: PolicyBody): void {
  const owners = body.members.filter((m) => m.role === 'owner').length;
  if (owners !== 1)
    throw new PolicyError('owner_count', `entry ${body.seq} has ${owners} Owners, needs exactly 1`);
  const revoked = new Set(body.revoked);
  for (const member of body.members) {
    for (const fp of member.devices) {
      if (revoked.has(fp))
        throw new PolicyError('revoked_device', `revoked device ${fp} is in an allow-list`);
    }
  }
}

/** POL-10: every earlier revocation is still present. */
export function checkRevocationsKept(prev: PolicyBody, next: PolicyBody): void {
  const kept = new Set(next.revoked);
  for (const fp of prev.revoked) {
    if (!kept.has(fp)) throw new PolicyError('revocation_removed', `revocation of ${fp} was removed`);
  }
}

/**
 * A new epoch key is needed when anyone loses access: a device revoked, a
 * member removed or a device dropped from an allow-list.
 */
export function rotationRequired(prev: PolicyBody, next: PolicyBody): boolean {
  if (next.revoked.length > prev.revoked.length) return true;
  const nextMembers = byId(next);
  for (const before of prev.members) {
    const after = nextMembers.get(before.id);
    if (!after) return true;
    const still = new Set(after.devices);
    if (before.devices.some((fp) => !still.has(fp))) return true;
  }
  return false;
}

/** The epoch of `next` is the previous epoch, plus one exactly when a rotation is required. */
export function expectedEpoch(prev: PolicyBody, next: PolicyBody): number {
  return prev.epoch + (rotationRequired(prev, next) ? 1 : 0);
}

export function sameContent(prev: PolicyBody, next: PolicyBody): boolean {
  return JSON.stringify([prev.members, prev.revoked]) === JSON.stringify([next.members, next.revoked]);
}

function setDiff(a: readonly string[], b: readonly string[]): string[] {
  const inB = new Set(b);
  return a.filter((x) => !inB.has(x));
}

/**
 * POL-3..POL-7, POL-9, DEV-5: may `signerId`, with its role in `prev`, make
 * every difference between `prev` and `next`? Throws `not_authorized` naming the rule.
 */
export function authorizeTransition(prev: PolicyBody, next: PolicyBody, signerId: string): void {
  const before = byId(prev);
  const signer = before.get(signerId);
  if (!signer) deny('the signer is not a member of the preceding entry (POL-3)');
  const isOwner = signer.role === 'owner';
  const isAdmin = isOwner || signer.role === 'admin';

  if (next.revoked.length !== prev.revoked.length && !isOwner) {
    deny('only the Owner may revoke devices (POL-6, POL-9)');
  }
  const after = byId(next);
  const newlyRevoked = new Set(setDiff(next.revoked, prev.revoked));
  for (const id of new Set([...before.keys(), ...after.keys()])) {
    const p = before.get(id);
    const n = after.get(id);
    const touchesOwner = p?.role === 'owner' || n?.role === 'owner';
    if (!p || !n) {
      if (!isAdmin) deny(`${n ? 'inviting' : 'removing'} a member needs Admin or Owner (POL-5)`);
      if (touchesOwner && !isOwner) deny('only the Owner may add or remove an Owner (POL-6, POL-7, POL-9)');
      continue;
    }
    checkSelfEnrollment(p, n, newlyRevoked, id === signerId, isOwner);
    const membershipChanged = p.role !== n.role || p.name !== n.name || p.selfEnrollment !== n.selfEnrollment;
    const devicesChanged = setDiff(n.devices, p.devices).length + setDiff(p.devices, n.devices).length > 0;
    if (!membershipChanged && !devicesChanged) continue;
    if (touchesOwner && !isOwner)
      deny('only the Owner may change an Owner or make anyone Owner (POL-6, POL-7, POL-9)');
    if (membershipChanged && !isAdmin) deny('changing a membership needs Admin or Owner (POL-5)');
    if (devicesChanged && id !== signerId && !isAdmin) {
      deny("authorizing another member's devices needs Admin or Owner (POL-4, POL-5)");
    }
  }
}

/**
 * DEV-5 for one member present in both entries. A revocation of a device the
 * member listed in `p` suspends their self-enrolment; only the Owner restores
 * it; and while it is suspended in `p`, the member's own key (unless it is the
 * Owner's) may not add devices to the member's own allow-list.
 */
function checkSelfEnrollment(
  p: PolicyMember,
  n: PolicyMember,
  newlyRevoked: ReadonlySet<string>,
  signedBySelf: boolean,
  signerIsOwner: boolean,
): void {
  if (n.selfEnrollment && p.devices.some((fp) => newlyRevoked.has(fp))) {
    deny(`DEV-5: revoking a device of ${p.id} must suspend that member's self-enrolment`);
  }
  if (!p.selfEnrollment && n.selfEnrollment && !signerIsOwner) {
    deny(`DEV-5: only the Owner may restore self-enrolment of ${p.id}`);
  }
  if (!p.selfEnrollment && signedBySelf && !signerIsOwner && setDiff(n.devices, p.devices).length > 0) {
    deny(
      `DEV-5: self-enrolment of ${p.id} is suspended since a device was revoked; ` +
        'its own key may not add devices (an Admin or the Owner may)',
    );
  }
  if (p.selfEnrollment && !n.selfEnrollment && newlyRevoked.size === 0) {
    deny(`DEV-5: self-enrolment of ${p.id} is suspended only by revoking a device`);
  }
}

/** Linear chain: same vault, seq + 1, prevHash = hash of the previous entry (POL-1). */
export function checkLink(prev: PolicyBody, prevHash: string, next: PolicyBody): void {
  if (next.vaultId !== prev.vaultId) throw new PolicyError('broken_chain', 'vaultId changed');
  if (next.seq !== prev.seq + 1)
    throw new PolicyError('broken_chain', `seq ${next.seq} does not follow ${prev.seq}`);
  if (next.prevHash !== prevHash)
    throw new PolicyError('broken_chain', `entry ${next.seq} does not link its predecessor`);
}

/**
 * Everything a transition must satisfy besides the signature, in a fixed
 * order: link, invariants, grow-only revocations, a real change, authority, epoch.
 */
export function checkTransition(
  prev: PolicyBody,
  prevHash: string,
  next: PolicyBody,
  signerId: string,
): void {
  checkLink(prev, prevHash, next);
  checkEntryInvariants(next);
  checkRevocationsKept(prev, next);
  if (sameContent(prev, next)) throw new PolicyError('no_change', `entry ${next.seq} changes nothing`);
  authorizeTransition(prev, next, signerId);
  const epoch = expectedEpoch(prev, next);
  if (next.epoch !== epoch) {
    throw new PolicyError('bad_epoch', `entry ${next.seq} has epoch ${next.epoch}, expected ${epoch}`);
  }
}

/** Genesis: seq 0, no previous hash, epoch 0, exactly one Owner who is the signer. */
export function checkGenesis(entry: PolicyBody, signerId: string): void {
  if (entry.seq !== 0 || entry.prevHash !== null)
    throw new PolicyError('broken_chain', 'history must start at seq 0');
  if (entry.epoch !== 0) throw new PolicyError('bad_epoch', 'the genesis epoch is 0');
  checkEntryInvariants(entry);
  const owner = entry.members.find((m) => m.role === 'owner');
  if (owner?.id !== signerId) deny('the genesis entry must be signed by its Owner');
}
