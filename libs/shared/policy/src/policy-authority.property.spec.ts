import fc from 'fast-check';
import { proposePolicyChange } from './policy-proposer';
import { type PolicyBody, type PolicyEntry } from './policy-entry';
import { policyEntryHash } from './policy-encoding';
import { checkTransition, expectedEpoch } from './policy-rules';
import { signPolicyEntry } from './policy-signer';
import { verifyPolicyHistory, verifyPolicyTransition } from './policy-verifier';
import { type Role } from './roles';
import { candidate, CAST, DEVICES, resolveOp, stepArb } from './testing/policy-arbitraries';
import { device, errorCode, person, standardGenesis, successorBody } from './testing/policy-fixtures';

const owner = person('olivia');
// The base for the Admin attacks also holds one revocation, so removing it can be tried.
const adminHead = standardGenesis([device('d0')]);
const adminBase = [adminHead];

const ATTACKS = [
  'promote',
  'transfer',
  'demote_owner',
  'remove_owner',
  'replace_owner',
  'rename_owner',
  'owner_add_device',
  'owner_remove_device',
  'revoke',
  'unrevoke',
] as const;

function attack(
  head: PolicyEntry,
  kind: (typeof ATTACKS)[number],
  n: number,
  keepOneOwner: boolean,
): PolicyBody {
  const body = successorBody(head);
  const others = body.members.filter((m) => m.role !== 'owner');
  const target = others[n % others.length]!;
  const lower = (['reader', 'editor', 'admin'] as const)[n % 3]!;
  const setRole = (b: PolicyBody, id: string, role: Role): PolicyBody => ({
    ...b,
    members: b.members.map((m) => (m.id === id ? { ...m, role } : m)),
  });
  const editOwner = (
    b: PolicyBody,
    f: (m: PolicyBody['members'][number]) => PolicyBody['members'][number],
  ) => ({
    ...b,
    members: b.members.map((m) => (m.role === 'owner' ? f(m) : m)),
  });
  const fresh =
    DEVICES.find(
      (fp, i) =>
        i >= n % DEVICES.length &&
        !body.revoked.includes(fp) &&
        !body.members.some((m) => m.devices.includes(fp)),
    ) ?? device('spare');
  switch (kind) {
    case 'promote':
      return setRole(
        keepOneOwner ? editOwner(body, (m) => ({ ...m, role: lower })) : body,
        target.id,
        'owner',
      );
    case 'transfer':
      return setRole(
        editOwner(body, (m) => ({ ...m, role: lower })),
        target.id,
        'owner',
      );
    case 'demote_owner':
      return editOwner(keepOneOwner ? setRole(body, target.id, 'owner') : body, (m) => ({
        ...m,
        role: lower,
      }));
    case 'remove_owner': {
      const removed = { ...body, members: body.members.filter((m) => m.role !== 'owner') };
      return keepOneOwner ? setRole(removed, target.id, 'owner') : removed;
    }
    case 'replace_owner': {
      const removed = body.members.filter((m) => m.role !== 'owner');
      const stranger = {
        id: person('nina').id,
        name: 'nina',
        role: 'owner' as const,
        devices: [],
        selfEnrollment: true,
      };
      return { ...body, members: keepOneOwner ? [...removed, stranger] : removed };
    }
    case 'rename_owner':
      return editOwner(body, (m) => ({ ...m, name: `${m.name}-${n}` }));
    case 'owner_add_device':
      return editOwner(body, (m) => ({ ...m, devices: [...m.devices, fresh] }));
    case 'owner_remove_device':
      return editOwner(body, (m) => ({ ...m, devices: [] }));
    case 'revoke': {
      const fp = pickListed(body, n) ?? fresh;
      return {
        ...body,
        revoked: [...body.revoked, fp],
        // As an honest revocation does: the holder's self-enrolment is suspended (DEV-5).
        members: body.members.map((m) => ({
          ...m,
          devices: m.devices.filter((d) => d !== fp),
          selfEnrollment: m.selfEnrollment && !m.devices.includes(fp),
        })),
      };
    }
    case 'unrevoke':
      return { ...body, revoked: [] };
  }
}

function pickListed(body: PolicyBody, n: number): string | undefined {
  const listed = body.members.filter((m) => m.role !== 'owner').flatMap((m) => m.devices);
  return listed[n % Math.max(1, listed.length)];
}

/** The entry-level invariants, restated independently of the implementation. */
function invariantsHold(prev: PolicyBody, next: PolicyBody): boolean {
  const owners = next.members.filter((m) => m.role === 'owner').length;
  const keepsRevocations = prev.revoked.every((fp) => next.revoked.includes(fp));
  const noneRelisted = next.members.every((m) => m.devices.every((fp) => !next.revoked.includes(fp)));
  return owners === 1 && keepsRevocations && noneRelisted;
}

describe('policy authority properties', () => {
  it('POL-6, POL-9: any Admin-signed change that touches an Owner, makes an Owner or touches revocations is rejected', () => {
    let controls = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...ATTACKS),
        fc.nat({ max: 100 }),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom('adam', 'ada'),
        (kind, n, keepOneOwner, alsoBenign, adminLabel) => {
          let body = attack(adminHead, kind, n, keepOneOwner);
          if (alsoBenign) {
            // An Admin-allowed change to a member the attack does not touch.
            const others = adminHead.members.filter((m) => m.role !== 'owner');
            const bystander = others[(n + 1) % others.length]!;
            const role = bystander.role === 'reader' ? 'editor' : 'reader';
            body = {
              ...body,
              members: body.members.map((m) => (m.id === bystander.id ? { ...m, role } : m)),
            };
          }
          body = { ...body, epoch: expectedEpoch(adminHead, body) };
          const forged = signPolicyEntry(body, person(adminLabel).seed);
          const code = errorCode(() => verifyPolicyHistory([...adminBase, forged]));
          expect(code).not.toBe('ok');
          if (invariantsHold(adminHead, body)) {
            expect(code).toBe('not_authorized');
            // Control: the same change by the Owner passes the rules, so the signer's role is what failed.
            checkTransition(adminHead, policyEntryHash(adminHead), body, owner.id);
            controls++;
          }
        },
      ),
      { numRuns: 250 },
    );
    expect(controls).toBeGreaterThan(50);
  });

  it('POL-3..POL-8, DEV-5: proposePolicyChange accepts exactly what the verifier accepts', () => {
    // Also from a head where Rita and Adam lost a device, so self-enrolment is suspended (DEV-5).
    const heads = [
      adminHead,
      proposePolicyChange(
        adminHead,
        ['rita-phone', 'adam-phone'].map((d) => ({ kind: 'revoke_device' as const, fingerprint: device(d) })),
        owner.seed,
      ),
    ];
    fc.assert(
      fc.property(fc.constantFrom(...heads), stepArb(), (head, step) => {
        const honest = { ...step, tamper: 'none' as const };
        const next = candidate(head, honest);
        if (!next) return;
        const verdict = errorCode(() => verifyPolicyTransition(head, next));
        const signer = CAST.find((l) => person(l).id === next.signer)!;
        const proposed = errorCode(() =>
          proposePolicyChange(
            head,
            step.ops.map((op) => resolveOp(head, op)),
            person(signer).seed,
          ),
        );
        expect(proposed).toBe(verdict);
      }),
      { numRuns: 200 },
    );
  });
});
