import fc from 'fast-check';
import { type PolicyEntry } from './policy-entry';
import { PolicyError } from './policy.errors';
import { isDeviceAllowed } from './policy-queries';
import { verifyPolicyHistory } from './policy-verifier';
import { buildHistory, stepArb } from './testing/policy-arbitraries';
import { standardGenesis } from './testing/policy-fixtures';

const start = [standardGenesis()];

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
});
