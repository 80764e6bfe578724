// The generated @arslan/center-client against a real Center (SQLite): the OpenAPI contract holds.
import { CenterApiError, CenterClient } from '@arslan/center-client';
import { startHarness, type Harness } from '../support/center-harness';

describe('center-client against a running Center', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('sqlite');
  });
  afterAll(() => h.stop());

  it('admin, member and grant flows through the typed client; errors carry the typed code', async () => {
    const admin = new CenterClient({ baseUrl: h.center.url, adminToken: h.center.adminToken });
    const olga = await admin.call('createMember', { body: { name: 'olga' } });
    await admin.call('createMember', { body: { name: 'ed' } });
    await admin.call('setMemberRole', { params: { vault: 'v', name: 'olga' }, body: { role: 'owner' } });
    await admin.call('setMemberRole', { params: { vault: 'v', name: 'ed' }, body: { role: 'editor' } });
    const owner = new CenterClient({ baseUrl: h.center.url, token: olga.credential });
    const issued = await owner.call('issueGrant', {
      params: { vault: 'v' },
      body: { to: 'ed', scope: 'read_write', minutes: 5 },
    });
    expect(issued.grant.scope).toBe('read_write');
    const asGrant = new CenterClient({ baseUrl: h.center.url, token: issued.token });
    expect(await asGrant.call('whoami', { params: { vault: 'v' } })).toMatchObject({
      kind: 'grant',
      name: 'ed',
      depth: 1,
    });
    expect((await admin.call('status', {})).mode).toBe('ticket');
    expect(await admin.call('readyz', {})).toEqual({ status: 'ok', database: 'sqlite' });
    const err = await owner
      .call('issueGrant', { params: { vault: 'v' }, body: { to: 'ed', minutes: 99 } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CenterApiError);
    expect(err).toMatchObject({ status: 400, code: 'grant_bad_lifetime' });
  });
});
