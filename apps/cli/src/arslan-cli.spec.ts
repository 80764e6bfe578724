// `arslan run` / `arslan chat` in-process: the real runtime and loop, a scripted provider over HTTP.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { ScriptedProviderServer } from '@arslan/desktop-agent-testing';
import { EXIT, UsageError, parseArslanArgs } from './arslan-args';
import {
  CLI_AGENT_DIR,
  LOCK_FILE,
  type ArslanIo,
  acquireLock,
  parseCardAnswer,
  runArslan,
} from './arslan-cli';

jest.setTimeout(30_000);

class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString('utf8');
    done();
  }
}

function makeIo(
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): ArslanIo & { out: Sink; err: Sink; input: PassThrough } {
  const out = new Sink();
  const err = new Sink();
  const input = new PassThrough();
  return {
    stdin: input,
    stdout: out,
    stderr: err,
    isTTY: false,
    env,
    cwd,
    platform: 'linux',
    homedir: cwd,
    onInterrupt: () => () => undefined,
    processAlive: () => true,
    out,
    err,
    input,
  };
}

describe('arslan args', () => {
  const base = ['--workspace', '.', '--provider', 'openai-compatible', '--model', 'm'];

  it('parses run flags, --allow kinds and --tier', () => {
    expect(
      parseArslanArgs([
        'run',
        'do it',
        ...base,
        '--allow',
        'workspace_write,command',
        '--tier=light',
        '--json',
      ]),
    ).toEqual({
      command: 'run',
      task: 'do it',
      workspace: '.',
      provider: 'openai-compatible',
      model: 'm',
      allow: ['workspace_write', 'command'],
      tier: 'light',
      json: true,
    });
    expect(parseArslanArgs([])).toEqual({ command: 'help' });
    expect(parseArslanArgs(['chat', ...base])).toMatchObject({ command: 'chat', allow: [] });
  });

  it('EGRESS-9: refuses keys on argv, unknown kinds, providers and options', () => {
    for (const argv of [
      ['run', 't', ...base, '--api-key', 'sk-1'],
      ['run', 't', ...base, '--api-key=sk-1'],
      ['run', 't', ...base, '--token', 'x'],
      ['run', 't', ...base, '--allow', 'everything'],
      ['run', 't', '--workspace', '.', '--provider', 'openai', '--model', 'm'],
      ['run', 't', ...base, '--frobnicate'],
      ['run', ...base],
      ['run', 't', ...base, '--api-key-env', 'not a name'],
      ['run', 't', ...base, '--base-url', 'http://user:pw@host/v1'],
      ['chat', ...base, '--json'],
      ['fly'],
    ])
      expect(() => parseArslanArgs(argv)).toThrow(UsageError);
  });

  it('maps card answers at the prompt: y once / t task / c conversation / a always / n + note', () => {
    const opts = ['task', 'conversation', 'always', 'no'] as const;
    expect(parseCardAnswer('y', opts)).toEqual({ option: 'task' });
    expect(parseCardAnswer('t', opts)).toEqual({ option: 'task' });
    expect(parseCardAnswer('C', opts)).toEqual({ option: 'conversation' });
    expect(parseCardAnswer('a', opts)).toEqual({ option: 'always' });
    expect(parseCardAnswer('n not that file', opts)).toEqual({ option: 'no', note: 'not that file' });
    expect(parseCardAnswer('y', ['once', 'no'])).toEqual({ option: 'once' });
    expect(parseCardAnswer('a', ['once', 'no'])).toBe('not_offered');
    expect(parseCardAnswer('a different idea', opts)).toBeUndefined();
    expect(parseCardAnswer('please stop', opts)).toBeUndefined();
  });

  it('DATA-06: one process per agent store; a stale lock is taken over', () => {
    const dir = mkdtempSync(join(tmpdir(), 'arslan-lock-'));
    try {
      const release = acquireLock(dir, () => true);
      writeFileSync(join(dir, LOCK_FILE), '999999\n');
      expect(() => acquireLock(dir, () => true)).toThrow(/in use/);
      const again = acquireLock(dir, () => false);
      again();
      release();
      expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('arslan run / chat (real loop, scripted provider over HTTP)', () => {
  let provider: ScriptedProviderServer;
  let root: string;
  let workspace: string;
  let flags: string[];

  beforeAll(async () => {
    provider = await ScriptedProviderServer.start();
  });
  afterAll(() => provider.close());
  beforeEach(() => {
    provider.reset();
    root = mkdtempSync(join(tmpdir(), 'arslan-cli-'));
    workspace = join(root, 'ws');
    mkdirSync(workspace);
    flags = [
      '--workspace',
      workspace,
      '--provider',
      'openai-compatible',
      '--base-url',
      provider.baseUrlFor('openai-compatible'),
      '--model',
      'gpt-4o-mini',
      '--data',
      join(root, 'data'),
    ];
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const writeScript = (): void => {
    provider.enqueue(
      { steps: [{ toolCall: { name: 'write_file', args: { path: 'hello.txt', content: 'hello\n' } } }] },
      { steps: [{ text: 'Wrote hello.txt.' }], usage: { input: 100, output: 10 } },
    );
  };

  it('APPR-017: headless with --allow workspace_write writes the file; --json reports steps, usage and cost', async () => {
    writeScript();
    const io = makeIo(root, { FAKE_KEY: 'sk-test-123' });
    const code = await runArslan(
      ['run', 'write hello', ...flags, '--allow', 'workspace_write', '--api-key-env', 'FAKE_KEY', '--json'],
      io,
    );
    expect(io.err.text).not.toContain('sk-test-123');
    expect(code).toBe(EXIT.ok);
    const json = JSON.parse(io.out.text) as Record<string, unknown>;
    expect(json).toMatchObject({
      answer: 'Wrote hello.txt.',
      status: 'succeeded',
      steps: [{ tool: 'write_file', arguments: { path: 'hello.txt', content: 'hello\n' }, outcome: 'ok' }],
      refused: [],
      usage: { requests: 2 },
    });
    expect(typeof json['cost_usd']).toBe('number');
    expect(readFileSync(join(workspace, 'hello.txt'), 'utf8')).toBe('hello\n');
    expect(provider.requests[0]!.headers.authorization).toBe('Bearer sk-test-123');
    expect(existsSync(join(root, 'data', CLI_AGENT_DIR, 'agent.sqlite'))).toBe(true);
    expect(existsSync(join(root, 'data', CLI_AGENT_DIR, LOCK_FILE))).toBe(false);
  });

  it('APPR-017: headless without --allow refuses the write (exit 3), reports it, and the file is absent', async () => {
    writeScript();
    const io = makeIo(root);
    const code = await runArslan(['run', 'write hello', ...flags, '--json'], io);
    expect(code).toBe(EXIT.refused);
    const json = JSON.parse(io.out.text) as { steps: { outcome: string }[]; refused: { kind: string }[] };
    expect(json.steps[0]).toMatchObject({ tool: 'write_file', outcome: 'refused_unattended' });
    expect(json.refused).toEqual([expect.objectContaining({ tool: 'write_file', kind: 'workspace_write' })]);
    expect(existsSync(join(workspace, 'hello.txt'))).toBe(false);
  });

  it('usage errors exit 2: a named key variable that is unset, a missing workspace', async () => {
    const io = makeIo(root);
    expect(await runArslan(['run', 'x', ...flags, '--api-key-env', 'NOPE_KEY'], io)).toBe(EXIT.usage);
    expect(io.err.text).toContain('NOPE_KEY');
    expect(
      await runArslan(['run', 'x', ...flags.slice(2), '--workspace', join(root, 'none')], makeIo(root)),
    ).toBe(EXIT.usage);
    expect(provider.requests).toHaveLength(0);
  });

  it('TURN-03/APPR-010: chat streams text, shows the card and takes the answer at the prompt; EOF exits 0', async () => {
    writeScript();
    provider.enqueue({ steps: [{ text: 'Second ' }, { text: 'turn.' }] });
    const io = makeIo(root);
    const running = runArslan(['chat', ...flags], io);
    io.input.write('write hello\n');
    io.input.write('t\n');
    io.input.write('and now?\n');
    io.input.end();
    expect(await running).toBe(EXIT.ok);
    expect(io.out.text).toContain(
      '? write hello.txt [workspace_write] — t=task c=conversation a=always n=no',
    );
    expect(io.out.text).toContain('Wrote hello.txt.');
    expect(io.out.text).toContain('Second turn.');
    expect(io.err.text).toContain('(card approved via terminal)');
    expect(readFileSync(join(workspace, 'hello.txt'), 'utf8')).toBe('hello\n');
    // The second turn carried the first one's history (same conversation).
    expect(JSON.stringify(provider.requests[2]!.body.messages)).toContain('write hello');
  });

  it('APPR-008: in chat, n + note denies the card and the note reaches the model', async () => {
    provider.enqueue(
      { steps: [{ toolCall: { name: 'write_file', args: { path: 'x.txt', content: 'x' } } }] },
      { steps: [{ text: 'Understood, not writing.' }] },
    );
    const io = makeIo(root);
    const running = runArslan(['chat', ...flags], io);
    io.input.write('write x\n');
    io.input.write('n use y.txt instead\n');
    io.input.end();
    expect(await running).toBe(EXIT.ok);
    expect(io.out.text).toContain('Understood, not writing.');
    expect(existsSync(join(workspace, 'x.txt'))).toBe(false);
    expect(JSON.stringify(provider.requests[1]!.body.messages)).toContain('use y.txt instead');
  });
});
