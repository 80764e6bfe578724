import { eligibleForIndex, indexExclusionReason, type IndexCandidate } from './index-eligibility';

describe('eligibleForIndex (RAG-3, HIST-5)', () => {
  it('indexes a live, non-conflicted, non-quarantined memory', () => {
    expect(eligibleForIndex({ kind: 'memory' })).toBe(true);
    expect(
      eligibleForIndex({ kind: 'memory', tombstone: false, conflicted: false, quarantined: false }),
    ).toBe(true);
  });

  it.each<[IndexCandidate, string]>([
    [{ kind: 'private' }, 'private'],
    [{ kind: 'credential' }, 'credential'],
    [{ kind: 'file' }, 'file'],
    [{ kind: 'card' }, 'card_not_safe'],
    [{ kind: 'card', safeCard: false }, 'card_not_safe'],
    [{ kind: 'memory', tombstone: true }, 'tombstone'],
    [{ kind: 'memory', conflicted: true }, 'conflicted'],
    [{ kind: 'memory', quarantined: true }, 'quarantined'],
    [{ kind: 'card', safeCard: true, tombstone: true }, 'tombstone'],
    [{ kind: 'card', safeCard: true, quarantined: true }, 'quarantined'],
    [{ kind: 'secret' as never }, 'unknown_kind'],
  ])('excludes %j (%s)', (asset, reason) => {
    expect(eligibleForIndex(asset)).toBe(false);
    expect(indexExclusionReason(asset)).toBe(reason);
  });

  it('indexes a card only when the caller marked it safe (no secret fields)', () => {
    expect(eligibleForIndex({ kind: 'card', safeCard: true })).toBe(true);
  });

  it('fails closed on non-boolean flags', () => {
    expect(eligibleForIndex({ kind: 'memory', tombstone: 1 as never })).toBe(false);
  });
});
