import { promises as fsp, mkdtempSync, realpathSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ToolContext } from '../ports/tool.port';
import { classifyNetworkCommand } from './network-classifier';
import { createUnshareSandbox, defaultCommandSandbox, UNAVAILABLE_SANDBOX } from './sandbox';
import { createTerminalTool } from './terminal';
import { sweepToolOutput, TOOL_OUTPUT_RETENTION_MS } from './tool-output';

let base: string;
let ws: string;
let dataDir: string;

function ctx(over: Partial<ToolContext> = {}): ToolContext {
  return {
    workspace: ws,
    dataDir,
    runId: 'run1',
    callId: 'call1',
    turn: { externalContentRead: false },
    signal: new AbortController().signal,
    remainingMs: 60_000,
    attended: true,
    ...over,
  };
}

beforeEach(async () => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'arslan-term-')));
  ws = path.join(base, 'ws');
  dataDir = path.join(base, 'data');
  await Promise.all([fsp.mkdir(ws), fsp.mkdir(dataDir)]);
});

afterEach(async () => {
  await fsp.rm(base, { recursive: true, force: true });
});

const terminal = createTerminalTool({ killGraceMs: 200 });

describe('terminal execution (TOOL-21)', () => {
  it('runs /bin/sh -c in the workspace with a minimal environment', async () => {
    process.env.ARSLAN_TEST_LEAK = 'leaked';
    const r = await terminal.execute({ command: 'pwd; echo "leak=$ARSLAN_TEST_LEAK"; exit 3' }, ctx());
    delete process.env.ARSLAN_TEST_LEAK;
    expect(r.content).toContain(ws);
    expect(r.content).toContain('leak=\n');
    expect(r.content).toContain('[exit code 3]');
    expect(r.isError).toBe(true);
  });

  it('TOOL-21: on timeout the process group is killed and the output so far is returned', async () => {
    const started = Date.now();
    const r = await terminal.execute(
      { command: 'echo started; sleep 30 & sleep 30; echo never', timeout_seconds: 1 },
      ctx(),
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.content).toContain('started');
    expect(r.content).toMatch(/timed out after 1 s/);
    expect(r.content).not.toContain('never');
    expect(r.isError).toBe(true);
  });

  it("TOOL-21: never runs beyond the reply's remaining time", async () => {
    const started = Date.now();
    const r = await terminal.execute(
      { command: 'sleep 20', timeout_seconds: 600 },
      ctx({ remainingMs: 300 }),
    );
    expect(Date.now() - started).toBeLessThan(3000);
    expect(r.content).toMatch(/timed out after 0.3 s/);
    const none = await terminal.execute({ command: 'true' }, ctx({ remainingMs: 0 }));
    expect(none.isError).toBe(true);
  });

  it('TOOL-21/DATA-03: overflowing output becomes head + tail; the full output is saved under tool-output', async () => {
    const tool = createTerminalTool({ maxOutputChars: 1000 });
    const r = await tool.execute({ command: 'seq 1 20000' }, ctx());
    expect(r.content.startsWith('1\n2\n3\n')).toBe(true);
    expect(r.content).toContain('20000');
    expect(r.content).toMatch(/bytes omitted/);
    expect(r.content.length).toBeLessThan(1500);
    const saved = /saved at (\S+)/.exec(r.content)![1]!;
    expect(saved.startsWith(path.join(dataDir, 'tool-output'))).toBe(true);
    const full = await fsp.readFile(saved, 'utf8');
    expect(full.split('\n').filter(Boolean)).toHaveLength(20000);
  });

  it('DATA-03: sweepToolOutput deletes saved outputs older than 7 days and keeps newer ones', async () => {
    const dir = path.join(dataDir, 'tool-output');
    await fsp.mkdir(dir);
    const now = Date.now();
    await fsp.writeFile(path.join(dir, 'old.txt'), 'old');
    await fsp.writeFile(path.join(dir, 'new.txt'), 'new');
    const eightDaysAgo = (now - TOOL_OUTPUT_RETENTION_MS - 86_400_000) / 1000;
    await fsp.utimes(path.join(dir, 'old.txt'), eightDaysAgo, eightDaysAgo);
    const deleted = await sweepToolOutput(dataDir, now);
    expect(deleted).toEqual([path.join(dir, 'old.txt')]);
    expect(await fsp.readdir(dir)).toEqual(['new.txt']);
    expect(await sweepToolOutput(path.join(base, 'no-such-dir'), now)).toEqual([]);
  });

  it('APPR-017/SEC-009: unattended runs run no terminal commands', async () => {
    const marker = path.join(ws, 'ran');
    const r = await terminal.execute({ command: `touch ${marker}` }, ctx({ attended: false }));
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/unattended/);
    await expect(fsp.access(marker)).rejects.toThrow();
  });

  it('APPR-017: a headless run whose user pre-approved commands (arslan run --allow command) runs them', async () => {
    const marker = path.join(ws, 'ran-allowed');
    const other = await terminal.execute(
      { command: `touch ${marker}` },
      ctx({ attended: false, preApproved: ['workspace_write'] }),
    );
    expect(other.isError).toBe(true);
    await expect(fsp.access(marker)).rejects.toThrow();
    const r = await terminal.execute(
      { command: `touch ${marker}` },
      ctx({ attended: false, preApproved: ['command'] }),
    );
    expect(r.isError).toBeFalsy();
    await fsp.access(marker);
  });
});

describe('approvals (SEC-008, SEC-016)', () => {
  it('SEC-016: every command asks (command); after external content network-looking ones ask network_command', () => {
    const clean = ctx();
    const tainted = ctx({ turn: { externalContentRead: true } });
    expect(terminal.approval({ command: 'ls' }, clean)).toEqual({ kind: 'command', summary: 'ls' });
    expect(terminal.approval({ command: 'curl https://x.example' }, clean)?.kind).toBe('command');
    expect(terminal.approval({ command: 'ls' }, tainted)?.kind).toBe('command');
    expect(terminal.approval({ command: 'curl https://x.example' }, tainted)?.kind).toBe('network_command');
    expect(terminal.approval({ command: './build.sh', needs_network: true }, tainted)?.kind).toBe(
      'network_command',
    );
  });

  it.each([
    ['curl -s https://example.com', true],
    ['wget http://x', true],
    ['git -C repo fetch origin', true],
    ['git clone git@github.com:a/b.git', true],
    ['git push', true],
    ['git status && git diff', false],
    ['npm install left-pad', true],
    ['npm ci', true],
    ['npm test', false],
    ['npm run build', false],
    ['yarn add react', true],
    ['pnpm install', true],
    ['pip install requests', true],
    ['python3 -m pip install x', true],
    ['ssh host uptime', true],
    ['scp a host:b', true],
    ['echo hi | nc example.com 80', true],
    ['FOO=1 sudo -E /usr/bin/curl x', true],
    ['timeout 10 wget x', true],
    ['echo $(curl -s x)', true],
    ['echo "curl is a word"', false],
    ["grep -r 'wget' src", false],
    ['ls -la; cat README.md', false],
    ['python fetch.py https://example.com/data', true],
    ['exec 3<>/dev/tcp/example.com/80', true],
    ['rsync -a src/ dst/', false],
    ['rsync -a src/ host:dst/', true],
  ])('SEC-008 classifier: %s → %s', (command, network) => {
    expect(classifyNetworkCommand(command).network).toBe(network);
  });
});

describe('offline after external content (SEC-007)', () => {
  let server: net.Server;
  let port: number;
  beforeAll(async () => {
    server = net.createServer((s) => {
      s.on('error', () => undefined);
      s.end('hello\n');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  const connect = () =>
    `${process.execPath} -e "require('net').connect(${port},'127.0.0.1').on('connect',()=>{console.log('CONNECTED');process.exit(0)}).on('error',e=>{console.log('NETERR',e.code);process.exit(7)})"`;

  it('SEC-007: the same command reaches a local TCP server normally and fails once the turn read external content', async () => {
    const sandbox = defaultCommandSandbox();
    if ((await sandbox.offline(['/bin/true'])) === null) {
      // No OS sandbox here: the tool must refuse (fail closed) instead of running with network.
      const r = await createTerminalTool({ sandbox }).execute(
        { command: connect() },
        ctx({ turn: { externalContentRead: true } }),
      );
      expect(r.content).toMatch(/Refused/);
      return;
    }
    const tool = createTerminalTool({ sandbox });
    const before = await tool.execute({ command: connect() }, ctx());
    expect(before.content).toContain('CONNECTED');
    const after = await tool.execute({ command: connect() }, ctx({ turn: { externalContentRead: true } }));
    expect(after.content).not.toContain('CONNECTED');
    expect(after.content).toContain('NETERR');
    expect(after.content).toContain('ran without network access');
  });

  it('SEC-007: fails closed when the sandbox cannot be applied (unshare unavailable): nothing runs', async () => {
    const marker = path.join(ws, 'ran');
    for (const sandbox of [
      createUnshareSandbox({ unsharePath: '/nonexistent/unshare' }),
      UNAVAILABLE_SANDBOX,
    ]) {
      const r = await createTerminalTool({ sandbox }).execute(
        { command: `touch ${marker}` },
        ctx({ turn: { externalContentRead: true } }),
      );
      expect(r.isError).toBe(true);
      expect(r.content).toMatch(/cannot be applied/);
    }
    await expect(fsp.access(marker)).rejects.toThrow();
    // Without external content the same tool runs normally (no sandbox needed).
    const ok = await createTerminalTool({ sandbox: UNAVAILABLE_SANDBOX }).execute(
      { command: `touch ${marker}` },
      ctx(),
    );
    expect(ok.isError).toBe(false);
  });
});
