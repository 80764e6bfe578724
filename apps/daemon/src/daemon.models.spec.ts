// PROV-04/05 through the daemon: a TOML config with `[[agent.models]]` and `[agent.roles]`, the
// real daemon and local API over a socket, and two scripted providers as two configured models.
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { ScriptedProviderServer } from '@arslan/desktop-agent-testing';
import type { VaultService } from '@arslan/desktop-vault';
import { TOKEN_FILE_NAME } from '@arslan/local-api';
import { catalogFromConfig, createDaemonAgent } from './daemon-agent';
import { loadDaemonConfig } from './daemon-config';
import { PORT_LINE_PREFIX, runDaemon } from './daemon.runtime';

jest.setTimeout(30_000);

const stubService = (): VaultService =>
  ({
    state: () => ({ initialized: false, unlocked: false, deviceFingerprint: null, vaults: [] }),
    lock: () => undefined,
    close: () => undefined,
  }) as unknown as VaultService;

describe('daemon model choice (PROV-04, PROV-05)', () => {
  let root: string;
  let a: ScriptedProviderServer;
  let b: ScriptedProviderServer;
  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'arslan-daemon-models-'));
    [a, b] = await Promise.all([ScriptedProviderServer.start(), ScriptedProviderServer.start()]);
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
    rmSync(root, { recursive: true, force: true });
  });

  function writeConfig(): string {
    const file = join(root, 'arslan.toml');
    writeFileSync(
      file,
      [
        '[agent]',
        'provider = "openai-compatible"',
        `base_url = "${a.baseUrlFor('openai')}"`,
        'model = "model-a"',
        'api_key_env = "KEY_A"',
        '[agent.roles]',
        'main = "second"',
        '[[agent.models]]',
        'name = "second"',
        'provider = "openai-compatible"',
        `base_url = "${b.baseUrlFor('openai')}"`,
        'model = "model-b"',
        'api_key_env = "KEY_B"',
      ].join('\n'),
    );
    return file;
  }

  it('PROV-05: the main role picks the default model of runs; keys come only from the named env vars', async () => {
    const config = loadDaemonConfig(writeConfig()).agent!;
    const env: Record<string, string> = { KEY_A: 'sk-a-111', KEY_B: 'sk-b-222' };
    const catalog = catalogFromConfig(config, (name) => env[name]);
    expect(catalog.list().map((m) => [m.name, m.roles])).toEqual([
      ['default', []],
      ['second', ['main']],
    ]);
    const agent = createDaemonAgent(join(root, 'data'), config, (name) => env[name]);
    try {
      expect(agent.defaults).toEqual({ provider: 'second', model: 'model-b' });
      b.enqueue({ steps: [{ text: 'B here' }], usage: { input: 5, output: 2 } });
      const run = agent.service.startRun({
        message: 'hi',
        workspace: root,
        provider: agent.defaults!.provider,
        model: agent.defaults!.model,
        attended: true,
      });
      expect((await run.result).answer).toBe('B here');
      expect(b.lastRequest().headers.authorization).toBe('Bearer sk-b-222');
      expect(a.requests).toHaveLength(0);
      // The [agent] table's model is still reachable by its kind (older callers); nothing else is.
      a.enqueue({ steps: [{ text: 'A here' }], usage: { input: 5, output: 2 } });
      const byKind = agent.service.startRun({
        message: 'hi',
        workspace: root,
        provider: 'openai-compatible',
        model: 'model-a',
        attended: true,
      });
      expect((await byKind.result).answer).toBe('A here');
      expect(a.lastRequest().headers.authorization).toBe('Bearer sk-a-111');
      expect(() =>
        agent.service.startRun({
          message: 'x',
          workspace: root,
          provider: 'elsewhere',
          model: 'm',
          attended: true,
        }),
      ).toThrow(/unknown provider/);
    } finally {
      agent.close();
    }
  });

  it('PROV-04: over the daemon API a conversation switched to "default" sends its next request there only', async () => {
    const config = loadDaemonConfig(writeConfig());
    const dataDir = join(root, 'data');
    const lines: string[] = [];
    const stdin = new PassThrough();
    const running = runDaemon(['--data', dataDir, '--stdin-lifeline'], {
      createService: () => stubService(),
      createAgent: (dir) => createDaemonAgent(dir, config.agent, () => undefined),
      stdout: (line) => lines.push(line),
      stderr: () => undefined,
      signals: new EventEmitter(),
      stdin,
      apiPort: 0,
    });
    while (lines.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    const port = Number(lines[1]!.slice(PORT_LINE_PREFIX.length));
    const token = readFileSync(join(dataDir, TOKEN_FILE_NAME), 'utf8').trim();
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const waitDone = async (runId: string) => {
      for (let i = 0; i < 200; i += 1) {
        if ((await api('GET', `/api/runs/${runId}`)).body.status !== 'running') return;
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    const listed = await api('GET', '/api/models');
    expect(listed.body.models).toEqual([
      { name: 'default', provider: 'openai-compatible', model: 'model-a', roles: [] },
      { name: 'second', provider: 'openai-compatible', model: 'model-b', roles: ['main'] },
    ]);
    b.enqueue({ steps: [{ text: 'B' }], usage: { input: 5, output: 2 } });
    const first = await api('POST', '/api/runs', { message: 'one', workspace: root });
    await waitDone(first.body.runId as string);
    const conv = first.body.conversationId as string;
    expect((await api('PUT', `/api/conversations/${conv}/model`, { model: 'default' })).status).toBe(200);
    a.enqueue({ steps: [{ text: 'A' }], usage: { input: 5, output: 2 } });
    const second = await api('POST', `/api/conversations/${conv}/messages`, { text: 'two' });
    expect(second.status).toBe(201);
    await waitDone(second.body.runId as string);
    expect(a.requests).toHaveLength(1);
    expect(a.lastRequest().model).toBe('model-a');
    expect(b.requests).toHaveLength(1);
    stdin.end();
    expect(await running).toBe(0);
  });
});
