// fast-check generators for random policy histories. A step is abstract
// (indices, not ids) and is resolved against the current head when it runs,
// so shrinking keeps producing meaningful changes.
import fc from 'fast-check';
import { applyPolicyChanges, type PolicyChange } from '../policy-change';
import { policyEntryHash } from '../policy-encoding';
import { canonicalizeBody, parsePolicyBody, type PolicyBody, type PolicyEntry } from '../policy-entry';
import { PolicyError } from '../policy.errors';
import { checkTransition, expectedEpoch } from '../policy-rules';
import { signPolicyEntry } from '../policy-signer';
import { ROLES } from '../roles';
import { device, person, type Person } from './policy-fixtures';

export const CAST = ['olivia', 'adam', 'ada', 'eve', 'rita', 'nina', 'omar'] as const;
export const DEVICES = [...CAST.map((l) => `${l}-phone`), 'd0', 'd1', 'd2', 'd3'].map(device);

const OP_KINDS = [
  'add_member',
  'remove_member',
  'set_role',
  'rename_member',
  'add_device',
  'remove_device',
  'revoke_device',
  'transfer_ownership',
  'restore_self_enrollment',
] as const;
/** Edits no honest proposer makes; they attack the verifier directly. */
const TAMPERS = [
  'none',
  'none',
  'drop_revocation',
  'relist_revoked',
  'second_owner',
  'no_owner',
  'restore_self_enrollment',
] as const;

export interface OpSpec {
  readonly kind: (typeof OP_KINDS)[number];
  readonly who: number;
  readonly role: number;
  readonly dev: number;
}
export interface StepSpec {
  readonly signer: number;
  readonly signerIsOwner: boolean;
  /** Unless the Owner signs: the member the first op targets signs (self-service, POL-4). */
  readonly signerIsSubject: boolean;
  readonly ops: readonly OpSpec[];
  readonly tamper: (typeof TAMPERS)[number];
  /** Append even if the rules reject it (then the whole history must fail verification). */
  readonly forced: boolean;
}

export function stepArb(
  kinds: readonly OpSpec['kind'][] = OP_KINDS,
  tampers: readonly StepSpec['tamper'][] = TAMPERS,
): fc.Arbitrary<StepSpec> {
  const op = fc.record({
    kind: fc.constantFrom(...kinds),
    who: fc.nat({ max: 50 }),
    role: fc.nat({ max: 3 }),
    dev: fc.nat({ max: 50 }),
  });
  return fc.record({
    signer: fc.nat({ max: 50 }),
    signerIsOwner: fc.boolean(),
    signerIsSubject: fc.boolean(),
    ops: fc.array(op, { minLength: 1, maxLength: 3 }),
    tamper: fc.constantFrom(...tampers),
    forced: fc.boolean(),
  });
}

const pick = <T>(items: readonly T[], i: number): T => items[i % items.length] as T;

export function resolveOp(head: PolicyBody, spec: OpSpec): PolicyChange {
  const member = pick(head.members, spec.who);
  const label = pick(CAST, spec.who);
  const fingerprint = pick(DEVICES, spec.dev);
  const role = pick(ROLES, spec.role);
  switch (spec.kind) {
    case 'add_member':
      return {
        kind: 'add_member',
        member: { id: person(label).id, name: label, role, devices: [fingerprint] },
      };
    case 'restore_self_enrollment':
      return { kind: 'restore_self_enrollment', memberId: member.id };
    case 'remove_member':
      return { kind: 'remove_member', memberId: member.id };
    case 'set_role':
      return { kind: 'set_role', memberId: member.id, role };
    case 'rename_member':
      return { kind: 'rename_member', memberId: member.id, name: `${member.name}'` };
    case 'add_device':
      return { kind: 'add_device', memberId: member.id, fingerprint };
    case 'remove_device':
      return {
        kind: 'remove_device',
        memberId: member.id,
        fingerprint: pick(member.devices, spec.dev) ?? fingerprint,
      };
    case 'revoke_device':
      return { kind: 'revoke_device', fingerprint };
    case 'transfer_ownership':
      return {
        kind: 'transfer_ownership',
        to: member.id,
        formerOwnerRole: pick(['reader', 'editor', 'admin'], spec.role),
      };
  }
}

function tamper(body: PolicyBody, how: StepSpec['tamper'], n: number): PolicyBody {
  const members = [...body.members];
  const target = n % members.length;
  switch (how) {
    case 'none':
      return body;
    case 'drop_revocation':
      return { ...body, revoked: body.revoked.filter((_, i) => i !== n % Math.max(1, body.revoked.length)) };
    case 'relist_revoked': {
      const fp = body.revoked[n % Math.max(1, body.revoked.length)];
      if (fp === undefined) return body;
      const m = members[target]!;
      members[target] = { ...m, devices: [...m.devices, fp] };
      return { ...body, members };
    }
    case 'second_owner':
    case 'no_owner':
      members[target] = { ...members[target]!, role: how === 'second_owner' ? 'owner' : 'admin' };
      return { ...body, members };
    case 'restore_self_enrollment':
      // Every suspension lifted, whoever signs (DEV-5: only the Owner may).
      return { ...body, members: members.map((m) => ({ ...m, selfEnrollment: true })) };
  }
}

export function signerFor(head: PolicyBody, step: StepSpec): Person {
  if (step.signerIsOwner) {
    const owner = head.members.find((m) => m.role === 'owner');
    const label = CAST.find((l) => person(l).id === owner?.id);
    if (label) return person(label);
  }
  if (step.signerIsSubject && step.ops[0]) {
    const subject = pick(head.members, step.ops[0].who);
    const label = CAST.find((l) => person(l).id === subject.id);
    if (label) return person(label);
  }
  return person(pick(CAST, step.signer));
}

/** The unsigned body and signer for one step, or undefined when the changes do not apply. */
export function candidateBody(
  head: PolicyEntry,
  step: StepSpec,
): { body: PolicyBody; signer: Person } | undefined {
  try {
    const applied = applyPolicyChanges(
      head,
      step.ops.map((op) => resolveOp(head, op)),
    );
    const edited = tamper(applied, step.tamper, step.signer);
    const body = parsePolicyBody(canonicalizeBody({ ...edited, epoch: expectedEpoch(head, edited) }));
    return { body, signer: signerFor(head, step) };
  } catch (e) {
    if (e instanceof PolicyError) return undefined;
    throw e;
  }
}

/** The signed candidate entry for one step, judged by nobody yet. */
export function candidate(head: PolicyEntry, step: StepSpec): PolicyEntry | undefined {
  const c = candidateBody(head, step);
  return c && signPolicyEntry(c.body, c.signer.seed);
}

/**
 * Builds a history step by step. A step is appended when the transition rules
 * accept it (a cheap, signature-free gate) OR when the step is `forced`: then
 * it is appended unjudged, and only `verifyPolicyHistory` can catch it.
 * `onRejected` sees every error of the gate (to measure what a property exercised).
 */
export function buildHistory(
  start: readonly PolicyEntry[],
  steps: readonly StepSpec[],
  onRejected: (error: PolicyError) => void = () => undefined,
): PolicyEntry[] {
  const history = [...start];
  for (const step of steps) {
    const head = history[history.length - 1]!;
    const c = candidateBody(head, step);
    if (!c) continue;
    let accepted = true;
    try {
      checkTransition(head, policyEntryHash(head), c.body, c.signer.id);
    } catch (e) {
      if (!(e instanceof PolicyError)) throw e;
      accepted = false;
      onRejected(e);
    }
    if (accepted || step.forced) history.push(signPolicyEntry(c.body, c.signer.seed));
  }
  return history;
}
