// Session state of the daemon (pure, clock-injected): unlock idle expiry (IPC-11), sudo
// grants bound to a parent pid (IPC-12, IPC-13) and the password-attempt limiter (IPC-14).
// Nothing here survives a restart, so a restart clears all elevation (IPC-13).

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export interface SessionLimits {
  unlockIdleMs: number;
  sudoMaxMs: number;
  sudoIdleMs: number;
  /** Failed attempts allowed before backoff starts. */
  freeAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
}

interface SudoGrant {
  grantedAt: number;
  lastUsedAt: number;
}

export class SessionPolicy {
  private lastActivityAt: number | null = null;
  private readonly sudo = new Map<number, SudoGrant>();
  private failures = 0;
  private lastFailureAt = 0;

  constructor(
    private readonly clock: Clock,
    private readonly limits: SessionLimits,
  ) {}

  // ---- IPC-11: unlock idle expiry -------------------------------------------------------

  /** A successful unlock/init/restore or data op: the idle timer starts again. */
  touch(): void {
    this.lastActivityAt = this.clock.now();
  }

  unlockExpiresAt(): number | null {
    return this.lastActivityAt === null ? null : this.lastActivityAt + this.limits.unlockIdleMs;
  }

  /** True when the unlock has been idle too long (the caller then locks the service). */
  unlockExpired(): boolean {
    const expiresAt = this.unlockExpiresAt();
    return expiresAt !== null && this.clock.now() >= expiresAt;
  }

  /** Lock (explicit or by expiry): forget the unlock and ALL elevation (IPC-13). */
  locked(): void {
    this.lastActivityAt = null;
    this.sudo.clear();
  }

  // ---- IPC-12: sudo bound to a parent pid -----------------------------------------------

  grantSudo(parentPid: number): number {
    const now = this.clock.now();
    this.sudo.set(parentPid, { grantedAt: now, lastUsedAt: now });
    return this.sudoExpiresAt(parentPid)!;
  }

  /** min(granted + max, last use + idle); null when there is no live grant. */
  sudoExpiresAt(parentPid: number): number | null {
    const grant = this.sudo.get(parentPid);
    if (!grant) return null;
    const expiresAt = Math.min(
      grant.grantedAt + this.limits.sudoMaxMs,
      grant.lastUsedAt + this.limits.sudoIdleMs,
    );
    if (this.clock.now() >= expiresAt) {
      this.sudo.delete(parentPid);
      return null;
    }
    return expiresAt;
  }

  /** Read-only check (for status). */
  hasSudo(parentPid: number | undefined): boolean {
    return parentPid !== undefined && this.sudoExpiresAt(parentPid) !== null;
  }

  /** Uses a grant (refreshes its idle timer); false when there is none. */
  useSudo(parentPid: number | undefined): boolean {
    if (!this.hasSudo(parentPid)) return false;
    this.sudo.get(parentPid!)!.lastUsedAt = this.clock.now();
    return true;
  }

  // ---- IPC-14: password attempts --------------------------------------------------------

  /** Ms until the next password attempt is allowed (0 = now). */
  attemptDelayMs(): number {
    if (this.failures < this.limits.freeAttempts) return 0;
    const exponent = this.failures - this.limits.freeAttempts;
    const backoff = Math.min(
      this.limits.backoffBaseMs * 2 ** Math.min(exponent, 30),
      this.limits.backoffMaxMs,
    );
    return Math.max(0, this.lastFailureAt + backoff - this.clock.now());
  }

  attemptFailed(): void {
    this.failures += 1;
    this.lastFailureAt = this.clock.now();
  }

  attemptSucceeded(): void {
    this.failures = 0;
  }
}
