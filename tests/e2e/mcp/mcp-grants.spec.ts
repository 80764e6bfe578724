import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { DaemonClient } from '@arslan/daemon-client';
import { MAX_ACTIVE_GRANTS } from '@arslan/policy';
import { IpcError } from '@arslan/protocol';
import { repoRoot } from '../../support/bundle-entry';

// End to end (MCP-*, GRANT-*, REQ-*): the built `memories` CLI and a real daemon; `memories mcp
// serve` runs as a real process driven by the official SDK Client over stdio.

jest.setTimeout(300_000);

const launcher = join(repoRoot, 'apps/cli/bin/memories.cjs');
const PASSWORD = 'e2e mcp password';

interface Run {
  status: number;
  stdout: string;
  stderr: string;
  json: Record<string, unknown>;
}

let work: string;
const dataDir = () => join(work, 'data');
/** Every byte any process printed, to prove no token ever reaches a terminal or an error. */
const printed: string[] = [];
/** Every tool result, to prove secrets never reach MCP. */
const toolOutputs: string[] = [];

function memories(args: string[], stdin = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [launcher, '--data', dataDir(), '--config', join(work, 'memories.toml'), ...args],
      {
        env: { ...process.env, XDG_CONFIG_HOME: join(work, 'config') },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status) => {
      printed.push(stdout, stderr);
      const json =
        args.includes('--json') && stdout.trim() !== ''
          ? (JSON.parse(stdout) as Record<string, unknown>)
          : {};
      resolve({ status: status ?? -1, stdout, stderr, json });
    });
    child.stdin.end(stdin);
  });
}

async function grantFile(
  name: string,
  extra: string[],
): Promise<{ file: string; grant: Record<string, unknown>; token: string }> {
  const file = join(work, `${name}.grant`);
  const run = await memories(['mcp', 'grant', '--out', file, '--json', ...extra]);
  expect(run.status).toBe(0);
  const content = JSON.parse(readFileSync(file, 'utf8')) as { token: string };
  return { file, grant: run.json, token: content.token };
}

interface Session {
  client: Client;
  stderr: () => string;
  call(name: string, args: Record<string, unknown>): Promise<{ ok: boolean; value: Record<string, unknown> }>;
  close(): Promise<void>;
}

async function connect(file: string): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [launcher, 'mcp', 'serve', '--grant-file', file],
    env: { ...(process.env as Record<string, string>), XDG_CONFIG_HOME: join(work, 'config') },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const client = new Client({ name: 'arslan-e2e', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    async call(name, args) {
      const result = (await client.callTool({ name, arguments: args })) as {
        isError?: boolean;
        content: { type: string; text: string }[];
      };
      const text = result.content.map((c) => c.text).join('');
      toolOutputs.push(text);
      let value: Record<string, unknown>;
      try {
        value = JSON.parse(text) as Record<string, unknown>;
      } catch {
        value = { error: { code: 'mcp', message: text } };
      }
      return { ok: result.isError !== true, value };
    },
    async close() {
      await client.close();
      printed.push(stderr);
    },
  };
}

const errorCode = (r: { value: Record<string, unknown> }) =>
  (r.value['error'] as { code?: string } | undefined)?.code;
const errorMessage = (r: { value: Record<string, unknown> }) =>
  (r.value['error'] as { message?: string } | undefined)?.message ?? '';

let noteId: string;
let privateId: string;
let credentialId: string;
let expiring: { file: string; grant: Record<string, unknown> };
const tokens: string[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'arslan-mcp-e2e-'));
  writeFileSync(join(work, 'memories.toml'), '[rag]\nembedder = "none"\n');
  expect((await memories(['daemon', 'start', '--json'])).status).toBe(0);
  expect((await memories(['init', '--password-stdin', '--json'], `${PASSWORD}\n`)).status).toBe(0);
  expect((await memories(['vault', 'create', 'other', '--json'])).status).toBe(0);
  const note = await memories([
    'write',
    '--title',
    'Boiler',
    '--body',
    'The boiler service code is kept in the blue binder.',
    '--json',
  ]);
  noteId = note.json['asset_id'] as string;
  const secret = await memories([
    'write',
    '--private',
    '--title',
    'Diary',
    '--body',
    'My private boiler worries.',
    '--json',
  ]);
  expect(secret.status).toBe(0);
  privateId = secret.json['asset_id'] as string;
  const credential = await memories(
    ['write', '--credential', '--title', 'Boiler portal', '--json'],
    'hunter2-boiler\n',
  );
  expect(credential.status).toBe(0);
  credentialId = credential.json['asset_id'] as string;
  // A one-minute grant whose expiry the last test waits for (GRANT-5: lifetimes are whole minutes).
  expiring = await grantFile('expiring', ['--vault', 'personal', '--minutes', '1']);
});

afterAll(async () => {
  await memories(['daemon', 'stop']);
  rmSync(work, { recursive: true, force: true });
});

describe('memories mcp grant (MCP-1, MCP-2, GRANT-10, GRANT-11)', () => {
  it('writes the capability only to a new 0600 file, never to the terminal, and never overwrites', async () => {
    const { file, grant, token } = await grantFile('read', ['--vault', 'personal', '--minutes', '10']);
    tokens.push(token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(grant['scope']).toBe('read');
    expect(JSON.stringify(grant)).not.toContain(token);
    const again = await memories(['mcp', 'grant', '--vault', 'personal', '--minutes', '5', '--out', file]);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('never overwritten');
    expect(JSON.parse(readFileSync(file, 'utf8')).token).toBe(token);
    for (const bad of [
      ['--minutes', '0'],
      ['--minutes', '61'],
    ]) {
      const run = await memories([
        'mcp',
        'grant',
        '--vault',
        'personal',
        ...bad,
        '--out',
        join(work, 'bad.grant'),
      ]);
      expect(run.status).toBe(1);
    }
    const list = await memories(['mcp', 'list', '--json']);
    expect(JSON.stringify(list.json)).not.toContain(token);
    expect((list.json['grants'] as unknown[]).length).toBeGreaterThanOrEqual(2);
  });
});

describe('memories mcp serve with a read grant', () => {
  let read: Session;
  let file: string;

  beforeAll(async () => {
    const issued = await grantFile('read2', ['--vault', 'personal', '--minutes', '10']);
    file = issued.file;
    tokens.push(issued.token);
    read = await connect(file);
  });
  afterAll(() => read.close());

  it('MCP-4: negotiates a protocol version and lists exactly the vault tools (MCP-5, MCP-10)', async () => {
    const { tools } = await read.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'card_graph',
        'card_link',
        'card_write',
        'grant_claim',
        'grant_issue',
        'grant_list',
        'grant_request',
        'grant_revoke',
        'memory_ask',
        'memory_delete',
        'memory_diff',
        'memory_history',
        'memory_read',
        'memory_read_revision',
        'memory_retrieve',
        'memory_search',
        'memory_write',
      ].sort(),
    );
    const search = tools.find((t) => t.name === 'memory_search');
    expect(search?.inputSchema.required).toContain('vault');
  });

  it('searches and reads; private memories and credentials stay out (MCP-8, CRED-1, RAG-3)', async () => {
    const found = await read.call('memory_search', { vault: 'personal', query: 'boiler' });
    expect(found.ok).toBe(true);
    const hits = found.value['hits'] as { asset_id: string }[];
    expect(hits.map((h) => h.asset_id)).toEqual([noteId]);
    const note = await read.call('memory_read', { vault: 'personal', asset_id: noteId });
    expect(note.ok).toBe(true);
    expect(note.value['body']).toContain('blue binder');
    const history = await read.call('memory_history', { vault: 'personal', asset_id: noteId });
    const revisions = history.value['revisions'] as { revision_id: string }[];
    const revision = await read.call('memory_read_revision', {
      vault: 'personal',
      asset_id: noteId,
      revision_id: revisions[0]?.revision_id,
    });
    expect(revision.value['body']).toContain('blue binder');
    for (const id of [privateId, credentialId]) {
      for (const tool of ['memory_read', 'memory_history']) {
        const refused = await read.call(tool, { vault: 'personal', asset_id: id });
        expect(refused.ok).toBe(false);
        expect(errorCode(refused)).toBe('forbidden');
      }
    }
    const seen = [...printed, ...toolOutputs].join('');
    expect(seen).not.toContain('hunter2-boiler');
    expect(seen).not.toContain('private boiler worries');
  });

  it('MCP-3: a read grant cannot write, and nothing changes', async () => {
    const before = await memories(['list', '--json']);
    const write = await read.call('memory_write', { vault: 'personal', title: 'x', body: 'y' });
    expect(write.ok).toBe(false);
    expect(errorCode(write)).toBe('forbidden');
    const card = await read.call('card_write', { vault: 'personal', title: 'x' });
    expect(errorCode(card)).toBe('forbidden');
    expect((await memories(['list', '--json'])).json).toEqual(before.json);
  });

  it('MCP-6: a grant for one vault cannot touch another', async () => {
    const other = await read.call('memory_search', { vault: 'other', query: 'boiler' });
    expect(other.ok).toBe(false);
    expect(errorCode(other)).toBe('forbidden');
    const missing = await read.call('memory_search', { vault: 'nope', query: 'boiler' });
    expect(errorCode(missing)).toBe('forbidden');
  });

  it('bad input: unknown tools, schema violations and unknown fields are MCP errors that change nothing', async () => {
    const unknown = await read.call('memory_export', { vault: 'personal' }).catch((e: Error) => ({
      ok: false,
      value: { error: { code: 'jsonrpc', message: e.message } },
    }));
    expect(unknown.ok).toBe(false);
    const wrongType = await read.call('memory_search', { vault: 'personal', query: 42 });
    expect(wrongType.ok).toBe(false);
    const extra = await read.call('memory_search', {
      vault: 'personal',
      query: 'boiler',
      base_url: 'http://evil',
    });
    expect(extra.ok).toBe(false);
    const noVault = await read.call('memory_read', { asset_id: noteId });
    expect(noVault.ok).toBe(false);
  });

  it('GRANT-4/GRANT-6: child grants stay within scope, lifetime and depth', async () => {
    const wider = await read.call('grant_issue', { vault: 'personal', minutes: 5, scope: 'read_write' });
    expect(errorCode(wider)).toBe('forbidden');
    expect(errorMessage(wider)).toContain('scope_exceeds_parent');
    const longer = await read.call('grant_issue', { vault: 'personal', minutes: 11 });
    expect(errorMessage(longer)).toContain('outlives_parent');
    const otherVault = await read.call('grant_issue', { vault: 'other', minutes: 1 });
    expect(errorCode(otherVault)).toBe('forbidden');
    const child = await read.call('grant_issue', { vault: 'personal', minutes: 5 });
    expect(child.ok).toBe(true);
    expect(child.value['depth']).toBe(2);
    const childToken = child.value['token'] as string;
    tokens.push(childToken);
    const listed = await read.call('grant_list', { vault: 'personal' });
    expect(JSON.stringify(listed.value)).not.toContain(childToken);
    expect((listed.value['grants'] as unknown[]).length).toBe(2);

    const childFile = join(work, 'child.grant');
    const parent = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(
      childFile,
      JSON.stringify({
        ...parent,
        token: childToken,
        grant_id: child.value['grant_id'],
        expires_at: child.value['expires_at'],
      }),
      { mode: 0o600 },
    );
    const grandchildSession = await connect(childFile);
    try {
      const deeper = await grandchildSession.call('grant_issue', { vault: 'personal', minutes: 1 });
      expect(errorMessage(deeper)).toContain('depth_exceeded');
      expect((await grandchildSession.call('memory_search', { vault: 'personal', query: 'boiler' })).ok).toBe(
        true,
      );
      // GRANT-14: revoking the parent revokes the child, mid-session.
      const revoke = await memories(['mcp', 'revoke', parent['grant_id'] as string, '--json']);
      expect(revoke.status).toBe(0);
      expect(revoke.json['revoked']).toEqual([parent['grant_id'], child.value['grant_id']]);
      const after = await grandchildSession.call('memory_search', { vault: 'personal', query: 'boiler' });
      expect(errorCode(after)).toBe('unauthorized');
      const parentAfter = await read.call('memory_search', { vault: 'personal', query: 'boiler' });
      expect(errorCode(parentAfter)).toBe('unauthorized');
    } finally {
      await grandchildSession.close();
    }
  });
});

describe('a write grant', () => {
  let session: Session;
  beforeAll(async () => {
    const issued = await grantFile('write', ['--vault', 'personal', '--minutes', '10', '--write']);
    tokens.push(issued.token);
    session = await connect(issued.file);
  });
  afterAll(() => session.close());

  it('MCP-3: creates ordinary memories and cards; cannot delete, touch private kinds or secret cards (MCP-12)', async () => {
    const created = await session.call('memory_write', {
      vault: 'personal',
      title: 'From agent',
      body: 'written over MCP',
    });
    expect(created.ok).toBe(true);
    const id = created.value['asset_id'] as string;
    const read = await memories(['read', id, '--json']);
    expect(read.json['body']).toBe('written over MCP');
    const overPrivate = await session.call('memory_write', {
      vault: 'personal',
      asset_id: privateId,
      title: 'x',
      body: 'y',
    });
    expect(errorCode(overPrivate)).toBe('forbidden');
    const del = await session.call('memory_delete', { vault: 'personal', asset_id: id });
    expect(errorCode(del)).toBe('forbidden');

    const a = await session.call('card_write', {
      vault: 'personal',
      title: 'Alice',
      fields: { role: 'plumber' },
    });
    const b = await session.call('card_write', { vault: 'personal', title: 'Boiler' });
    expect(a.ok && b.ok).toBe(true);
    const link = await session.call('card_link', {
      vault: 'personal',
      from: a.value['card_id'],
      to: b.value['card_id'],
      rel: 'services',
    });
    expect(link.ok).toBe(true);
    const graph = await session.call('card_graph', { vault: 'personal', card_id: b.value['card_id'] });
    expect(JSON.stringify(graph.value)).toContain('services');
    const marker = await session.call('card_write', {
      vault: 'personal',
      title: 'Portal',
      body: 'login {{secret:pw}}',
    });
    expect(errorCode(marker)).toBe('bad_request');
    const withSecrets = await session.call('card_write', {
      vault: 'personal',
      title: 'Portal',
      secrets: { pw: 'x' },
    });
    expect(withSecrets.ok).toBe(false);

    const secretCard = await memories(
      ['card', 'write', '--title', 'Router', '--body', 'admin / {{secret:pw}}', '--secret', 'pw', '--json'],
      'router-pass-123\n',
    );
    expect(secretCard.status).toBe(0);
    const cardId = secretCard.json['card_id'] as string;
    const plain = await session.call('memory_read', { vault: 'personal', asset_id: cardId });
    expect(plain.value['body']).toBe('admin / {{secret:pw}}'); // MCP-11: literal
    const update = await session.call('card_write', {
      vault: 'personal',
      card_id: cardId,
      title: 'Router 2',
    });
    expect(errorCode(update)).toBe('bad_request');
    expect([...printed, ...toolOutputs].join('')).not.toContain('router-pass-123');
  });

  it('MCP-9/GRANT-12: lock refuses every call, unlock restores the grant', async () => {
    expect((await memories(['lock'])).status).toBe(0);
    const locked = await session.call('memory_search', { vault: 'personal', query: 'boiler' });
    expect(errorCode(locked)).toBe('locked');
    expect((await memories(['unlock', '--password-stdin'], `${PASSWORD}\n`)).status).toBe(0);
    const again = await session.call('memory_search', { vault: 'personal', query: 'boiler' });
    expect(again.ok).toBe(true);
  });

  it('REQ-2/REQ-3: request, approve (narrowed) at the terminal, claim once', async () => {
    const asked = await session.call('grant_request', {
      vault: 'personal',
      scope: 'read_write_delete',
      minutes: 10,
      reason: 'tidy up',
    });
    expect(asked.ok).toBe(true);
    const id = asked.value['request_id'] as string;
    const early = await session.call('grant_claim', { vault: 'personal', request_id: id });
    expect(errorCode(early)).toBe('forbidden');
    const pending = await memories(['mcp', 'requests', '--json']);
    expect(JSON.stringify(pending.json)).toContain(id);
    const wider = await memories(['mcp', 'approve', id, '--minutes', '30']);
    expect(wider.status).not.toBe(0);
    const approved = await memories(['mcp', 'approve', id, '--minutes', '5', '--json']);
    expect(approved.status).toBe(0);
    const claimed = await session.call('grant_claim', { vault: 'personal', request_id: id });
    expect(claimed.ok).toBe(true);
    expect(claimed.value['scope']).toBe('read_write_delete');
    tokens.push(claimed.value['token'] as string);
    const twice = await session.call('grant_claim', { vault: 'personal', request_id: id });
    expect(errorCode(twice)).toBe('forbidden');
  });
});

describe('raw stdio (JSON-RPC bad input, protocol 2024-11-05)', () => {
  it('answers malformed and oversized lines with JSON-RPC errors, negotiates 2024-11-05', async () => {
    const { file } = await grantFile('raw', ['--vault', 'personal', '--minutes', '5']);
    const child = spawn(process.execPath, [launcher, 'mcp', 'serve', '--grant-file', file], {
      env: { ...process.env, XDG_CONFIG_HOME: join(work, 'config') },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const lines = async (n: number) => {
      for (let i = 0; i < 200 && out.split('\n').filter(Boolean).length < n; i++)
        await new Promise((r) => setTimeout(r, 25));
      return out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    };
    child.stdin.write('{not json\n');
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`,
    );
    child.stdin.write(`${JSON.stringify({ hello: 'world' })}\n`);
    child.stdin.write(`${'x'.repeat(17 * 1024 * 1024)}\n`);
    const got = await lines(4);
    child.stdin.end();
    await new Promise((r) => child.on('close', r));
    // Error replies are written at once; the initialize result may come before or after them.
    const errors = got.filter((m) => m['error']).map((m) => m['error']);
    expect(errors).toEqual(
      expect.arrayContaining([
        { code: -32700, message: 'parse error' },
        { code: -32600, message: 'invalid JSON-RPC message' },
        { code: -32600, message: 'message too large' },
      ]),
    );
    const init = got.find((m) => m['id'] === 7);
    expect((init?.['result'] as { protocolVersion: string }).protocolVersion).toBe('2024-11-05');
    printed.push(out);
  });
});

describe('GRANT-9: the 10,001st active grant', () => {
  it('is refused, over MCP and at the terminal', async () => {
    const late = await grantFile('late', ['--vault', 'personal', '--minutes', '10']);
    const session = await connect(late.file);
    const client = await DaemonClient.connect(dataDir(), { timeoutMs: 60_000 });
    try {
      // Issue until refused: grants may expire meanwhile (the one-minute grant), so count at the end.
      let refused: unknown;
      for (let i = 0; i <= MAX_ACTIVE_GRANTS && refused === undefined; i++) {
        refused = await client.call('mcp_grant_issue', { vault: 'other', minutes: 60 }).then(
          () => undefined,
          (e: unknown) => e,
        );
      }
      expect(refused).toBeInstanceOf(IpcError);
      expect((refused as IpcError).code).toBe('limit_reached');
      expect((refused as IpcError).message).toContain('too_many_grants');
      expect((await client.call('mcp_grant_list', {})).grants.length).toBe(MAX_ACTIVE_GRANTS);
      const overMcp = await session.call('grant_issue', { vault: 'personal', minutes: 1 });
      await session.close();
      expect(errorCode(overMcp)).toBe('limit_reached');
    } finally {
      client.close();
    }
  });
});

describe('GRANT-13: expiry', () => {
  it('an expired grant is refused', async () => {
    const expiresAt = expiring.grant['expires_at'] as number;
    while (Date.now() <= expiresAt + 50) await new Promise((r) => setTimeout(r, 250));
    const session = await connect(expiring.file);
    try {
      const refused = await session.call('memory_search', { vault: 'personal', query: 'boiler' });
      expect(errorCode(refused)).toBe('unauthorized');
      // "has expired" before the periodic sweep purged it, "unknown, expired or revoked" after
      expect(errorMessage(refused)).toMatch(/expired/);
    } finally {
      await session.close();
    }
  });

  it('no output of any process ever held a capability token', () => {
    const all = printed.join('\n');
    for (const token of tokens) expect(all).not.toContain(token);
    expect(all).not.toMatch(/amcp_[A-Za-z0-9_-]{43}/);
  });
});
