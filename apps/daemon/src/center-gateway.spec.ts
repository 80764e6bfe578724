// The daemon's Center gateway against a real local HTTP server (not a Center): the transport rules
// that a well-behaved Center never exercises: redirects, silence, odd answers (CTR-7, CTR-8).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IpcError, type VaultRequest } from '@arslan/protocol';
import { centerSeamFor, SaasForwarder, TicketRedeemer } from './center-gateway';
import type { ResolvedCenter } from './daemon-centers';

const CREDENTIAL = 'am_' + 'c'.repeat(43);

describe('center gateway transport (CTR-7, CTR-8)', () => {
  let server: Server;
  let url: string;
  let handler: (req: IncomingMessage, res: ServerResponse) => void;
  const seen: { auth: string | undefined; path: string | undefined }[] = [];
  const bodies: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ auth: req.headers.authorization, path: req.url });
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        bodies.push(body);
        handler(req, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const center = (over: Partial<ResolvedCenter> = {}): ResolvedCenter => ({
    name: 'hq',
    url,
    mode: 'saas',
    vault: 'team',
    credential: CREDENTIAL,
    timeoutMs: 500,
    ...over,
  });
  const list: VaultRequest = { v: 1, id: 1, op: 'list', args: {} };
  const fail = async (p: Promise<unknown>) => {
    const e = (await p.catch((error: unknown) => error)) as IpcError;
    expect(e).toBeInstanceOf(IpcError);
    expect(e.message).not.toContain(CREDENTIAL);
    return e;
  };

  it('CTR-7: sends the member credential as a bearer to /v1/rpc with the configured vault', async () => {
    handler = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"cards":[]}');
    await expect(new SaasForwarder(center()).forward(list)).resolves.toEqual({
      vault: 'team',
      assets: [],
      center: 'hq',
    });
    expect(seen.at(-1)).toEqual({ auth: `Bearer ${CREDENTIAL}`, path: '/v1/rpc' });
  });

  it('redirects are refused, not followed (the bearer never goes elsewhere)', async () => {
    handler = (_req, res) => res.writeHead(307, { location: 'http://127.0.0.1:9/v1/rpc' }).end();
    expect((await fail(new SaasForwarder(center()).forward(list))).code).toBe('center_unavailable');
  });

  it('every request has a deadline', async () => {
    handler = () => undefined; // never answers
    const e = await fail(new SaasForwarder(center({ timeoutMs: 200 })).forward(list));
    expect(e.code).toBe('center_unavailable');
    expect(e.message).toMatch(/no answer within 200 ms/);
  });

  it('CTR-8: Center errors map to typed IPC errors; an answer of the wrong shape is not trusted', async () => {
    handler = (_req, res) =>
      res
        .writeHead(501, { 'content-type': 'application/json' })
        .end('{"error":{"code":"unsupported_operation","message":"no"}}');
    expect((await fail(new SaasForwarder(center()).forward(list))).code).toBe('unsupported_operation');
    handler = (_req, res) =>
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end('{"error":{"code":"invalid_credential","message":"x"}}');
    expect((await fail(new SaasForwarder(center()).forward(list))).code).toBe('center_refused');
    handler = (_req, res) => res.writeHead(503).end('busy');
    expect((await fail(new SaasForwarder(center()).forward(list))).code).toBe('center_unavailable');
    handler = (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"cards":"nope"}');
    const shape = await fail(new SaasForwarder(center()).forward(list));
    expect(shape.code).toBe('center_unavailable');
    expect(shape.message).toMatch(/unexpected shape/);
  });

  it('CTR-8: ops without a Center equivalent fail before any request', async () => {
    const before = seen.length;
    const e = await fail(
      new SaasForwarder(center()).forward({ v: 1, id: 2, op: 'search', args: { query: 'x' } }),
    );
    expect(e.code).toBe('unsupported_operation');
    expect(seen.length).toBe(before);
  });

  it('CTR-1: any configured Center yields a seam; only saas forwards, only ticket gates unlock', () => {
    expect(centerSeamFor([])).toBeUndefined();
    const ticketOnly = centerSeamFor([center({ mode: 'ticket', credential: null })])!;
    expect(ticketOnly.forward).toBeUndefined();
    expect(ticketOnly.checkUnlockTicket).toBeDefined();
    expect(ticketOnly.redeemEnrollmentTicket).toBeDefined();
    const saasOnly = centerSeamFor([center()])!;
    expect(saasOnly.forward).toBeDefined();
    expect(saasOnly.checkUnlockTicket).toBeUndefined();
    expect(saasOnly.redeemEnrollmentTicket).toBeUndefined();
  });

  it('CTR-4: a redemption answer is checked by the daemon too (expiry, vault, no elevation)', async () => {
    const answer = (over: object) => {
      handler = (_req, res) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: 't',
            kind: 'unlock',
            vault: 'team',
            member: 'olga',
            permits: ['local_password_unlock'],
            sudo: false,
            mcpElevation: false,
            boundDevice: null,
            expiresAt: new Date(Date.now() + 60_000).toISOString(),
            ...over,
          }),
        );
    };
    const redeemer = new TicketRedeemer(center({ mode: 'ticket', credential: null }));
    answer({});
    await expect(redeemer.checkUnlockTicket('act_x')).resolves.toBeUndefined();
    expect(seen.at(-1)).toEqual({ auth: undefined, path: '/v1/tickets/redeem' });
    answer({ expiresAt: new Date(Date.now() - 1).toISOString() });
    expect((await fail(redeemer.checkUnlockTicket('act_x'))).message).toMatch(/expired/);
    answer({ vault: 'elsewhere' });
    expect((await fail(redeemer.checkUnlockTicket('act_x'))).code).toBe('forbidden');
    answer({ sudo: true });
    expect((await fail(redeemer.checkUnlockTicket('act_x'))).code).toBe('forbidden');
    answer({ kind: 'unlock' });
    expect((await fail(redeemer.redeemMcpGrantTicket('act_x'))).code).toBe('forbidden');
    expect((await fail(redeemer.checkUnlockTicket(undefined))).code).toBe('center_managed');
  });

  it('CTR-1/CTR-3: redemption names the expected kind and vault; enrollment and MCP-grant answers are checked', async () => {
    const answer = (over: object) => {
      handler = (_req, res) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: 't',
            kind: 'mcp_grant',
            vault: 'team',
            member: 'olga',
            permits: ['mcp_grant'],
            sudo: false,
            mcpElevation: false,
            boundDevice: null,
            scope: 'read_write',
            grantMinutes: 15,
            expiresAt: new Date(Date.now() + 60_000).toISOString(),
            ...over,
          }),
        );
    };
    const redeemer = new TicketRedeemer(center({ mode: 'ticket', credential: null }));
    answer({});
    await expect(redeemer.redeemMcpGrantTicket('act_m')).resolves.toMatchObject({
      maxScope: 'read_write',
      maxMinutes: 15,
    });
    expect(JSON.parse(bodies.at(-1)!)).toEqual({ ticket: 'act_m', kind: 'mcp_grant', vault: 'team' });
    // An older Center that sends no bounds: read only.
    answer({ scope: undefined, grantMinutes: undefined });
    await expect(redeemer.redeemMcpGrantTicket('act_m')).resolves.toMatchObject({ maxScope: 'read' });
    // A scope no local grant has is not trusted.
    answer({ scope: 'allow_all' });
    expect((await fail(redeemer.redeemMcpGrantTicket('act_m'))).code).toBe('center_unavailable');
    answer({ kind: 'enrollment', permits: ['device_enrollment'], scope: null, grantMinutes: null });
    await expect(redeemer.redeemEnrollmentTicket('act_e')).resolves.toBeUndefined();
    expect(JSON.parse(bodies.at(-1)!)).toEqual({ ticket: 'act_e', kind: 'enrollment', vault: 'team' });
    answer({ kind: 'enrollment', permits: ['device_enrollment'], vault: 'elsewhere' });
    expect((await fail(redeemer.redeemEnrollmentTicket('act_e'))).code).toBe('forbidden');
    // The Center's refusal before spending maps to forbidden; a spent ticket to center_refused.
    handler = (_req, res) =>
      res
        .writeHead(403, { 'content-type': 'application/json' })
        .end('{"error":{"code":"ticket_wrong_kind","message":"this is not a enrollment ticket"}}');
    expect((await fail(redeemer.redeemEnrollmentTicket('act_e'))).code).toBe('forbidden');
    handler = (_req, res) =>
      res
        .writeHead(410, { 'content-type': 'application/json' })
        .end('{"error":{"code":"ticket_expired","message":"the ticket has expired"}}');
    const expired = await fail(redeemer.redeemEnrollmentTicket('act_e'));
    expect([expired.code, expired.message]).toEqual([
      'center_refused',
      expect.stringMatching(/ticket_expired/),
    ]);
  });
});
