import { Budget } from './budget';
import { NoProgressDetector } from './no-progress';
import { BUDGET_TIERS, SOFT_LIMITS } from './tiers';

describe('budget', () => {
  it('BUD-03: hard = 1.5 × soft for requests, tool calls, tokens and time in every tier', () => {
    for (const tier of BUDGET_TIERS) {
      const b = new Budget({ tier });
      expect(b.soft).toEqual(SOFT_LIMITS[tier]);
      expect(b.hard).toEqual({
        requests: SOFT_LIMITS[tier].requests * 1.5,
        toolCalls: SOFT_LIMITS[tier].toolCalls * 1.5,
        tokens: SOFT_LIMITS[tier].tokens * 1.5,
        timeMs: SOFT_LIMITS[tier].timeMs * 1.5,
      });
    }
    expect(new Budget().soft.requests).toBe(40); // BUD-02: default standard
  });

  it('BUD-04/05/09: soft → wrap_up, hard → stop, checked after charging each response', () => {
    const b = new Budget({ soft: { requests: 2 } });
    expect(b.check()).toEqual({ state: 'ok', measures: [] });
    b.chargeResponse('m', { inputTokens: 1, outputTokens: 1 });
    b.chargeResponse('m', { inputTokens: 1, outputTokens: 1 });
    expect(b.check()).toEqual({ state: 'wrap_up', measures: ['requests'] });
    b.chargeResponse('m', { inputTokens: 1, outputTokens: 1 });
    expect(b.check()).toEqual({ state: 'stop', measures: ['requests'] });
  });

  it('BUD-11/12: dollar cap $2 by default, wrap-up from 2/3; unpriced models add nothing', () => {
    const b = new Budget({ soft: { tokens: 1e12 }, prices: { paid: { inputPerMTok: 1, outputPerMTok: 0 } } });
    expect(b.dollarCap).toBe(2);
    b.chargeResponse('local', { inputTokens: 5_000_000, outputTokens: 0 });
    expect(b.usage().dollars).toBe(0);
    expect(b.chargeResponse('paid', { inputTokens: 1_400_000, outputTokens: 0 })).toBeCloseTo(1.4);
    expect(b.check()).toEqual({ state: 'wrap_up', measures: ['dollars'] });
    b.chargeResponse('paid', { inputTokens: 600_000, outputTokens: 0 });
    expect(b.check()).toEqual({ state: 'stop', measures: ['dollars'] });
    expect(
      new Budget({ dollarCap: null, prices: { paid: { inputPerMTok: 100, outputPerMTok: 0 } } }).check()
        .state,
    ).toBe('ok');
  });

  it('BUD-10: time waiting on a card is not execution time', () => {
    let now = 0;
    const b = new Budget({ now: () => now, soft: { timeMs: 1000 } });
    b.start();
    now = 400;
    b.pause();
    now = 100_000;
    b.resume();
    now = 100_500;
    expect(b.elapsedMs()).toBe(900);
    expect(b.check().state).toBe('ok');
    now = 100_700;
    expect(b.check()).toEqual({ state: 'wrap_up', measures: ['timeMs'] });
    expect(b.remainingMs()).toBe(400);
  });

  it('BUD-13: a resumed task carries its counts over', () => {
    const b = new Budget({ soft: { toolCalls: 2 }, carried: { toolCalls: 2, dollars: 0.5 } });
    expect(b.check().state).toBe('wrap_up');
    expect(b.usage().dollars).toBe(0.5);
  });

  it('BUD-07: same tool + same args + same failing result is blocked; success or a different failure resets', () => {
    const d = new NoProgressDetector();
    const fail = { content: 'ENOENT', isError: true };
    d.record('read_file', { path: 'a', n: 1 }, fail);
    expect(d.isBlocked('read_file', { n: 1, path: 'a' })).toBe(false);
    d.record('read_file', { n: 1, path: 'a' }, fail); // key order does not matter
    expect(d.isBlocked('read_file', { path: 'a', n: 1 })).toBe(true);
    expect(d.isBlocked('read_file', { path: 'b', n: 1 })).toBe(false);
    d.record('read_file', { path: 'a', n: 1 }, { content: 'EACCES', isError: true });
    expect(d.isBlocked('read_file', { path: 'a', n: 1 })).toBe(false);
    d.record('read_file', { path: 'a', n: 1 }, { content: 'ok', isError: false });
    expect(d.isBlocked('read_file', { path: 'a', n: 1 })).toBe(false);
    expect(d.blockedAttempts).toBe(1);
  });
});
