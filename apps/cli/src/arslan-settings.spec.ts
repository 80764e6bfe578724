// `arslan run` / `arslan chat` defaults from the config's [agent] section (flags override; keys
// only through the named env variable: ARCH-11, EGRESS-9). The process specs run the REAL CLI
// entry (apps/cli/src/arslan.ts through tsx, no build needed) against the scripted provider
// server over real HTTP.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedProviderServer } from '@arslan/desktop-agent-testing';
import { type AgentFlags, parseArslanArgs } from './arslan-args';
import { AgentSettingsError, resolveAgentSettings } from './arslan-settings';

jest.setTimeout(90_000);

const repo = join(__dirname, '..', '..', '..');
const tsxCli = join(repo, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const entry = join(repo, 'apps', 'cli', 'src', 'arslan.ts');
const KEY = 'sk-config-key-0123456789';

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The real `arslan` process; async so the in-process provider server keeps answering. */
function arslan(args: string[], env: NodeJS.ProcessEnv): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsxCli, entry, ...args], {
      cwd: repo,
      env: { PATH: process.env['PATH'], ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('arslan settings from [agent] (real CLI process)', () => {
  let provider: ScriptedProviderServer;
  let root: string;
  let workspace: string;
  let home: string;
  beforeAll(async () => {
    provider = await ScriptedProviderServer.start();
  });
  afterAll(() => provider.close());
  beforeEach(() => {
    provider.reset();
    root = mkdtempSync(join(tmpdir(), 'arslan-settings-'));
    workspace = join(root, 'ws');
    home = join(root, 'home');
    mkdirSync(workspace);
    mkdirSync(join(home, '.config', 'arslan'), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    ...extra,
  });
  const agentToml = (lines: string[]): string =>
    [
      '[storage]',
      `data_dir = "${join(root, 'data')}"`,
      '[agent]',
      'provider = "openai-compatible"',
      `base_url = "${provider.baseUrlFor('openai-compatible')}"`,
      ...lines,
      '',
    ].join('\n');
  const defaultConfig = (): string => join(home, '.config', 'arslan', 'memories.toml');

  it('ARCH-11/CFG: with no provider flags, run uses [agent] from the default config; the key comes from the env var it names', async () => {
    writeFileSync(defaultConfig(), agentToml(['model = "cfg-model"', 'api_key_env = "ARSLAN_SPEC_KEY"']));
    provider.enqueue({ steps: [{ text: 'From the config.' }], usage: { input: 5, output: 3 } });
    const r = await arslan(
      ['run', 'hello', '--workspace', workspace, '--json'],
      env({ ARSLAN_SPEC_KEY: KEY }),
    );
    expect(r.stderr).not.toContain(KEY);
    expect(r.stdout).not.toContain(KEY);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ answer: 'From the config.', status: 'succeeded' });
    expect(provider.requests).toHaveLength(1);
    expect(provider.requests[0]!.body.model).toBe('cfg-model');
    expect(provider.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('flags override the config: --model and --api-key-env win over [agent]', async () => {
    const config = join(root, 'explicit.toml');
    writeFileSync(config, agentToml(['model = "cfg-model"', 'api_key_env = "UNSET_CONFIG_KEY"']));
    provider.enqueue({ steps: [{ text: 'Overridden.' }] });
    const r = await arslan(
      [
        'run',
        'hi',
        '--workspace',
        workspace,
        '--config',
        config,
        '--model',
        'flag-model',
        '--api-key-env',
        'FLAG_KEY',
      ],
      env({ FLAG_KEY: KEY }),
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Overridden.');
    expect(provider.requests[0]!.body.model).toBe('flag-model');
    expect(provider.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('a clear error (exit 2) when neither flags nor config name a provider, or the named key variable is unset', async () => {
    const none = await arslan(['run', 'hi', '--workspace', workspace], env());
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('arslan: no provider: pass --provider');

    writeFileSync(defaultConfig(), agentToml(['model = "cfg-model"', 'api_key_env = "ARSLAN_SPEC_KEY"']));
    const unset = await arslan(['run', 'hi', '--workspace', workspace], env());
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain(
      `the environment variable ARSLAN_SPEC_KEY (named by [agent] api_key_env in ${defaultConfig()}) is not set`,
    );
    expect(provider.requests).toHaveLength(0);
  });
});

describe('resolveAgentSettings', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'arslan-settings-unit-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const io = (env: NodeJS.ProcessEnv = {}) => ({ env, cwd: root, platform: 'linux' as const, homedir: root });
  const flags = (...extra: string[]): AgentFlags => {
    const parsed = parseArslanArgs(['run', 't', '--workspace', '.', ...extra]);
    if (parsed.command !== 'run') throw new Error('expected a run command');
    return parsed;
  };
  const config = (text: string): string => {
    const path = join(root, 'a.toml');
    writeFileSync(path, text);
    return path;
  };

  it('ARCH-11: another --provider does not inherit the config endpoint, key variable or model', () => {
    const path = config(
      '[agent]\nprovider = "openai-compatible"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\napi_key_env = "K"\n',
    );
    expect(() =>
      resolveAgentSettings(flags('--config', path, '--provider', 'anthropic'), io({ K: 'x' })),
    ).toThrow(expect.objectContaining({ code: 'no_model' }));
    const other = resolveAgentSettings(
      flags('--config', path, '--provider', 'anthropic', '--model', 'claude-x'),
      io({ K: 'x' }),
    );
    expect(other).toMatchObject({
      provider: 'anthropic',
      model: 'claude-x',
      baseUrl: 'https://api.anthropic.com',
    });
    expect(other.apiKey).toBeUndefined();
    const same = resolveAgentSettings(flags('--config', path), io({ K: 'secret-value' }));
    expect(same).toMatchObject({
      provider: 'openai-compatible',
      model: 'm',
      baseUrl: 'http://127.0.0.1:9/v1',
    });
    expect(same.apiKey).toBe('secret-value');
  });

  it('CFG-2: a bad config is a typed usage error; [agent] never takes a key itself', () => {
    const path = config('[agent]\nprovider = "anthropic"\nmodel = "m"\napi_key = "sk-secret-0000"\n');
    let error: unknown;
    try {
      resolveAgentSettings(flags('--config', path), io());
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AgentSettingsError);
    expect(error).toMatchObject({ code: 'bad_config' });
    expect(String((error as Error).message)).not.toContain('sk-secret');
  });

  it('no model anywhere is a typed error', () => {
    expect(() => resolveAgentSettings(flags('--provider', 'gemini'), io())).toThrow(
      expect.objectContaining({ code: 'no_model' }),
    );
  });
});
