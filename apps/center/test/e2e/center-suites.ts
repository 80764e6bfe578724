// The Center's end-to-end rules, over real HTTP. Each suite runs against SQLite and
// PostgreSQL (center.sqlite.e2e.spec.ts, center.postgres.e2e.spec.ts).
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_ACTIVE_GRANTS } from '@arslan/policy';
import { newId, sha256Hex, type GrantRecord } from '@arslan/center-domain';
import { seedGrantsForTest } from '@arslan/center-data-access';
import { seedMembers, type Harness, type Reply } from '../support/center-harness';

const DAY = 24 * 3600_000;
let vaultSeq = 0;

/** A fresh vault per test keeps tests independent inside one database. */
function freshVault(): string {
  vaultSeq += 1;
  return `vault-${process.pid}-${vaultSeq}-${Math.random().toString(36).slice(2, 8)}`;
}

async function team(
  h: Harness,
  roles: Record<string, string>,
): Promise<{ vault: string; c: Record<string, string> }> {
  const vault = freshVault();
  const suffix = vault.slice(-6);
  const named: Record<string, string> = {};
  for (const [n, r] of Object.entries(roles)) named[`${n}-${suffix}`] = r;
  const creds = await seedMembers(h, vault, named);
  const c: Record<string, string> = {};
  for (const n of Object.keys(roles)) c[n] = creds[`${n}-${suffix}`] as string;
  c.suffix = suffix;
  return { vault, c };
}

function errorCode(res: Reply): string | undefined {
  return res.body?.error?.code;
}

export function authSuite(get: () => Harness): void {
  describe('CTR-9 / CTR-10 route guards', () => {
    it('CTR-9: the admin bearer on a content route gets 401 admin_bearer_not_allowed', async () => {
      const h = get();
      const { vault } = await team(h, { olga: 'owner' });
      for (const [m, p] of [
        ['GET', `/v1/vaults/${vault}/whoami`],
        ['GET', `/v1/vaults/${vault}/grants`],
        ['POST', '/v1/rpc'],
      ] as const) {
        const res = await h.call(m, p, {
          token: h.center.adminToken,
          ...(m === 'POST' ? { body: { vault, op: 'read' } } : {}),
        });
        expect(res.status).toBe(401);
        expect(errorCode(res)).toBe('admin_bearer_not_allowed');
      }
    });

    it('CTR-9: no bearer gives 401 unauthenticated, an unknown bearer 401 invalid_credential', async () => {
      const h = get();
      const none = await h.call('GET', '/v1/vaults/x/whoami');
      expect([none.status, errorCode(none)]).toEqual([401, 'unauthenticated']);
      const bad = await h.call('GET', '/v1/vaults/x/whoami', { token: 'acg_nope' });
      expect([bad.status, errorCode(bad)]).toEqual([401, 'invalid_credential']);
      const adminNone = await h.call('GET', '/v1/admin/status');
      expect([adminNone.status, errorCode(adminNone)]).toEqual([401, 'unauthenticated']);
    });

    it('CTR-9/CTR-10: members and allow_all grants get 403 admin_only on admin routes', async () => {
      const h = get();
      const { vault, c } = await team(h, { olga: 'owner' });
      const member = await h.call('GET', '/v1/admin/status', { token: c.olga });
      expect([member.status, errorCode(member)]).toEqual([403, 'admin_only']);
      const g = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: c.olga,
        body: { to: `olga-${c.suffix}`, scope: 'allow_all', minutes: 5 },
      });
      expect(g.status).toBe(201);
      for (const [m, p] of [
        ['GET', '/v1/admin/status'],
        ['POST', '/v1/admin/lock'],
        ['POST', '/v1/admin/members'],
        ['POST', '/v1/admin/tickets/enrollment'],
      ] as const) {
        const res = await h.call(m, p, { token: g.body.token, ...(m === 'POST' ? { body: {} } : {}) });
        expect([res.status, errorCode(res)]).toEqual([403, 'admin_only']);
      }
    });

    it('CTR-9: the admin bearer manages members, lock and unlock', async () => {
      const h = get();
      const { vault } = await team(h, { olga: 'owner', rita: 'reader' });
      const roster = await h.admin('GET', `/v1/admin/vaults/${vault}/members`);
      expect(roster.status).toBe(200);
      expect(roster.body.members.map((m: { role: string }) => m.role).sort()).toEqual(['owner', 'reader']);
      expect((await h.admin('GET', '/v1/admin/status')).body).toMatchObject({
        mode: 'ticket',
        locked: false,
        database: h.db,
      });
    });
  });
}

export function grantSuite(get: () => Harness): void {
  describe('GRANT rules', () => {
    it('GRANT-2/GRANT-10/GRANT-11: default scope read; the token appears once; only its SHA-256 is stored', async () => {
      const h = get();
      const { vault, c } = await team(h, { olga: 'owner', ed: 'editor' });
      const res = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: c.olga,
        body: { to: `ed-${c.suffix}`, minutes: 10 },
      });
      expect(res.status).toBe(201);
      expect(res.body.grant).toMatchObject({
        scope: 'read',
        depth: 1,
        subject: `ed-${c.suffix}`,
        issuer: `olga-${c.suffix}`,
      });
      expect(res.body.token).toMatch(/^acg_[A-Za-z0-9_-]{43}$/);
      const list = await h.call('GET', `/v1/vaults/${vault}/grants`, { token: c.olga });
      expect(list.body.grants).toHaveLength(1);
      expect(JSON.stringify(list.body)).not.toContain(res.body.token);
      const stored = await h.center.context.store.read((r) => r.findGrant(res.body.grant.id));
      expect(stored?.tokenHash).toBe(createHash('sha256').update(res.body.token).digest('hex'));
      expect(JSON.stringify(stored)).not.toContain(res.body.token);
      const who = await h.call('GET', `/v1/vaults/${vault}/whoami`, { token: res.body.token });
      expect(who.body).toMatchObject({ kind: 'grant', scope: 'read', depth: 1 });
    });

    it('GRANT-1/GRANT-3: readers and editors cannot issue; an admin cannot exceed read_write_delete', async () => {
      const h = get();
      const { vault, c } = await team(h, { olga: 'owner', ada: 'admin', ed: 'editor', rita: 'reader' });
      for (const who of ['ed', 'rita']) {
        const res = await h.call('POST', `/v1/vaults/${vault}/grants`, {
          token: c[who],
          body: { to: `rita-${c.suffix}`, minutes: 5 },
        });
        expect([res.status, errorCode(res)]).toEqual([403, 'grant_issuer_cannot_delegate']);
      }
      const over = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: c.ada,
        body: { to: `ada-${c.suffix}`, scope: 'allow_all', minutes: 5 },
      });
      expect([over.status, errorCode(over)]).toEqual([403, 'grant_scope_exceeds_role']);
      const ok = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: c.ada,
        body: { to: `ed-${c.suffix}`, scope: 'read_write', minutes: 5 },
      });
      expect(ok.status).toBe(201);
    });

    it('GRANT-5: lifetime must be 1-60 minutes', async () => {
      const h = get();
      const { vault, c } = await team(h, { olga: 'owner' });
      for (const minutes of [0, 61]) {
        const res = await h.call('POST', `/v1/vaults/${vault}/grants`, {
          token: c.olga,
          body: { to: `olga-${c.suffix}`, minutes },
        });
        expect([res.status, errorCode(res)]).toEqual([400, 'grant_bad_lifetime']);
      }
    });

    it('GRANT-4/GRANT-6: re-delegation adds depth, never exceeds parent scope or lifetime, and stops above depth 2', async () => {
      const h = get();
      const { vault, c } = await team(h, { olga: 'owner', ada: 'admin', ed: 'editor' });
      const d1 = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: c.olga,
        body: { to: `ada-${c.suffix}`, scope: 'read_write', minutes: 10 },
      });
      expect(d1.body.grant.depth).toBe(1);
      const wider = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: d1.body.token,
        body: { to: `ed-${c.suffix}`, scope: 'read_write_delete', minutes: 5 },
      });
      expect([wider.status, errorCode(wider)]).toEqual([403, 'grant_scope_exceeds_parent']);
      const longer = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: d1.body.token,
        body: { to: `ed-${c.suffix}`, minutes: 30 },
      });
      expect([longer.status, errorCode(longer)]).toEqual([403, 'grant_outlives_parent']);
      const d2 = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: d1.body.token,
        body: { to: `ed-${c.suffix}`, minutes: 5 },
      });
      expect(d2.status).toBe(201);
      expect(d2.body.grant).toMatchObject({
        depth: 2,
        issuer: `ada-${c.suffix}`,
        parentId: d1.body.grant.id,
      });
      // ed is an editor: cannot delegate (GRANT-3) — use a grant held by an admin at depth 2 instead.
      const d2admin = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: d1.body.token,
        body: { to: `ada-${c.suffix}`, minutes: 5 },
      });
      const d3 = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: d2admin.body.token,
        body: { to: `ed-${c.suffix}`, minutes: 1 },
      });
      expect([d3.status, errorCode(d3)]).toEqual([403, 'grant_depth_exceeded']);
    });

    it('GRANT-4: a grant token only works in its own vault', async () => {
      const h = get();
      const { vault, c } = await team(h, { olga: 'owner' });
      const g = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: c.olga,
        body: { to: `olga-${c.suffix}`, minutes: 5 },
      });
      const other = await h.call('GET', `/v1/vaults/${vault}-other/whoami`, { token: g.body.token });
      expect([other.status, errorCode(other)]).toEqual([403, 'insufficient_scope']);
    });

    it('GRANT-7: the recipient must be a member no higher than the issuer, never center-admin', async () => {
      const h = get();
      const { vault, c } = await team(h, { olga: 'owner', ada: 'admin' });
      const stranger = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: c.olga,
        body: { to: 'nobody', minutes: 5 },
      });
      expect([stranger.status, errorCode(stranger)]).toEqual([403, 'grant_recipient_not_member']);
      const reserved = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: c.olga,
        body: { to: 'center-admin', minutes: 5 },
      });
      expect([reserved.status, errorCode(reserved)]).toEqual([403, 'grant_reserved_recipient']);
      const higher = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: c.ada,
        body: { to: `olga-${c.suffix}`, minutes: 5 },
      });
      expect([higher.status, errorCode(higher)]).toEqual([403, 'grant_recipient_role_too_high']);
      const admin = await h.admin('POST', '/v1/admin/members', { name: 'center-admin' });
      expect([admin.status, errorCode(admin)]).toEqual([400, 'bad_request']);
    });

    it('GRANT-14: revoking a grant revokes all its descendants', async () => {
      const h = get();
      const { vault, c } = await team(h, { olga: 'owner', ada: 'admin', ed: 'editor' });
      const d1 = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: c.olga,
        body: { to: `ada-${c.suffix}`, minutes: 10 },
      });
      const d2 = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: d1.body.token,
        body: { to: `ed-${c.suffix}`, minutes: 5 },
      });
      const other = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: c.olga,
        body: { to: `ed-${c.suffix}`, minutes: 5 },
      });
      const rev = await h.call('DELETE', `/v1/vaults/${vault}/grants/${d1.body.grant.id}`, { token: c.olga });
      expect(rev.status).toBe(200);
      expect(rev.body.revoked.sort()).toEqual([d1.body.grant.id, d2.body.grant.id].sort());
      for (const t of [d1.body.token, d2.body.token]) {
        const res = await h.call('GET', `/v1/vaults/${vault}/whoami`, { token: t });
        expect([res.status, errorCode(res)]).toEqual([401, 'invalid_credential']);
      }
      expect((await h.call('GET', `/v1/vaults/${vault}/whoami`, { token: other.body.token })).status).toBe(
        200,
      );
      const again = await h.call('DELETE', `/v1/vaults/${vault}/grants/${d1.body.grant.id}`, {
        token: c.olga,
      });
      expect([again.status, errorCode(again)]).toEqual([404, 'not_found']);
    });

    it('GRANT-15: a role drop below an issued scope, or a removal, invalidates grants in the same commit', async () => {
      const h = get();
      const { vault, c } = await team(h, { olga: 'owner', ada: 'admin', ed: 'editor' });
      const rwd = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: c.ada,
        body: { to: `ada-${c.suffix}`, scope: 'read_write_delete', minutes: 10 },
      });
      const child = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: rwd.body.token,
        body: { to: `ed-${c.suffix}`, minutes: 5 },
      });
      const toEd = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: c.olga,
        body: { to: `ed-${c.suffix}`, minutes: 10 },
      });
      const drop = await h.admin('PUT', `/v1/admin/vaults/${vault}/members/ada-${c.suffix}`, {
        role: 'editor',
      });
      expect(drop.body).toEqual({ invalidated: 2 });
      expect((await h.call('GET', `/v1/vaults/${vault}/whoami`, { token: rwd.body.token })).status).toBe(401);
      expect((await h.call('GET', `/v1/vaults/${vault}/whoami`, { token: child.body.token })).status).toBe(
        401,
      );
      expect((await h.call('GET', `/v1/vaults/${vault}/whoami`, { token: toEd.body.token })).status).toBe(
        200,
      );
      const removed = await h.admin('DELETE', `/v1/admin/members/ed-${c.suffix}`);
      expect(removed.body).toEqual({ invalidated: 1 });
      expect((await h.call('GET', `/v1/vaults/${vault}/whoami`, { token: toEd.body.token })).status).toBe(
        401,
      );
      expect((await h.call('GET', `/v1/vaults/${vault}/whoami`, { token: c.ed })).status).toBe(401);
    });

    it('GRANT-12: lock suspends grants without revoking them; unlock makes them valid again', async () => {
      const h = get();
      const { vault, c } = await team(h, { olga: 'owner' });
      const g = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: c.olga,
        body: { to: `olga-${c.suffix}`, minutes: 5 },
      });
      expect((await h.admin('POST', '/v1/admin/lock', {})).body).toEqual({ locked: true });
      try {
        const locked = await h.call('GET', `/v1/vaults/${vault}/whoami`, { token: g.body.token });
        expect([locked.status, errorCode(locked)]).toEqual([423, 'center_locked']);
      } finally {
        expect((await h.admin('POST', '/v1/admin/unlock', {})).body).toEqual({ locked: false });
      }
      expect((await h.call('GET', `/v1/vaults/${vault}/whoami`, { token: g.body.token })).status).toBe(200);
    });

    it('GRANT-13: expired grants stop working and are purged with their descendants', async () => {
      const h = get();
      const { vault, c } = await team(h, { olga: 'owner', ada: 'admin' });
      const g = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: c.olga,
        body: { to: `ada-${c.suffix}`, minutes: 2 },
      });
      const child = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: g.body.token,
        body: { to: `ada-${c.suffix}`, minutes: 1 },
      });
      expect(child.status).toBe(201);
      h.clock.offset += 3 * 60_000;
      try {
        const res = await h.call('GET', `/v1/vaults/${vault}/whoami`, { token: g.body.token });
        expect([res.status, errorCode(res)]).toEqual([401, 'invalid_credential']);
        const sweep = await h.admin('POST', '/v1/admin/sweep', {});
        expect(sweep.body.grantsPurged).toBeGreaterThanOrEqual(2);
        const left = await h.center.context.store.read((r) => r.grantsOfVault(vault));
        expect(left).toEqual([]);
      } finally {
        h.clock.offset -= 3 * 60_000;
      }
    });
  });
}

export function requestSuite(get: () => Harness): void {
  describe('REQ rules', () => {
    async function requestAs(h: Harness, vault: string, token: string, body: object = { minutes: 5 }) {
      return h.call('POST', `/v1/vaults/${vault}/requests`, { token, body });
    }

    it('REQ-6: role requests are refused with 400 role_request_unsupported', async () => {
      const h = get();
      const { vault, c } = await team(h, { rita: 'reader' });
      const res = await requestAs(h, vault, c.rita as string, { kind: 'role', minutes: 5 });
      expect([res.status, errorCode(res)]).toEqual([400, 'role_request_unsupported']);
    });

    it('REQ-1/REQ-2/REQ-3: approve records bounds only; the requester claims once and gets the token once', async () => {
      const h = get();
      const { vault, c } = await team(h, { olga: 'owner', ed: 'editor', rita: 'reader' });
      const req = await requestAs(h, vault, c.ed as string, { scope: 'read_write', minutes: 7 });
      expect(req.status).toBe(201);
      expect(req.body).toMatchObject({ status: 'pending', kind: 'scope', scope: 'read_write', minutes: 7 });
      const approved = await h.call('POST', `/v1/vaults/${vault}/requests/${req.body.id}/approve`, {
        token: c.olga,
        body: {},
      });
      expect(approved.status).toBe(200);
      expect(approved.body.status).toBe('approved');
      expect(JSON.stringify(approved.body)).not.toMatch(/acg_/);
      expect(await h.center.context.store.read((r) => r.grantsOfVault(vault))).toEqual([]);
      const wrong = await h.call('POST', `/v1/vaults/${vault}/requests/${req.body.id}/claim`, {
        token: c.rita,
        body: {},
      });
      expect([wrong.status, errorCode(wrong)]).toEqual([403, 'not_requester']);
      const claim = await h.call('POST', `/v1/vaults/${vault}/requests/${req.body.id}/claim`, {
        token: c.ed,
        body: {},
      });
      expect(claim.status).toBe(200);
      expect(claim.body.grant).toMatchObject({
        scope: 'read_write',
        subject: `ed-${c.suffix}`,
        issuer: `olga-${c.suffix}`,
        depth: 1,
      });
      expect(claim.body.token).toMatch(/^acg_/);
      const again = await h.call('POST', `/v1/vaults/${vault}/requests/${req.body.id}/claim`, {
        token: c.ed,
        body: {},
      });
      expect([again.status, errorCode(again)]).toEqual([409, 'request_not_claimable']);
      const list = await h.call('GET', `/v1/vaults/${vault}/requests`, { token: c.olga });
      expect(list.body.requests[0].status).toBe('claimed');
      expect(JSON.stringify(list.body)).not.toContain(claim.body.token);
    });

    it('REQ-7: nobody approves or denies their own request', async () => {
      const h = get();
      const { vault, c } = await team(h, { olga: 'owner' });
      const req = await requestAs(h, vault, c.olga as string);
      for (const action of ['approve', 'deny']) {
        const res = await h.call('POST', `/v1/vaults/${vault}/requests/${req.body.id}/${action}`, {
          token: c.olga,
          body: {},
        });
        expect([res.status, errorCode(res)]).toEqual([403, 'self_approval']);
      }
    });

    it('REQ-8: a delegated caller may create requests but not approve, deny, cancel or claim', async () => {
      const h = get();
      const { vault, c } = await team(h, { olga: 'owner', ada: 'admin', ed: 'editor' });
      const delegated = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: c.olga,
        body: { to: `ada-${c.suffix}`, minutes: 10 },
      });
      const own = await requestAs(h, vault, delegated.body.token);
      expect(own.status).toBe(201);
      const edReq = await requestAs(h, vault, c.ed as string);
      for (const [id, action] of [
        [edReq.body.id, 'approve'],
        [edReq.body.id, 'deny'],
        [own.body.id, 'cancel'],
        [own.body.id, 'claim'],
      ]) {
        const res = await h.call('POST', `/v1/vaults/${vault}/requests/${id}/${action}`, {
          token: delegated.body.token,
          body: {},
        });
        expect([res.status, errorCode(res)]).toEqual([403, 'delegated_caller']);
      }
      const deny = await h.call('POST', `/v1/vaults/${vault}/requests/${edReq.body.id}/deny`, {
        token: c.ada,
        body: {},
      });
      expect(deny.body.status).toBe('denied');
      const cancel = await h.call('POST', `/v1/vaults/${vault}/requests/${edReq.body.id}/cancel`, {
        token: c.ed,
        body: {},
      });
      expect([cancel.status, errorCode(cancel)]).toEqual([409, 'request_not_pending']);
    });

    it('REQ-3: 50 parallel claims of one approved request yield exactly one token', async () => {
      const h = get();
      const { vault, c } = await team(h, { olga: 'owner', ed: 'editor' });
      const req = await requestAs(h, vault, c.ed as string);
      await h.call('POST', `/v1/vaults/${vault}/requests/${req.body.id}/approve`, {
        token: c.olga,
        body: {},
      });
      const results = await Promise.all(
        Array.from({ length: 50 }, () =>
          h.call('POST', `/v1/vaults/${vault}/requests/${req.body.id}/claim`, { token: c.ed, body: {} }),
        ),
      );
      const ok = results.filter((r) => r.status === 200);
      expect(ok).toHaveLength(1);
      expect(
        results.filter((r) => r.status === 409 && errorCode(r) === 'request_not_claimable'),
      ).toHaveLength(49);
      expect(await h.center.context.store.read((r) => r.grantsOfVault(vault))).toHaveLength(1);
    });

    it('REQ-9: parallel creation never exceeds 20 pending per requester or 200 per vault', async () => {
      const h = get();
      const roles: Record<string, string> = {};
      for (let i = 0; i < 11; i++) roles[`m${i}`] = 'reader';
      const { vault, c } = await team(h, roles);
      const one = await Promise.all(Array.from({ length: 30 }, () => requestAs(h, vault, c.m0 as string)));
      expect(one.filter((r) => r.status === 201)).toHaveLength(20);
      expect(one.filter((r) => r.status === 409 && errorCode(r) === 'too_many_pending')).toHaveLength(10);
      const rest = await Promise.all(
        Array.from({ length: 10 }, (_, i) => i + 1).flatMap((i) =>
          Array.from({ length: 20 }, () => requestAs(h, vault, c[`m${i}`] as string)),
        ),
      );
      expect(rest.filter((r) => r.status === 201)).toHaveLength(180);
      expect(await h.center.context.store.read((r) => r.countPending(vault))).toBe(200);
    });

    it('REQ-10/REQ-11: pending requests expire after 7 days and are purged 30 days after the last transition', async () => {
      const h = get();
      const { vault, c } = await team(h, { olga: 'owner', ed: 'editor' });
      const req = await requestAs(h, vault, c.ed as string);
      h.clock.offset += 7 * DAY + 60_000;
      try {
        const late = await h.call('POST', `/v1/vaults/${vault}/requests/${req.body.id}/approve`, {
          token: c.olga,
          body: {},
        });
        expect([late.status, errorCode(late)]).toEqual([409, 'request_not_pending']);
        const sweep = await h.admin('POST', '/v1/admin/sweep', {});
        expect(sweep.body.requestsExpired).toBeGreaterThanOrEqual(1);
        expect(
          (await h.call('GET', `/v1/vaults/${vault}/requests`, { token: c.olga })).body.requests[0].status,
        ).toBe('expired');
        h.clock.offset += 30 * DAY + 60_000;
        await h.admin('POST', '/v1/admin/sweep', {});
        expect(
          (await h.call('GET', `/v1/vaults/${vault}/requests`, { token: c.olga })).body.requests,
        ).toEqual([]);
      } finally {
        h.clock.offset = 0;
      }
    });
  });
}

export function grantLimitSuite(get: () => Harness): void {
  it('GRANT-9: parallel issuing never exceeds 10,000 active grants', async () => {
    const h = get();
    const { vault, c } = await team(h, { olga: 'owner' });
    const now = h.clock.now();
    const active = await h.center.context.store.read((r) => r.countActiveGrants(now));
    const fill = MAX_ACTIVE_GRANTS - active - 10;
    const seeded: GrantRecord[] = Array.from({ length: fill }, (_, i) => ({
      id: newId(),
      tokenHash: sha256Hex(`seed-${vault}-${i}`),
      vault: `${vault}-seed`,
      scope: 'read',
      issuer: 'seed',
      subject: 'seed',
      depth: 1,
      parentId: null,
      expiresAt: now + 30 * 60_000,
      createdAt: now,
    }));
    await seedGrantsForTest(h.center.context.store, seeded);
    try {
      const results = await Promise.all(
        Array.from({ length: 100 }, () =>
          h.call('POST', `/v1/vaults/${vault}/grants`, {
            token: c.olga,
            body: { to: `olga-${c.suffix}`, minutes: 5 },
          }),
        ),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(10);
      const refused = results.filter((r) => r.status !== 201);
      expect(new Set(refused.map((r) => `${r.status} ${errorCode(r)}`))).toEqual(
        new Set(['409 grant_too_many_grants']),
      );
      expect(await h.center.context.store.read((r) => r.countActiveGrants(h.clock.now()))).toBe(
        MAX_ACTIVE_GRANTS,
      );
    } finally {
      await h.center.context.store.write([], (r) => r.deleteGrants(seeded.map((g) => g.id)));
    }
  }, 60_000);
}

export function ticketSuite(get: () => Harness): void {
  describe('CTR-3/CTR-4 ticket mode', () => {
    it('CTR-4: an unlock ticket is reusable until expiry, bound to no device, and permits only a local password unlock', async () => {
      const h = get();
      const { vault, c } = await team(h, { rita: 'reader' });
      const t = await h.call('POST', `/v1/vaults/${vault}/tickets/unlock`, {
        token: c.rita,
        body: { minutes: 10 },
      });
      expect(t.status).toBe(201);
      expect(t.body).toMatchObject({ kind: 'unlock', reusable: true, permits: ['local_password_unlock'] });
      for (let i = 0; i < 3; i++) {
        const r = await h.call('POST', '/v1/tickets/redeem', { body: { ticket: t.body.ticket } });
        expect(r.status).toBe(200);
        expect(r.body).toMatchObject({
          kind: 'unlock',
          permits: ['local_password_unlock'],
          sudo: false,
          mcpElevation: false,
          boundDevice: null,
        });
      }
      h.clock.offset += 11 * 60_000;
      try {
        const late = await h.call('POST', '/v1/tickets/redeem', { body: { ticket: t.body.ticket } });
        expect([late.status, errorCode(late)]).toEqual([410, 'ticket_expired']);
      } finally {
        h.clock.offset -= 11 * 60_000;
      }
    });

    it('CTR-3: enrollment tickets come only from the admin bearer and are single use', async () => {
      const h = get();
      const { vault, c } = await team(h, { olga: 'owner' });
      const byMember = await h.call('POST', '/v1/admin/tickets/enrollment', {
        token: c.olga,
        body: { vault, member: `olga-${c.suffix}`, minutes: 5 },
      });
      expect([byMember.status, errorCode(byMember)]).toEqual([403, 'admin_only']);
      const t = await h.admin('POST', '/v1/admin/tickets/enrollment', {
        vault,
        member: `olga-${c.suffix}`,
        minutes: 5,
      });
      expect(t.status).toBe(201);
      expect(
        (await h.call('POST', '/v1/tickets/redeem', { body: { ticket: t.body.ticket } })).body.permits,
      ).toEqual(['device_enrollment']);
      const again = await h.call('POST', '/v1/tickets/redeem', { body: { ticket: t.body.ticket } });
      expect([again.status, errorCode(again)]).toEqual([409, 'ticket_used']);
    });

    it('CTR-3: MCP-grant tickets follow the grant rules (GRANT-1, GRANT-3)', async () => {
      const h = get();
      const { vault, c } = await team(h, { ada: 'admin', rita: 'reader' });
      const ok = await h.call('POST', `/v1/vaults/${vault}/tickets/mcp-grant`, {
        token: c.ada,
        body: { scope: 'read_write', minutes: 5 },
      });
      expect(ok.status).toBe(201);
      expect(ok.body).toMatchObject({ kind: 'mcp_grant', reusable: false });
      // allow_all is the hosted surface only (CTR-10): never the bound of a daemon's local grant.
      const over = await h.call('POST', `/v1/vaults/${vault}/tickets/mcp-grant`, {
        token: c.ada,
        body: { scope: 'allow_all', minutes: 5 },
      });
      expect([over.status, errorCode(over)]).toEqual([400, 'bad_request']);
      const long = await h.call('POST', `/v1/vaults/${vault}/tickets/mcp-grant`, {
        token: c.ada,
        body: { scope: 'read', minutes: 61 },
      });
      expect(long.status).toBe(400);
      const reader = await h.call('POST', `/v1/vaults/${vault}/tickets/mcp-grant`, {
        token: c.rita,
        body: { minutes: 5 },
      });
      expect([reader.status, errorCode(reader)]).toEqual([403, 'grant_issuer_cannot_delegate']);
    });

    it('CTR-3: an MCP-grant ticket carries its scope and longest grant; other kinds carry none', async () => {
      const h = get();
      const { vault, c } = await team(h, { ada: 'admin' });
      const issue = (body: Record<string, unknown>) =>
        h.call('POST', `/v1/vaults/${vault}/tickets/mcp-grant`, { token: c.ada, body });
      const wide = await issue({ scope: 'read_write_delete', minutes: 20 });
      expect(wide.body).toMatchObject({ scope: 'read_write_delete', grantMinutes: 20 });
      const redeemed = await h.call('POST', '/v1/tickets/redeem', { body: { ticket: wide.body.ticket } });
      expect(redeemed.status).toBe(200);
      expect(redeemed.body).toMatchObject({
        kind: 'mcp_grant',
        scope: 'read_write_delete',
        grantMinutes: 20,
      });
      // GRANT-2: no scope asked means read.
      const plain = await issue({ minutes: 7 });
      const r2 = await h.call('POST', '/v1/tickets/redeem', { body: { ticket: plain.body.ticket } });
      expect(r2.body).toMatchObject({ scope: 'read', grantMinutes: 7 });
      const unlock = await h.call('POST', `/v1/vaults/${vault}/tickets/unlock`, {
        token: c.ada,
        body: { minutes: 10 },
      });
      expect(unlock.body).toMatchObject({ scope: null, grantMinutes: null });
      const r3 = await h.call('POST', '/v1/tickets/redeem', { body: { ticket: unlock.body.ticket } });
      expect(r3.body).toMatchObject({ kind: 'unlock', scope: null, grantMinutes: null });
    });

    it('CTR-1/CTR-3: a redeemer that names the kind and vault it expects gets a typed refusal and the ticket stays unspent', async () => {
      const h = get();
      const { vault, c } = await team(h, { olga: 'owner' });
      const t = await h.admin('POST', '/v1/admin/tickets/enrollment', {
        vault,
        member: `olga-${c.suffix}`,
        minutes: 5,
      });
      const redeem = (body: Record<string, unknown>) =>
        h.call('POST', '/v1/tickets/redeem', { body: { ticket: t.body.ticket, ...body } });
      const kind = await redeem({ kind: 'mcp_grant', vault });
      expect([kind.status, errorCode(kind)]).toEqual([403, 'ticket_wrong_kind']);
      const other = await redeem({ kind: 'enrollment', vault: `${vault}-other` });
      expect([other.status, errorCode(other)]).toEqual([403, 'ticket_wrong_vault']);
      const bad = await redeem({ kind: 'device_pairing' });
      expect([bad.status, errorCode(bad)]).toEqual([400, 'bad_request']);
      const ok = await redeem({ kind: 'enrollment', vault });
      expect([ok.status, ok.body.kind, ok.body.vault]).toEqual([200, 'enrollment', vault]);
      const again = await redeem({ kind: 'enrollment', vault });
      expect([again.status, errorCode(again)]).toEqual([409, 'ticket_used']);
    });

    it('CTR-8: content RPC fails directly in ticket mode (501 unsupported_operation)', async () => {
      const h = get();
      const { vault, c } = await team(h, { rita: 'reader' });
      const res = await h.call('POST', '/v1/rpc', { token: c.rita, body: { vault, op: 'memory.search' } });
      expect([res.status, errorCode(res)]).toEqual([501, 'unsupported_operation']);
    });
  });
}

export function inputSuite(get: () => Harness): void {
  describe('bad input: 400 with a typed error and no state change', () => {
    it('malformed JSON, unknown fields, wrong types and oversized bodies', async () => {
      const h = get();
      const { vault, c } = await team(h, { olga: 'owner' });
      const path = `/v1/vaults/${vault}/grants`;
      const cases: [string, Parameters<Harness['call']>[2], string][] = [
        ['malformed JSON', { token: c.olga, raw: '{"to":' }, 'malformed_json'],
        [
          'unknown field',
          { token: c.olga, body: { to: `olga-${c.suffix}`, minutes: 5, admin: true } },
          'bad_request',
        ],
        ['wrong type', { token: c.olga, body: { to: `olga-${c.suffix}`, minutes: '5' } }, 'bad_request'],
        [
          'unknown scope',
          { token: c.olga, body: { to: `olga-${c.suffix}`, minutes: 5, scope: 'root' } },
          'bad_request',
        ],
        ['array body', { token: c.olga, raw: '[1]' }, 'bad_request'],
        ['oversized', { token: c.olga, body: { to: 'x'.repeat(70_000), minutes: 5 } }, 'body_too_large'],
      ];
      for (const [what, opts, code] of cases) {
        const res = await h.call('POST', path, opts);
        expect({ what, status: res.status, code: errorCode(res) }).toEqual({ what, status: 400, code });
        expect(typeof res.body.error.message).toBe('string');
      }
      const member = await h.admin('POST', '/v1/admin/members', { name: 'zed', extra: 1 });
      expect([member.status, errorCode(member)]).toEqual([400, 'bad_request']);
      expect(await h.center.context.store.read((r) => r.grantsOfVault(vault))).toEqual([]);
      expect(await h.center.context.store.read((r) => r.findMember('zed'))).toBeNull();
      const badVault = await h.call('GET', '/v1/vaults/..%2Fetc/grants', { token: c.olga });
      expect(badVault.status).toBe(400);
    });
  });
}

export function auditSuite(get: () => Harness): void {
  describe('AUD-3 audit chain', () => {
    it('AUD-3: a state-changing request whose audit append fails is refused and changes nothing', async () => {
      const h = get();
      const { vault, c } = await team(h, { olga: 'owner' });
      const file = join(h.dataDir, 'audit.jsonl');
      rmSync(file);
      mkdirSync(file); // appends now fail with EISDIR
      try {
        const res = await h.call('POST', `/v1/vaults/${vault}/grants`, {
          token: c.olga,
          body: { to: `olga-${c.suffix}`, minutes: 5 },
        });
        expect([res.status, errorCode(res)]).toEqual([503, 'audit_unavailable']);
        expect(await h.center.context.store.read((r) => r.grantsOfVault(vault))).toEqual([]);
        const m = await h.admin('POST', '/v1/admin/members', { name: `late-${c.suffix}` });
        expect(m.status).toBe(503);
        expect(await h.center.context.store.read((r) => r.findMember(`late-${c.suffix}`))).toBeNull();
      } finally {
        rmSync(file, { recursive: true });
      }
    });
  });
}
