import fc from 'fast-check';
import { type PolicyEntry, type PolicyMember } from './policy-entry';
import { PolicyError } from './policy.errors';
import { isDeviceAllowed } from './policy-queries';
import { verifyPolicyHistory } from './policy-verifier';
import { buildHistory, stepArb } from './testing/policy-arbitraries';
import { proposePolicyChange } from './policy-proposer';
import { device, person, standardGenesis } from './testing/policy-fixtures';

const start = [standardGenesis()];
// The same vault after the Owner revoked the phones of Rita (Reader) and Adam (Admin).
const afterRevocation = [
  start[0]!,
  proposePolicyChange(
    start[0]!,
    ['rita-phone', 'adam-phone'].map((d) => ({ kind: 'revoke_device' as const, fingerprint: device(d) })),
    person('olivia').seed,
  ),
];

describe('policy history properties', () => {
  it('POL-8: every entry of every verified history has exactly one Owner, across random changes and transfers', () => {
    const seen = { verified: 0, rejected: 0, ownerChanges: 0 };
    fc.assert(
      fc.property(fc.array(stepArb(), { minLength: 1, maxLength: 3 }), (steps) => {
        const history = buildHistory(start, steps);
        let entries: readonly PolicyEntry[];
        try {
          entries = verifyPolicyHistory(history).entries;
        } catch (e) {
          if (!(e instanceof PolicyError)) throw e;
          seen.rejected++;
          return;
        }
        seen.verified++;
        let previousOwner = '';
        for (const entry of entries) {
          const owners = entry.members.filter((m) => m.role === 'owner');
          expect(owners).toHaveLength(1);
          if (previousOwner && owners[0]!.id !== previousOwner) seen.ownerChanges++;
          previousOwner = owners[0]!.id;
        }
      }),
      { numRuns: 250 },
    );
    expect(seen.verified).toBeGreaterThan(50);
    expect(seen.rejected).toBeGreaterThan(25);
    expect(seen.ownerChanges).toBeGreaterThan(10);
  });

  it('DEV-5, POL-10: once revoked, a device never appears in a later valid entry for any member', () => {
    const seen = { verified: 0, revocations: 0 };
    const kinds = [
      'revoke_device',
      'add_device',
      'add_member',
      'remove_device',
      'transfer_ownership',
    ] as const;
    fc.assert(
      fc.property(fc.array(stepArb(kinds), { minLength: 2, maxLength: 3 }), (steps) => {
        let entries: readonly PolicyEntry[];
        try {
          entries = verifyPolicyHistory(buildHistory(start, steps)).entries;
        } catch (e) {
          if (!(e instanceof PolicyError)) throw e;
          return;
        }
        seen.verified++;
        entries.forEach((entry, i) => {
          for (const later of entries.slice(i)) {
            for (const fp of entry.revoked) {
              expect(later.revoked).toContain(fp);
              for (const m of later.members) expect(isDeviceAllowed(later, m.id, fp)).toBe(false);
            }
          }
        });
        seen.revocations += entries[entries.length - 1]!.revoked.length;
      }),
      { numRuns: 250 },
    );
    expect(seen.verified).toBeGreaterThan(50);
    expect(seen.revocations).toBeGreaterThan(20);
  });

  it('DEV-5: after a revocation, no verified entry signed by that (non-Owner) member adds a device to its own list until an Owner-signed restore', () => {
    const seen = {
      verified: 0,
      suspensions: 0,
      selfAddsRefused: 0,
      restoresRefused: 0,
      addedForSuspended: 0,
      restores: 0,
    };
    const kinds = [
      'revoke_device',
      'add_device',
      'remove_device',
      'restore_self_enrollment',
      'transfer_ownership',
      'remove_member',
      'add_member',
    ] as const;
    const tampers = ['none', 'none', 'restore_self_enrollment', 'relist_revoked'] as const;
    // A member adding one device to its own list with its own key (POL-4 self-service).
    const selfAdd = stepArb(['add_device'], ['none']).map((step) => ({
      ...step,
      signerIsOwner: false,
      signerIsSubject: true,
      ops: step.ops.slice(0, 1),
    }));
    // The Owner adding a device for someone or restoring someone's self-enrolment.
    const ownerActs = stepArb(['add_device', 'restore_self_enrollment'], ['none']).map((step) => ({
      ...step,
      signerIsOwner: true,
      ops: step.ops.slice(0, 1),
    }));
    // Someone other than the Owner trying to lift a suspension.
    const othersRestore = stepArb(['restore_self_enrollment'], ['none']).map((step) => ({
      ...step,
      signerIsOwner: false,
      ops: step.ops.slice(0, 1),
    }));
    const byId = (entry: PolicyEntry) => new Map<string, PolicyMember>(entry.members.map((m) => [m.id, m]));
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.array(fc.oneof(stepArb(kinds, tampers), selfAdd, ownerActs, othersRestore), {
          minLength: 1,
          maxLength: 4,
        }),
        (fromRevocation, steps) => {
          let entries: readonly PolicyEntry[];
          try {
            const history = buildHistory(fromRevocation ? afterRevocation : start, steps, (e) => {
              if (/DEV-5: self-enrolment of \w+ is suspended/.test(e.message)) seen.selfAddsRefused++;
              if (/DEV-5: only the Owner may restore/.test(e.message)) seen.restoresRefused++;
            });
            entries = verifyPolicyHistory(history).entries;
          } catch (e) {
            if (!(e instanceof PolicyError)) throw e;
            return;
          }
          seen.verified++;
          // Members who lost a listed device to a revocation, judged from the lists alone.
          const suspended = new Set<string>();
          for (let j = 1; j < entries.length; j++) {
            const prev = byId(entries[j - 1]!);
            const next = byId(entries[j]!);
            const signer = entries[j]!.signer;
            const signedByOwner = prev.get(signer)?.role === 'owner';
            for (const id of suspended) {
              const before = prev.get(id)!.devices;
              const added = (next.get(id)?.devices ?? []).filter((fp) => !before.includes(fp));
              if (id === signer && !signedByOwner) expect(added).toEqual([]);
              else if (added.length > 0) seen.addedForSuspended++;
              const after = next.get(id);
              if (!after) {
                suspended.delete(id); // removed: a later re-invitation starts afresh
              } else if (after.selfEnrollment) {
                expect(signedByOwner).toBe(true); // restored, by the Owner only
                suspended.delete(id);
                seen.restores++;
              }
            }
            const newlyRevoked = entries[j]!.revoked.filter((fp) => !entries[j - 1]!.revoked.includes(fp));
            for (const [id, member] of prev) {
              if (!member.devices.some((fp) => newlyRevoked.includes(fp))) continue;
              expect(next.get(id)?.selfEnrollment ?? false).toBe(false);
              suspended.add(id);
              seen.suspensions++;
            }
          }
        },
      ),
      { numRuns: 200 },
    );
    expect(seen.verified).toBeGreaterThan(50);
    expect(seen.suspensions).toBeGreaterThan(30);
    expect(seen.selfAddsRefused).toBeGreaterThan(2);
    expect(seen.addedForSuspended).toBeGreaterThan(0);
    expect(seen.restores).toBeGreaterThan(5);
  });
});
