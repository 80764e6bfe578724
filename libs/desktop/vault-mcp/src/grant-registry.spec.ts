import type { GrantVaultContext, JsonObject, JsonValue } from '@arslan/desktop-vault';
import { MAX_ACTIVE_GRANTS } from '@arslan/policy';
import { IpcError } from '@arslan/protocol';
import {
  GrantRegistry,
  type GrantLogPort,
  MAX_PENDING_PER_REQUESTER,
  REQUEST_EXPIRY_MS,
  REQUEST_PURGE_MS,
} from './grant-registry';
import { tokenDigest } from './grant-token';

class MemoryLog implements GrantLogPort {
  rows: JsonObject[] = [];
  failNext = false;
  appends = 0;
  rewrites = 0;

  readGrantLog(): JsonValue[] {
    return structuredClone(this.rows);
  }

  appendGrantLog(entries: readonly JsonObject[], firstSeq: number): void {
    if (this.failNext) {
      this.failNext = false;
      throw new IpcError('io_failed', 'disk full');
    }
    expect(firstSeq).toBe(this.rows.length + 1);
    this.appends++;
    this.rows.push(...structuredClone(entries));
  }

  rewriteGrantLog(entries: readonly JsonObject[]): void {
    this.rewrites++;
    this.rows = structuredClone([...entries]);
  }
}

const MINUTE = 60_000;
const context = (over: Partial<GrantVaultContext> = {}): GrantVaultContext => ({
  vault: 'personal',
  vault_id: 'a'.repeat(32),
  local_member: 'owner',
  members: [{ name: 'owner', role: 'owner' }],
  ...over,
});

function setup(start = 1_000_000) {
  const clock = { now: start };
  const log = new MemoryLog();
  const registry = new GrantRegistry(log, { now: () => clock.now });
  registry.load(1);
  return { clock, log, registry };
}

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    return error instanceof IpcError ? `${error.code}: ${error.message}` : String(error);
  }
  return 'no error';
};

describe('GrantRegistry (GRANT-*, REQ-*, MCP-9)', () => {
  it('GRANT-10/11: the token is returned once and only its SHA-256 is persisted', () => {
    const { log, registry } = setup();
    const { record, token } = registry.issue({ context: context(), scope: 'read', minutes: 10 });
    expect(token).toMatch(/^amcp_[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(log.rows)).not.toContain(token);
    expect(JSON.stringify(log.rows)).toContain(tokenDigest(token).toString('hex'));
    expect(registry.authenticate(token).id).toBe(record.id);
    expect(record).toMatchObject({ depth: 1, issuer: 'owner', subject: 'owner', parentId: null });
  });

  it('refuses unknown tokens and never echoes one in an error', () => {
    const { registry } = setup();
    const { token } = registry.issue({ context: context(), scope: 'read', minutes: 10 });
    const forged = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const message = codeOf(() => registry.authenticate(forged));
    expect(message).toMatch(/^unauthorized/);
    expect(message).not.toContain(forged);
  });

  it('MCP-9/GRANT-12: clear forgets grants in memory; load restores the unexpired ones', () => {
    const { clock, log, registry } = setup();
    const kept = registry.issue({ context: context(), scope: 'read', minutes: 30 });
    const short = registry.issue({ context: context(), scope: 'read', minutes: 1 });
    registry.clear();
    expect(registry.loadedGeneration()).toBeNull();
    expect(codeOf(() => registry.authenticate(kept.token))).toMatch(/^unauthorized/);
    expect(codeOf(() => registry.issue({ context: context(), scope: 'read', minutes: 1 }))).toMatch(
      /^locked/,
    );
    clock.now += 2 * MINUTE;
    registry.load(2);
    expect(registry.authenticate(kept.token).id).toBe(kept.record.id);
    // GRANT-13: purged at load, and the sealed log no longer holds it.
    expect(codeOf(() => registry.authenticate(short.token))).toMatch(/^unauthorized/);
    expect(JSON.stringify(log.rows)).not.toContain(short.record.id);
  });

  it('GRANT-4/GRANT-6: children stay within scope, lifetime, vault and depth', () => {
    const { registry } = setup();
    const root = registry.issue({ context: context(), scope: 'read_write', minutes: 10 }).record;
    expect(
      codeOf(() =>
        registry.issue({ context: context(), scope: 'read_write_delete', minutes: 5, parent: root }),
      ),
    ).toContain('scope_exceeds_parent');
    expect(
      codeOf(() => registry.issue({ context: context(), scope: 'read', minutes: 11, parent: root })),
    ).toContain('outlives_parent');
    expect(
      codeOf(() =>
        registry.issue({
          context: context({ vault: 'other', vault_id: 'b'.repeat(32) }),
          scope: 'read',
          minutes: 5,
          parent: root,
        }),
      ),
    ).toContain('cross_vault');
    const child = registry.issue({ context: context(), scope: 'read', minutes: 5, parent: root }).record;
    expect(child.depth).toBe(2);
    expect(
      codeOf(() => registry.issue({ context: context(), scope: 'read', minutes: 1, parent: child })),
    ).toContain('depth_exceeded');
    expect(codeOf(() => registry.issue({ context: context(), scope: 'read', minutes: 61 }))).toMatch(
      /^bad_request/,
    );
  });

  it('GRANT-7/15: a grant holder who is no longer a member cannot delegate', () => {
    const { registry } = setup();
    const root = registry.issue({ context: context(), scope: 'read', minutes: 10 }).record;
    const gone = context({ members: [{ name: 'someone', role: 'owner' }] });
    expect(codeOf(() => registry.issue({ context: gone, scope: 'read', minutes: 1, parent: root }))).toMatch(
      /^forbidden/,
    );
    const reader = context({ members: [{ name: 'owner', role: 'reader' }] });
    expect(
      codeOf(() => registry.issue({ context: reader, scope: 'read', minutes: 1, parent: root })),
    ).toContain('issuer_cannot_delegate');
  });

  it('GRANT-14: revocation takes every descendant; through a grant only its own subtree', () => {
    const { log, registry } = setup();
    const a = registry.issue({ context: context(), scope: 'read', minutes: 10 });
    const b = registry.issue({ context: context(), scope: 'read', minutes: 5, parent: a.record });
    const other = registry.issue({ context: context(), scope: 'read', minutes: 10 });
    expect(codeOf(() => registry.revoke(a.record.id, b.record))).toMatch(/^forbidden/);
    expect(codeOf(() => registry.revoke(other.record.id, a.record))).toMatch(/^forbidden/);
    expect(registry.list({ within: a.record }).map((g) => g.id)).toEqual([a.record.id, b.record.id]);
    expect(registry.revoke(a.record.id)).toEqual([a.record.id, b.record.id]);
    expect(codeOf(() => registry.authenticate(b.token))).toMatch(/^unauthorized/);
    expect(registry.authenticate(other.token).id).toBe(other.record.id);
    // Survives a reload: the revocation is in the log.
    registry.load(2);
    expect(codeOf(() => registry.authenticate(a.token))).toMatch(/^unauthorized/);
    expect(log.rows.some((r) => r['t'] === 'revoke')).toBe(true);
  });

  it('a failed commit changes nothing (no grant, no token, same log)', () => {
    const { log, registry } = setup();
    log.failNext = true;
    expect(codeOf(() => registry.issue({ context: context(), scope: 'read', minutes: 10 }))).toMatch(
      /^io_failed/,
    );
    expect(registry.activeCount()).toBe(0);
    expect(log.rows).toHaveLength(0);
    const next = registry.issue({ context: context(), scope: 'read', minutes: 10 });
    expect(log.rows).toHaveLength(1);
    expect(registry.authenticate(next.token).id).toBe(next.record.id);
  });

  it('GRANT-13: expired grants are refused, and the sweep purges them with their descendants', () => {
    const { clock, log, registry } = setup();
    const parent = registry.issue({ context: context(), scope: 'read', minutes: 2 });
    const child = registry.issue({ context: context(), scope: 'read', minutes: 1, parent: parent.record });
    clock.now += 2 * MINUTE;
    expect(codeOf(() => registry.authenticate(parent.token))).toBe('unauthorized: the grant has expired');
    expect(registry.sweep().grants).toBe(2);
    expect(log.rewrites).toBe(1);
    expect(log.rows).toHaveLength(0);
    expect(codeOf(() => registry.authenticate(child.token))).toMatch(/^unauthorized/);
  });

  it('GRANT-9: the 10,001st active grant is refused; expired ones make room', () => {
    const { clock, registry } = setup();
    const first = registry.issue({ context: context(), scope: 'read', minutes: 1 });
    for (let i = 1; i < MAX_ACTIVE_GRANTS; i++)
      registry.issue({ context: context(), scope: 'read', minutes: 60 });
    expect(registry.activeCount()).toBe(MAX_ACTIVE_GRANTS);
    expect(codeOf(() => registry.issue({ context: context(), scope: 'read', minutes: 60 }))).toMatch(
      /^limit_reached: .*too_many_grants/,
    );
    clock.now += MINUTE;
    expect(codeOf(() => registry.authenticate(first.token))).toMatch(/^unauthorized/);
    registry.issue({ context: context(), scope: 'read', minutes: 60 });
    expect(registry.activeCount()).toBe(MAX_ACTIVE_GRANTS);
  });

  describe('permission requests (REQ-*)', () => {
    it('REQ-2/3: approval records bounds only; the requesting grant claims exactly once', () => {
      const { log, registry } = setup();
      const grant = registry.issue({ context: context(), scope: 'read', minutes: 10 }).record;
      const other = registry.issue({ context: context(), scope: 'read', minutes: 10 }).record;
      const request = registry.request(grant, { scope: 'read_write', minutes: 20, reason: 'edit notes' });
      expect(request.state).toBe('pending');
      expect(codeOf(() => registry.claim(grant, request.entry.id, context()))).toMatch(
        /^forbidden: the request is pending/,
      );
      expect(codeOf(() => registry.decide(request.entry.id, 'approve', { minutes: 30 }))).toMatch(
        /^bad_request/,
      );
      const rowsBefore = log.rows.length;
      const approved = registry.decide(request.entry.id, 'approve', { minutes: 15 });
      expect(approved.approved).toEqual({ scope: 'read_write', minutes: 15 });
      expect(log.rows.length).toBe(rowsBefore + 1);
      expect(registry.activeCount()).toBe(2); // no token at approval
      expect(codeOf(() => registry.claim(other, request.entry.id, context()))).toMatch(
        /^forbidden: only the grant/,
      );
      const claimed = registry.claim(grant, request.entry.id, context());
      expect(claimed.record).toMatchObject({ scope: 'read_write', depth: 1, requestId: request.entry.id });
      expect(claimed.record.expiresAt - claimed.record.createdAt).toBe(15 * MINUTE);
      expect(codeOf(() => registry.claim(grant, request.entry.id, context()))).toMatch(
        /^forbidden: the request is claimed/,
      );
      // The grant row and the claimed state were one append (a lost response loses the token).
      expect(log.rows.slice(-2).map((r) => r['t'])).toEqual(['grant', 'request_state']);
      expect(codeOf(() => registry.decide(request.entry.id, 'deny'))).toMatch(/^forbidden/);
    });

    it('REQ-8: a delegated grant may request but not claim', () => {
      const { registry } = setup();
      const ctx = context({
        members: [
          { name: 'owner', role: 'owner' },
          { name: 'bob', role: 'editor' },
        ],
      });
      const root = registry.issue({ context: ctx, scope: 'read', minutes: 10 }).record;
      const delegated = { ...root, id: 'd'.repeat(32), subject: 'bob' };
      // A grant whose subject differs from its issuer (built directly: local grants are issued to the owner).
      const request = registry.request(delegated, { scope: 'read', minutes: 5, reason: '' });
      expect(request.entry.delegated).toBe(true);
      registry.decide(request.entry.id, 'approve');
      expect(codeOf(() => registry.claim(delegated, request.entry.id, ctx))).toMatch(/REQ-8/);
    });

    it('REQ-9: at most 20 pending per requester per vault', () => {
      const { registry } = setup();
      const grant = registry.issue({ context: context(), scope: 'read', minutes: 10 }).record;
      for (let i = 0; i < MAX_PENDING_PER_REQUESTER; i++)
        registry.request(grant, { scope: 'read', minutes: 5, reason: '' });
      expect(codeOf(() => registry.request(grant, { scope: 'read', minutes: 5, reason: '' }))).toMatch(
        /^limit_reached/,
      );
      const first = registry.requests()[0];
      registry.decide(first?.entry.id as string, 'deny');
      expect(registry.request(grant, { scope: 'read', minutes: 5, reason: '' }).state).toBe('pending');
    });

    it('REQ-10/11: pending requests expire after 7 days and are purged 30 days after their last change', () => {
      const { clock, log, registry } = setup();
      const grant = registry.issue({ context: context(), scope: 'read', minutes: 60 }).record;
      const request = registry.request(grant, { scope: 'read', minutes: 5, reason: '' });
      clock.now += REQUEST_EXPIRY_MS + 1;
      expect(registry.requests()[0]?.state).toBe('expired');
      expect(codeOf(() => registry.decide(request.entry.id, 'approve'))).toMatch(
        /^forbidden: the request is expired/,
      );
      clock.now += REQUEST_PURGE_MS;
      registry.sweep();
      expect(registry.requests()).toHaveLength(0);
      expect(JSON.stringify(log.rows)).not.toContain(request.entry.id);
    });
  });

  it('refuses a log entry it cannot parse (fail closed)', () => {
    const log = new MemoryLog();
    log.rows.push({ t: 'grant', id: 'x' });
    expect(codeOf(() => new GrantRegistry(log).load(1))).toMatch(/^corrupt/);
  });
});
