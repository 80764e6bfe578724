import { SessionPolicy } from './session-policy';

const limits = {
  unlockIdleMs: 100,
  sudoMaxMs: 1000,
  sudoIdleMs: 300,
  freeAttempts: 2,
  backoffBaseMs: 10,
  backoffMaxMs: 35,
};

describe('SessionPolicy', () => {
  let now = 0;
  const policy = () => new SessionPolicy({ now: () => now }, limits);
  beforeEach(() => (now = 0));

  it('IPC-14: exponential backoff after the free attempts, capped, reset by a success', () => {
    const p = policy();
    p.attemptFailed();
    p.attemptFailed();
    expect(p.attemptDelayMs()).toBe(10);
    p.attemptFailed();
    expect(p.attemptDelayMs()).toBe(20);
    p.attemptFailed();
    p.attemptFailed();
    expect(p.attemptDelayMs()).toBe(35);
    now += 35;
    expect(p.attemptDelayMs()).toBe(0);
    p.attemptSucceeded();
    p.attemptFailed();
    expect(p.attemptDelayMs()).toBe(0);
  });

  it('IPC-12: sudo is per parent pid and expires at min(grant + max, last use + idle)', () => {
    const p = policy();
    expect(p.grantSudo(7)).toBe(300);
    expect(p.hasSudo(8)).toBe(false);
    expect(p.hasSudo(undefined)).toBe(false);
    now = 299;
    expect(p.useSudo(7)).toBe(true);
    expect(p.sudoExpiresAt(7)).toBe(599);
    now = 599;
    expect(p.hasSudo(7)).toBe(false);
  });

  it('IPC-11/IPC-13: unlock idle expiry and lock clearing sudo', () => {
    const p = policy();
    expect(p.unlockExpired()).toBe(false);
    p.touch();
    p.grantSudo(1);
    now = 99;
    expect(p.unlockExpired()).toBe(false);
    now = 100;
    expect(p.unlockExpired()).toBe(true);
    p.locked();
    expect(p.unlockExpiresAt()).toBeNull();
    expect(p.hasSudo(1)).toBe(false);
  });
});
