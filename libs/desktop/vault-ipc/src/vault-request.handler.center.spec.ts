// The Center seam in the request handler (CTR-1, CTR-3/4, CTR-7/8). The seam's HTTP side is the
// daemon's (tested against real Centers in tests/e2e/center-daemon); here: what stays local.
import { IpcError, parseVaultRequest, VAULT_OPS, type VaultRequest } from '@arslan/protocol';
import { type CenterSeam, DEVICE_LOCAL_OPS } from './center-seam';
import { SessionPolicy } from './session-policy';
import { FakeVaultService } from './testing/fake-vault.service';
import { VaultRequestHandler } from './vault-request.handler';

const limits = {
  unlockIdleMs: 60_000,
  sudoMaxMs: 60_000,
  sudoIdleMs: 60_000,
  freeAttempts: 5,
  backoffBaseMs: 10,
  backoffMaxMs: 35,
};

describe('vault request handler with a Center (CTR-1, CTR-4, CTR-7, CTR-8)', () => {
  let service: FakeVaultService;
  const forwarded: VaultRequest[] = [];
  const tickets: (string | undefined)[] = [];

  const handlerWith = (center: CenterSeam) =>
    new VaultRequestHandler({
      service,
      policy: new SessionPolicy({ now: () => 1_000 }, limits),
      parentPidOf: () => undefined,
      dataDir: '/data',
      center,
    });
  const call = (h: VaultRequestHandler, op: string, args: unknown) =>
    h.handle(parseVaultRequest({ v: 1, id: 1, op, args }), { peer: undefined });

  beforeEach(() => {
    service = new FakeVaultService();
    forwarded.length = 0;
    tickets.length = 0;
  });

  it('CTR-1: init (and a restore into the data dir) is refused before the store is touched', async () => {
    const h = handlerWith({});
    await expect(call(h, 'init', { password: 'pw' })).rejects.toMatchObject({ code: 'center_managed' });
    await expect(
      call(h, 'restore', { path: '/tmp/b', backup_password: 'pw', password: 'pw' }),
    ).rejects.toMatchObject({ code: 'center_managed' });
    expect(service.callsOf('init') + service.callsOf('restore')).toBe(0);
  });

  it('CTR-7/CTR-8: every content op goes to the seam and never to the local store', async () => {
    const h = handlerWith({
      forward: (request) => {
        forwarded.push(request);
        return request.op === 'search'
          ? Promise.reject(new IpcError('unsupported_operation', 'no'))
          : Promise.resolve({ from: 'center' });
      },
    });
    service.unlocked = true;
    await expect(call(h, 'write', { title: 't', body: 'b' })).resolves.toEqual({ from: 'center' });
    await expect(call(h, 'list', {})).resolves.toEqual({ from: 'center' });
    await expect(call(h, 'search', { query: 'q' })).rejects.toMatchObject({ code: 'unsupported_operation' });
    expect(forwarded.map((r) => r.op)).toEqual(['write', 'list', 'search']);
    for (const op of [
      'write',
      'read',
      'list',
      'search',
      'history',
      'import',
      'card_write',
      'mcp_call',
      'vault_list',
    ])
      expect(service.callsOf(op)).toBe(0);
    // The device-local set is exactly session, audit and backup handling.
    expect(VAULT_OPS.filter((op) => DEVICE_LOCAL_OPS.has(op)).sort()).toEqual(
      ['audit_verify', 'backup', 'init', 'lock', 'restore', 'shutdown', 'status', 'sudo', 'unlock'].sort(),
    );
  });

  it('CTR-4: the unlock ticket is checked first; a refused ticket never reaches the password check', async () => {
    const h = handlerWith({
      checkUnlockTicket: (t) => {
        tickets.push(t);
        return t === 'good' ? Promise.resolve() : Promise.reject(new IpcError('forbidden', 'no'));
      },
    });
    await expect(call(h, 'unlock', { password: 'pw' })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(call(h, 'unlock', { password: 'pw', center_ticket: 'bad' })).rejects.toMatchObject({
      code: 'forbidden',
    });
    expect(service.callsOf('unlock')).toBe(0);
    await call(h, 'unlock', { password: service.password, center_ticket: 'good' });
    expect(service.callsOf('unlock')).toBe(1);
    expect(tickets).toEqual([undefined, 'bad', 'good']);
    // A standalone daemon refuses a ticket it cannot check rather than ignoring it.
    const standalone = new VaultRequestHandler({
      service,
      policy: new SessionPolicy({ now: () => 1_000 }, limits),
      parentPidOf: () => undefined,
      dataDir: '/data',
    });
    await expect(call(standalone, 'unlock', { password: 'pw', center_ticket: 'x' })).rejects.toMatchObject({
      code: 'bad_request',
    });
  });

  it('CTR-3: an MCP grant needs the ticket and stays within its bounds', async () => {
    const h = handlerWith({
      redeemMcpGrantTicket: (t) => {
        tickets.push(t);
        return Promise.resolve({ maxScope: 'read_write', maxMinutes: 8, notAfter: Date.now() + 10 * 60_000 });
      },
    });
    service.unlocked = true;
    const issue = (args: Record<string, unknown>) =>
      call(h, 'mcp_grant_issue', { vault: 'personal', minutes: 5, ...args });
    await expect(issue({ scope: 'read_write_delete', center_ticket: 't1' })).rejects.toMatchObject({
      code: 'forbidden',
    });
    await expect(issue({ minutes: 9, center_ticket: 't2' })).rejects.toMatchObject({
      code: 'forbidden',
      message: expect.stringMatching(/outlive/),
    });
    // Up to the ticket's scope and minutes, never beyond.
    await expect(issue({ minutes: 8, scope: 'read_write', center_ticket: 't3' })).resolves.toMatchObject({
      scope: 'read_write',
    });
    expect(tickets).toEqual(['t1', 't2', 't3']);
  });

  it('CTR-1: init and restore create the store only after an enrollment ticket was redeemed', async () => {
    const redeemed: string[] = [];
    const h = handlerWith({
      redeemEnrollmentTicket: (t) => {
        redeemed.push(t);
        return t === 'good' ? Promise.resolve() : Promise.reject(new IpcError('forbidden', 'not for this'));
      },
    });
    service.initialized = false;
    // Plain init is still refused, and nothing is redeemed for it.
    await expect(call(h, 'init', { password: 'pw' })).rejects.toMatchObject({ code: 'center_managed' });
    await expect(call(h, 'init', { password: 'pw', center_ticket: 'bad' })).rejects.toMatchObject({
      code: 'forbidden',
    });
    expect(service.callsOf('init')).toBe(0);
    await expect(call(h, 'init', { password: 'pw', center_ticket: 'good' })).resolves.toBeDefined();
    expect(service.callsOf('init')).toBe(1);
    // An existing store is refused before a ticket is spent.
    const restore = { path: '/tmp/b', backup_password: 'pw', password: 'pw', center_ticket: 'good' };
    await expect(call(h, 'restore', restore)).rejects.toMatchObject({ code: 'already_initialized' });
    expect(redeemed).toEqual(['bad', 'good']);
    service.initialized = false;
    await expect(call(h, 'restore', restore)).resolves.toBeDefined();
    expect(redeemed).toEqual(['bad', 'good', 'good']);
    // A saas-only seam cannot enroll: the ticket is refused as CTR-1 says.
    const saasOnly = handlerWith({ forward: () => Promise.resolve({}) });
    service.initialized = false;
    await expect(call(saasOnly, 'init', { password: 'pw', center_ticket: 'good' })).rejects.toMatchObject({
      code: 'center_managed',
    });
  });
});
