// The daemon with its agent side: the local API next to the vault IPC (ARCH-05/06), the `[agent]`
// config, and the stdin lifeline (ARCH-12).
import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { ScriptedProviderServer } from '@arslan/desktop-agent-testing';
import type { VaultService } from '@arslan/desktop-vault';
import { TOKEN_FILE_NAME } from '@arslan/local-api';
import { AGENT_DIR_NAME, type DaemonAgent, createDaemonAgent } from './daemon-agent';
import { loadDaemonConfig } from './daemon-config';
import { PORT_LINE_PREFIX, SOCKET_LINE_PREFIX, runDaemon } from './daemon.runtime';

function stubService(closed: { count: number }): VaultService {
  return {
    state: () => ({ initialized: false, unlocked: false, deviceFingerprint: null, vaults: [] }),
    lock: () => undefined,
    close: () => void (closed.count += 1),
  } as unknown as VaultService;
}

describe('daemon agent side', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'arslan-daemon-agent-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('ARCH-06/ARCH-12: prints ARSLAN_PORT after the socket line, serves /api/health with the token, and exits 0 on stdin EOF', async () => {
    const dataDir = join(root, 'data');
    const lines: string[] = [];
    const closed = { count: 0 };
    const stdin = new PassThrough();
    let agentClosed = 0;
    const running = runDaemon(['--data', dataDir, '--stdin-lifeline'], {
      createService: () => stubService(closed),
      createAgent: (dir, config) => {
        const agent = createDaemonAgent(dir, config.agent, () => undefined);
        return { ...agent, close: () => (agentClosed++, agent.close()) };
      },
      stdout: (line) => lines.push(line),
      stderr: () => undefined,
      signals: new EventEmitter(),
      stdin,
      apiPort: 0,
    });
    while (lines.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(lines[0]).toMatch(new RegExp(`^${SOCKET_LINE_PREFIX}`));
    expect(lines[1]).toMatch(/^ARSLAN_PORT=\d+$/);
    const port = Number(lines[1]!.slice(PORT_LINE_PREFIX.length));
    const tokenFile = join(dataDir, TOKEN_FILE_NAME);
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const health = await fetch(`http://127.0.0.1:${port}/api/health`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(health.status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(401);
    // DATA-05 store under <data>/agent/
    expect(existsSync(join(dataDir, AGENT_DIR_NAME, 'agent.sqlite'))).toBe(true);
    // Without [agent] config a run names no model.
    const run = await fetch(`http://127.0.0.1:${port}/api/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hi', workspace: root }),
    });
    expect(run.status).toBe(400);
    expect(await run.json()).toMatchObject({ error: { code: 'no_model' } });
    // WORK-07..13: the daemon serves background jobs (not 501 jobs_unavailable).
    const jobs = await fetch(`http://127.0.0.1:${port}/api/jobs`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(jobs.status).toBe(200);

    stdin.end();
    expect(await running).toBe(0);
    expect(agentClosed).toBe(1);
    expect(closed.count).toBe(1);
    expect(existsSync(tokenFile)).toBe(false);
  });

  it('ARCH-12: stdin EOF cancels a live run before the agent store closes; the run ends stopped', async () => {
    const provider = await ScriptedProviderServer.start();
    provider.enqueue({ steps: [{ text: 'thinking…' }, { stall: 'forever' }] });
    const dataDir = join(root, 'data');
    const lines: string[] = [];
    const stdin = new PassThrough();
    let agent: DaemonAgent | undefined;
    try {
      const running = runDaemon(['--data', dataDir, '--stdin-lifeline'], {
        createService: () => stubService({ count: 0 }),
        createAgent: (dir) =>
          (agent = createDaemonAgent(
            dir,
            {
              provider: 'openai-compatible',
              base_url: provider.baseUrlFor('openai-compatible'),
              model: 'gpt-4o-mini',
            },
            () => undefined,
          )),
        stdout: (line) => lines.push(line),
        stderr: () => undefined,
        signals: new EventEmitter(),
        stdin,
        apiPort: 0,
      });
      while (lines.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      const port = Number(lines[1]!.slice(PORT_LINE_PREFIX.length));
      const token = readFileSync(join(dataDir, TOKEN_FILE_NAME), 'utf8').trim();
      const started = await fetch(`http://127.0.0.1:${port}/api/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'think', workspace: root }),
      });
      expect(started.status).toBe(201);
      const { runId } = (await started.json()) as { runId: string };
      while (provider.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));

      stdin.end();
      expect(await running).toBe(0);
      expect(agent!.service.getResult(runId)?.status).toBe('stopped');
    } finally {
      await provider.close();
    }
  });

  it('CFG-2: the [agent] section is strict; keys are named by env var only', () => {
    const ok = join(root, 'ok.toml');
    writeFileSync(
      ok,
      '[agent]\nprovider = "anthropic"\nmodel = "claude-sonnet-4-5"\napi_key_env = "ANTHROPIC_API_KEY"\ntier = "light"\n',
    );
    expect(loadDaemonConfig(ok).agent).toEqual({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      api_key_env: 'ANTHROPIC_API_KEY',
      tier: 'light',
    });
    const bad = join(root, 'bad.toml');
    writeFileSync(bad, '[agent]\nprovider = "openai-compatible"\nmodel = "m"\napi_key = "sk-secret"\n');
    expect(() => loadDaemonConfig(bad)).toThrow(/unknown key agent\.api_key/);
    expect(() => loadDaemonConfig(bad)).not.toThrow(/sk-secret/);
    const kind = join(root, 'kind.toml');
    writeFileSync(kind, '[agent]\nprovider = "mystery"\nmodel = "m"\n');
    expect(() => loadDaemonConfig(kind)).toThrow(/agent\.provider/);
  });
});
