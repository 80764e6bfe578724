import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedProviderServer } from '@arslan/desktop-agent-testing';
import { repoRoot } from '../../support/bundle-entry';

// End to end: the built `arslan` CLI (dist/cli/arslan.cjs through apps/cli/bin/arslan.cjs) and the
// built daemon (dist/daemon/daemon.cjs) against a scripted provider server run by this test.
// `npm run build` first.

jest.setTimeout(60_000);

const launcher = join(repoRoot, 'apps/cli/bin/arslan.cjs');
const daemonBundle = join(repoRoot, 'dist/daemon/daemon.cjs');

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

// Async: the scripted provider runs in this process and must keep answering.
function arslan(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [launcher, ...args], {
      env: { PATH: process.env['PATH'], ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status: status ?? -1, stdout, stderr }));
    child.stdin.end();
  });
}

describe('arslan CLI and daemon (built bundles)', () => {
  let provider: ScriptedProviderServer;
  let work: string;

  beforeAll(async () => {
    if (!existsSync(join(repoRoot, 'dist/cli/arslan.cjs')) || !existsSync(daemonBundle))
      throw new Error('run `npm run build` first');
    provider = await ScriptedProviderServer.start();
    work = mkdtempSync(join(tmpdir(), 'arslan-agent-e2e-'));
  });
  afterAll(async () => {
    await provider.close();
    rmSync(work, { recursive: true, force: true });
  });
  beforeEach(() => provider.reset());

  const writeScript = (): void => {
    provider.enqueue(
      {
        steps: [
          { text: 'Writing.' },
          { toolCall: { name: 'write_file', args: { path: 'notes/out.md', content: '# hi\n' } } },
        ],
      },
      { steps: [{ text: 'Created notes/out.md.' }], usage: { input: 120, output: 12 } },
    );
  };

  it('APPR-017/issue 7 item 8: `arslan run --allow workspace_write --json` writes the file and reports each step, usage and cost', async () => {
    writeScript();
    const workspace = join(work, 'ws-allowed');
    mkdirSync(workspace);
    const run = await arslan(
      [
        'run',
        'write notes/out.md',
        '--workspace',
        workspace,
        '--provider',
        'anthropic',
        '--base-url',
        provider.baseUrlFor('anthropic'),
        '--model',
        'claude-sonnet-4-5',
        '--api-key-env',
        'E2E_KEY',
        '--allow',
        'workspace_write',
        '--data',
        join(work, 'data'),
        '--json',
      ],
      { E2E_KEY: 'sk-e2e-secret' },
    );
    expect(run.stderr).not.toContain('sk-e2e-secret');
    expect(run.stdout).not.toContain('sk-e2e-secret');
    expect(run.status).toBe(0);
    const json = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({
      answer: 'Created notes/out.md.',
      status: 'succeeded',
      steps: [{ tool: 'write_file', arguments: { path: 'notes/out.md', content: '# hi\n' }, outcome: 'ok' }],
      refused: [],
      usage: { requests: 2, toolCalls: 1 },
    });
    expect(typeof json['cost_usd']).toBe('number');
    expect(readFileSync(join(workspace, 'notes/out.md'), 'utf8')).toBe('# hi\n');
    expect(provider.requests[0]!.headers['x-api-key']).toBe('sk-e2e-secret');
  });

  it('APPR-017: without --allow the headless run refuses the write (exit 3), reports it, and the file is absent', async () => {
    writeScript();
    const workspace = join(work, 'ws-refused');
    mkdirSync(workspace);
    const run = await arslan([
      'run',
      'write notes/out.md',
      '--workspace',
      workspace,
      '--provider',
      'openai-compatible',
      '--base-url',
      provider.baseUrlFor('openai-compatible'),
      '--model',
      'gpt-4o-mini',
      '--data',
      join(work, 'data'),
      '--json',
    ]);
    expect(run.status).toBe(3);
    const json = JSON.parse(run.stdout) as { steps: unknown[]; refused: unknown[]; status: string };
    expect(json.steps).toEqual([
      {
        tool: 'write_file',
        arguments: { path: 'notes/out.md', content: '# hi\n' },
        outcome: 'refused_unattended',
      },
    ]);
    expect(json.refused).toEqual([expect.objectContaining({ tool: 'write_file', kind: 'workspace_write' })]);
    expect(existsSync(join(workspace, 'notes/out.md'))).toBe(false);
    expect(existsSync(join(workspace, 'notes'))).toBe(false);
  });

  it('ARCH-05/06/10/12: the daemon prints ARSLAN_PORT, serves a token-guarded run over HTTP, and exits 0 on stdin EOF', async () => {
    provider.enqueue({ steps: [{ text: 'Hello from the daemon.' }] });
    const dataDir = join(work, 'daemon-data');
    const config = join(work, 'arslan.toml');
    writeFileSync(
      config,
      `[agent]\nprovider = "openai-compatible"\nbase_url = "${provider.baseUrlFor('openai-compatible')}"\nmodel = "gpt-4o-mini"\n`,
    );
    const child: ChildProcess = spawn(
      process.execPath,
      [daemonBundle, '--data', dataDir, '--config', config, '--stdin-lifeline'],
      { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env['PATH'] } },
    );
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let out = '';
    let err = '';
    child.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString('utf8');
        const match = /^ARSLAN_PORT=(\d+)$/m.exec(out);
        if (match) resolve(Number(match[1]));
      });
      void exit.then((code) => reject(new Error(`daemon exited ${code}: ${err}`)));
    });
    expect(out).toMatch(/^ARSLAN_VAULT_SOCKET=\/.+\nARSLAN_PORT=\d+\n$/);
    const token = readFileSync(join(dataDir, 'local-api.token'), 'utf8').trim();
    const base = `http://127.0.0.1:${port}`;
    const auth = { authorization: `Bearer ${token}` };
    expect((await fetch(`${base}/api/health`)).status).toBe(401);
    expect(
      (await fetch(`${base}/api/health`, { headers: { ...auth, origin: 'https://evil.example' } })).status,
    ).toBe(403);
    const workspace = join(work, 'ws-daemon');
    mkdirSync(workspace);
    const started = await fetch(`${base}/api/runs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'say hello', workspace }),
    });
    expect(started.status).toBe(201);
    const { runId } = (await started.json()) as { runId: string };
    let status = 'running';
    let body: Record<string, unknown> = {};
    for (let i = 0; i < 100 && status === 'running'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      body = (await (await fetch(`${base}/api/runs/${runId}`, { headers: auth })).json()) as Record<
        string,
        unknown
      >;
      status = String(body['status']);
    }
    expect(body).toMatchObject({ status: 'succeeded', result: { answer: 'Hello from the daemon.' } });
    expect(existsSync(join(dataDir, 'agent', 'agent.sqlite'))).toBe(true);

    child.stdin!.end(); // the shell went away
    expect(await exit).toBe(0);
    expect(existsSync(join(dataDir, 'local-api.token'))).toBe(false);
    expect(existsSync(join(dataDir, 'daemon.pid'))).toBe(false);
  });
});
