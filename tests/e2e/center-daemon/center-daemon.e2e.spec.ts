// End to end (CTR-1, CTR-3/4, CTR-7/8): real Centers (apps/center on SQLite, real ports) and the
// real daemon process (apps/daemon/src/main.ts) with a `[[centers]]` config, over real HTTP and IPC;
// the `memories` CLI (apps/cli/src/memories.ts, from source) passes tickets from a file or the env.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CenterClient } from '@arslan/center-client';
import { DaemonClient } from '@arslan/daemon-client';
import { IpcError } from '@arslan/protocol';

jest.setTimeout(180_000);

const ROOT = join(__dirname, '..', '..', '..');
const DAEMON_MAIN = join(ROOT, 'apps/daemon/src/main.ts');
const CENTER_MAIN = join(ROOT, 'apps/center/src/main.ts');
const CLI_MAIN = join(ROOT, 'apps/cli/src/memories.ts');
const PASSWORD = 'center daemon e2e password';
const TEAM_VAULT = 'team';

interface Proc {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

function run(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<Proc & { match: RegExpExecArray }> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    const onData = (c: Buffer) => {
      out += c.toString();
      const match = ready.exec(out);
      if (match) resolve({ child, output: () => out, exit, match });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    void exit.then((code) => reject(new Error(`exited ${code} before ready: ${out}`)));
  });
}

interface Center {
  url: string;
  admin: CenterClient;
  proc: Proc;
}

/** A real Center process (`arslan-center serve`) on SQLite in a temp dir, on a free port. */
async function startCenter(mode: 'saas' | 'ticket'): Promise<Center> {
  const data = mkdtempSync(join(work, `center-${mode}-`));
  const proc = await run(
    [CENTER_MAIN, 'serve', '--data', data, '--port', '0', '--mode', mode],
    mode === 'saas' ? { ARSLAN_CENTER_STORE_PASSWORD: 'operator store password' } : {},
    /ARSLAN_CENTER_PORT=(\d+)/,
  );
  const url = `http://127.0.0.1:${proc.match[1]}`;
  const adminToken = readFileSync(join(data, 'admin-token'), 'utf8').trim();
  return { url, proc, admin: new CenterClient({ baseUrl: url, adminToken }) };
}

async function member(c: Center, name: string, vaults: string[]): Promise<CenterClient> {
  const created = await c.admin.call('createMember', { body: { name } });
  for (const vault of vaults)
    await c.admin.call('setMemberRole', { params: { vault, name }, body: { role: 'owner' } });
  secrets.push(created.credential);
  return new CenterClient({ baseUrl: c.url, token: created.credential });
}

interface Daemon {
  client: DaemonClient;
  stop(): Promise<void>;
}

let work: string;
const dataDir = () => join(work, 'data');
const printed: string[] = [];
const secrets: string[] = [];
let configs = 0;

async function startDaemon(
  configToml: string | null,
  env: Record<string, string> = {},
  data = dataDir(),
): Promise<Daemon> {
  const args = [DAEMON_MAIN, '--data', data];
  if (configToml !== null) {
    const file = join(work, `daemon-${++configs}.toml`);
    writeFileSync(file, configToml);
    args.push('--config', file);
  }
  const proc = await run(args, env, /ARSLAN_VAULT_SOCKET=/);
  const client = await DaemonClient.connect(data, { timeoutMs: 30_000 });
  return {
    client,
    async stop() {
      client.close();
      proc.child.kill('SIGTERM');
      await proc.exit;
      printed.push(proc.output());
    },
  };
}

async function ipcError(p: Promise<unknown>): Promise<IpcError> {
  const e = await p.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(e).toBeInstanceOf(IpcError);
  return e as IpcError;
}

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The real `memories` CLI from source, against the daemon already listening on `data`. */
function memories(
  data: string,
  args: string[],
  env: Record<string, string> = {},
  stdin = '',
): Promise<CliRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI_MAIN, '--data', data, ...args], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin.end(stdin);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      printed.push(stdout, stderr);
      resolve({ code, stdout, stderr });
    }),
  );
}

function centerToml(name: string, url: string, mode: 'saas' | 'ticket', extra = ''): string {
  return `[[centers]]\nname = "${name}"\nurl = "${url}"\nmode = "${mode}"\nvault = "${TEAM_VAULT}"\n${extra}`;
}

describe('daemon with real Centers', () => {
  let saas: Center;
  let ticket: Center;
  let saasOlga: CenterClient;
  let ticketOlga: CenterClient;
  let saasCredential: string;
  let localAssetId: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'arslan-center-daemon-'));
    [saas, ticket] = await Promise.all([startCenter('saas'), startCenter('ticket')]);
    saasOlga = await member(saas, 'olga', [TEAM_VAULT]);
    saasCredential = secrets.at(-1)!;
    ticketOlga = await member(ticket, 'olga', [TEAM_VAULT, 'other']);

    // A standalone daemon first: a local store with one local note (before any Center is configured).
    const local = await startDaemon(null);
    await local.client.call('init', { password: PASSWORD });
    const written = await local.client.call('write', { title: 'local only', body: 'stays on this device' });
    localAssetId = written.asset_id;
    await local.stop();
  });

  afterAll(async () => {
    for (const c of [saas, ticket]) {
      if (!c) continue;
      c.proc.child.kill('SIGTERM');
      await c.proc.exit;
    }
    rmSync(work, { recursive: true, force: true });
  });

  const saasDaemon = () =>
    startDaemon(centerToml('hq', saas.url, 'saas', 'credential_env = "HQ_CREDENTIAL"\n'), {
      HQ_CREDENTIAL: saasCredential,
    });
  const rpc = (op: string, params: Record<string, unknown>) =>
    saasOlga.call('rpc', { body: { vault: TEAM_VAULT, op, params } }) as Promise<Record<string, unknown>>;

  it('CTR-7: content ops go to the saas Center over HTTP; the result comes from the Center', async () => {
    const d = await saasDaemon();
    try {
      // No local unlock: the local store is never consulted for content.
      const written = (await d.client.call('write', {
        title: 'hosted',
        body: 'on the Center',
      })) as unknown as {
        asset_id: string;
      };
      expect(written).toMatchObject({ vault: TEAM_VAULT, center: 'hq' });
      // Seen directly at the Center with the member credential: it is the Center that holds it.
      expect(await rpc('card.get', { id: written.asset_id })).toMatchObject({
        title: 'hosted',
        body: 'on the Center',
      });
      // A card put at the Center directly is read back through the daemon.
      const id = 'c0ffee00c0ffee00c0ffee00c0ffee00';
      await rpc('card.put', { id, title: 'from hq', body: 'server side' });
      expect(await d.client.call('read', { asset_id: id })).toMatchObject({
        title: 'from hq',
        body: 'server side',
        center: 'hq',
      });
      const listed = await d.client.call('list', {});
      expect(listed.assets.map((a) => a.title).sort()).toEqual(['from hq', 'hosted']);
      // The local note is not there; reading it by id asks the Center, which does not have it.
      expect((await ipcError(d.client.call('read', { asset_id: localAssetId }))).code).toBe('not_found');
      await d.client.call('delete', { asset_id: id });
      expect((await d.client.call('list', {})).assets.map((a) => a.title)).toEqual(['hosted']);
    } finally {
      await d.stop();
    }
  });

  it('CTR-8 / CTR-1: unsupported ops fail with the typed error, vault init is refused, the local store is untouched', async () => {
    const d = await saasDaemon();
    try {
      for (const [op, args] of [
        ['history', { asset_id: localAssetId }],
        ['search', { query: 'local' }],
        ['import', { items: [{ title: 'x', body: 'y' }] }],
        ['vault_create', { name: 'more' }],
        ['write', { title: 'a credential', body: 'pw', kind: 'credential' }],
      ] as const) {
        const e = await ipcError(d.client.call(op as 'history', args as never));
        expect({ op, code: e.code }).toEqual({ op, code: 'unsupported_operation' });
      }
      // CTR-1: no self-initialisation (nor a restore into this data dir) while a Center is configured.
      expect((await ipcError(d.client.call('init', { password: PASSWORD }))).code).toBe('center_managed');
      const restore = d.client.call('restore', {
        path: join(work, 'x.bak'),
        backup_password: PASSWORD,
        password: PASSWORD,
      });
      expect((await ipcError(restore)).code).toBe('center_managed');
    } finally {
      await d.stop();
    }
    // Back to standalone: the local store holds exactly what it held; nothing forwarded landed here.
    const local = await startDaemon(null);
    try {
      await local.client.call('unlock', { password: PASSWORD });
      const assets = (await local.client.call('list', {})).assets;
      expect(assets.map((a) => [a.asset_id, a.title])).toEqual([[localAssetId, 'local only']]);
    } finally {
      await local.stop();
    }
  });

  it('CTR-7: an unreachable saas Center is a typed error, never a local answer', async () => {
    const d = await startDaemon(
      centerToml(
        'gone',
        'http://127.0.0.1:9',
        'saas',
        'credential_env = "HQ_CREDENTIAL"\ntimeout_ms = 2000\n',
      ),
      { HQ_CREDENTIAL: saasCredential },
    );
    try {
      expect((await ipcError(d.client.call('list', {}))).code).toBe('center_unavailable');
      expect((await ipcError(d.client.call('read', { asset_id: localAssetId }))).code).toBe(
        'center_unavailable',
      );
    } finally {
      await d.stop();
    }
  });

  it('CTR-4/CTR-3: with a ticket Center, unlock needs a valid unlock ticket (reusable, no sudo, no MCP elevation)', async () => {
    const unlockTicket = async (vault = TEAM_VAULT) => {
      const t = await ticketOlga.call('issueUnlockTicket', { params: { vault }, body: { minutes: 30 } });
      secrets.push(t.ticket);
      return t.ticket;
    };
    const mcpTicket = async (scope: 'read' | 'read_write') => {
      const t = await ticketOlga.call('issueMcpGrantTicket', {
        params: { vault: TEAM_VAULT },
        body: { minutes: 30, scope },
      });
      secrets.push(t.ticket);
      return t.ticket;
    };
    const unlock = await unlockTicket();
    const otherVault = await unlockTicket('other');

    const d = await startDaemon(centerToml('desk', ticket.url, 'ticket'));
    const call = d.client.call.bind(d.client);
    try {
      expect((await ipcError(call('init', { password: PASSWORD }))).code).toBe('center_managed');
      expect((await ipcError(call('unlock', { password: PASSWORD }))).code).toBe('center_managed');
      const unknown = await ipcError(
        call('unlock', { password: PASSWORD, center_ticket: 'act_not-a-real-one' }),
      );
      expect(unknown.code).toBe('center_refused');
      expect((await ipcError(call('unlock', { password: PASSWORD, center_ticket: otherVault }))).code).toBe(
        'forbidden',
      );
      // An MCP-grant ticket is not an unlock ticket; the Center refuses it unspent.
      const wide = await mcpTicket('read');
      const wrongKind = await ipcError(call('unlock', { password: PASSWORD, center_ticket: wide }));
      expect([wrongKind.code, wrongKind.message]).toEqual([
        'forbidden',
        expect.stringMatching(/ticket_wrong_kind/),
      ]);
      // The ticket is checked and the password still is: the ticket alone unlocks nothing.
      expect(
        (await ipcError(call('unlock', { password: 'wrong password', center_ticket: unlock }))).code,
      ).toBe('bad_password');
      await call('unlock', { password: PASSWORD, center_ticket: unlock });
      expect(await call('status', {})).toMatchObject({ unlocked: true, sudo: false });
      // Reusable until expiry, bound to no device.
      await call('lock', {});
      await call('unlock', { password: PASSWORD, center_ticket: unlock });
      // No MCP elevation: an unlock ticket does not let the daemon issue an MCP grant.
      const viaUnlock = call('mcp_grant_issue', { vault: 'personal', minutes: 5, center_ticket: unlock });
      expect((await ipcError(viaUnlock)).code).toBe('forbidden');
      expect((await ipcError(call('mcp_grant_issue', { vault: 'personal', minutes: 5 }))).code).toBe(
        'center_managed',
      );
      // CTR-3: an MCP-grant ticket allows one grant within its scope and minutes, once.
      const over = call('mcp_grant_issue', {
        vault: 'personal',
        minutes: 5,
        scope: 'read_write',
        center_ticket: await mcpTicket('read'),
      });
      expect((await ipcError(over)).code).toBe('forbidden');
      const tooLong = call('mcp_grant_issue', {
        vault: 'personal',
        minutes: 31,
        scope: 'read',
        center_ticket: await mcpTicket('read'),
      });
      expect((await ipcError(tooLong)).code).toBe('forbidden');
      // The ticket refused for the unlock above was not spent: it still gives its one grant.
      const first = await call('mcp_grant_issue', { vault: 'personal', minutes: 5, center_ticket: wide });
      expect(first).toMatchObject({ scope: 'read' });
      const fresh = await mcpTicket('read_write');
      const granted = await call('mcp_grant_issue', {
        vault: 'personal',
        minutes: 29, // within the ticket's 30 minutes and its remaining life
        scope: 'read_write',
        center_ticket: fresh,
      });
      expect(granted).toMatchObject({ scope: 'read_write', vault: 'personal' });
      const again = await ipcError(
        call('mcp_grant_issue', { vault: 'personal', minutes: 5, center_ticket: fresh }),
      );
      expect(again.code).toBe('center_refused');
      expect(again.message).toMatch(/ticket_used/);
    } finally {
      await d.stop();
    }
  });

  it('CTR-1/CTR-3/CTR-4: the memories CLI enrolls a fresh device with an enrollment ticket (file or env, never argv), then unlocks and grants with tickets', async () => {
    const data = mkdtempSync(join(work, 'enrolled-'));
    const d = await startDaemon(centerToml('desk', ticket.url, 'ticket'), {}, data);
    const twice = `${PASSWORD}\n${PASSWORD}\n`;
    const enrollment = async (vault: string) => {
      const t = await ticket.admin.call('issueEnrollmentTicket', {
        body: { vault, member: 'olga', minutes: 5 },
      });
      secrets.push(t.ticket);
      return t.ticket;
    };
    const mcp = await ticketOlga.call('issueMcpGrantTicket', {
      params: { vault: TEAM_VAULT },
      body: { minutes: 20, scope: 'read_write' },
    });
    secrets.push(mcp.ticket);
    const file = join(work, 'desk.ticket');
    try {
      // CTR-1: plain init stays refused.
      const plain = await memories(data, ['init', '--password-stdin'], {}, twice);
      expect([plain.code, plain.stderr]).toEqual([
        24,
        expect.stringMatching(/center_managed: .*enrollment ticket/),
      ]);
      // A ticket for another vault, or of another kind, is refused (unspent) and nothing is created.
      writeFileSync(file, `${await enrollment('other')}\n`, { mode: 0o600 });
      const otherVault = await memories(
        data,
        ['init', '--password-stdin', '--center-ticket-file', file],
        {},
        twice,
      );
      expect([otherVault.code, otherVault.stderr]).toEqual([22, expect.stringMatching(/ticket_wrong_vault/)]);
      const env = { DESK_TICKET: mcp.ticket };
      const wrongKind = await memories(
        data,
        ['init', '--password-stdin', '--center-ticket-env', 'DESK_TICKET'],
        env,
        twice,
      );
      expect([wrongKind.code, wrongKind.stderr]).toEqual([22, expect.stringMatching(/ticket_wrong_kind/)]);
      expect(await d.client.call('status', {})).toMatchObject({ initialized: false });
      // A ticket file other users could read is refused before anything is sent.
      const good = await enrollment(TEAM_VAULT);
      writeFileSync(file, `${good}\n`);
      chmodSync(file, 0o644);
      const loose = await memories(
        data,
        ['init', '--password-stdin', '--center-ticket-file', file],
        {},
        twice,
      );
      expect([loose.code, loose.stderr]).toEqual([1, expect.stringMatching(/chmod 600/)]);
      const unset = await memories(
        data,
        ['init', '--password-stdin', '--center-ticket-env', 'DESK_NOTHING'],
        {},
        twice,
      );
      expect([unset.code, unset.stderr]).toEqual([1, expect.stringMatching(/DESK_NOTHING is not set/)]);
      chmodSync(file, 0o600);
      const init = await memories(
        data,
        ['init', '--password-stdin', '--center-ticket-file', file],
        {},
        twice,
      );
      expect([init.code, init.stderr]).toEqual([0, '']);
      expect(init.stdout).toMatch(/initialized vault/);
      expect(await d.client.call('status', {})).toMatchObject({ initialized: true });
      // Enrollment tickets are single use: the Center has spent it.
      const spent = await new CenterClient({ baseUrl: ticket.url })
        .call('redeemTicket', { body: { ticket: good } })
        .catch((e: unknown) => e);
      expect(spent).toMatchObject({ status: 409, code: 'ticket_used' });

      // CTR-4: unlock with the unlock ticket from the environment.
      await d.client.call('lock', {});
      const u = await ticketOlga.call('issueUnlockTicket', {
        params: { vault: TEAM_VAULT },
        body: { minutes: 30 },
      });
      secrets.push(u.ticket);
      const noTicket = await memories(data, ['unlock', '--password-stdin'], {}, `${PASSWORD}\n`);
      expect([noTicket.code, noTicket.stderr]).toEqual([24, expect.stringMatching(/center_managed/)]);
      const unlocked = await memories(
        data,
        ['unlock', '--password-stdin', '--center-ticket-env', 'DESK_UNLOCK'],
        { DESK_UNLOCK: u.ticket },
        `${PASSWORD}\n`,
      );
      expect([unlocked.code, unlocked.stderr]).toEqual([0, '']);

      // CTR-3: the MCP-grant ticket refused for init above still gives one grant, within its bounds.
      const out = join(data, 'grant.json');
      const grantArgs = ['mcp', 'grant', '--vault', 'personal', '--scope', 'read_write', '--out', out];
      const both = await memories(
        data,
        [...grantArgs, '--minutes', '10', '--center-ticket-file', file, '--center-ticket-env', 'DESK_TICKET'],
        env,
      );
      expect([both.code, both.stderr]).toEqual([1, expect.stringMatching(/not both/)]);
      const granted = await memories(
        data,
        [...grantArgs, '--minutes', '10', '--center-ticket-env', 'DESK_TICKET'],
        env,
      );
      expect([granted.code, granted.stderr]).toEqual([0, '']);
      expect(granted.stdout).toMatch(/\(read_write, vault personal\)/);
      const again = await memories(
        data,
        [...grantArgs.slice(0, -1), `${out}.2`, '--minutes', '10', '--center-ticket-env', 'DESK_TICKET'],
        env,
      );
      expect([again.code, again.stderr]).toEqual([27, expect.stringMatching(/ticket_used/)]);
    } finally {
      await d.stop();
    }
  });

  it('no credential or ticket is ever printed by the daemon or a Center', () => {
    const all = [...printed, saas.proc.output(), ticket.proc.output()].join('\n');
    expect(secrets.length).toBeGreaterThan(5);
    for (const s of secrets) expect(all).not.toContain(s);
  });
});
