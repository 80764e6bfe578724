import { fakeDaemon, fakeTty, run } from './testing/fake-cli';

const SECRET = 'correct horse battery';

function neverPrinted(result: { stdout: string; stderr: string }, ...secrets: string[]): void {
  for (const secret of secrets) {
    expect(result.stdout).not.toContain(secret);
    expect(result.stderr).not.toContain(secret);
  }
}

describe('IPC-17 / THREAT-9: passwords from --password-stdin lines', () => {
  it.each([
    [['init'], 'init', { password: SECRET }],
    [['unlock'], 'unlock', { password: SECRET }],
    [['sudo'], 'sudo', { password: SECRET }],
    [['backup', '/tmp/b.bak'], 'backup', { path: '/tmp/b.bak', backup_password: SECRET }],
  ])('%j takes one line', async (argv, op, args) => {
    const daemon = fakeDaemon();
    const result = await run(daemon, [...argv, '--password-stdin'], { stdin: `${SECRET}\nignored\n` });
    expect(result.code).toBe(0);
    expect(daemon.calls).toEqual([{ op, args }]);
    neverPrinted(result, SECRET);
  });

  it('restore takes the backup password, then the new store password', async () => {
    const daemon = fakeDaemon();
    const result = await run(daemon, ['restore', 'b.bak', '--password-stdin'], {
      stdin: 'backup-pw\r\nstore-pw',
      cwd: '/home/u',
    });
    expect(result.code).toBe(0);
    expect(daemon.calls).toEqual([
      { op: 'restore', args: { path: '/home/u/b.bak', backup_password: 'backup-pw', password: 'store-pw' } },
    ]);
    neverPrinted(result, 'backup-pw', 'store-pw');
  });

  it('a missing line is a usage error and nothing is sent', async () => {
    const daemon = fakeDaemon();
    const result = await run(daemon, ['restore', '/b.bak', '--password-stdin'], { stdin: 'only-one\n' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/expected 2 line\(s\) on stdin, got 1/);
    expect(daemon.calls).toEqual([]);
    neverPrinted(result, 'only-one');
  });

  it('an empty line is refused', async () => {
    const daemon = fakeDaemon();
    const result = await run(daemon, ['unlock', '--password-stdin'], { stdin: '\n' });
    expect(result.code).toBe(1);
    expect(daemon.calls).toEqual([]);
  });

  it('without a TTY and without --password-stdin the command fails instead of guessing', async () => {
    const daemon = fakeDaemon();
    const result = await run(daemon, ['unlock'], { stdin: `${SECRET}\n`, isTTY: false });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/use --password-stdin/);
    expect(daemon.calls).toEqual([]);
  });

  it('never reads a password from the environment', async () => {
    const read: string[] = [];
    const env = new Proxy(
      { HOME: '/h', MEMORIES_PASSWORD: SECRET, ARSLAN_PASSWORD: SECRET, PASSWORD: SECRET } as Record<
        string,
        string
      >,
      {
        get(target, key) {
          read.push(String(key));
          return target[String(key)];
        },
      },
    );
    const daemon = fakeDaemon();
    const result = await run(daemon, ['unlock'], { env, isTTY: false });
    expect(result.code).toBe(1);
    expect(daemon.calls).toEqual([]);
    expect(read.filter((key) => /pass/i.test(key))).toEqual([]);
    neverPrinted(result, SECRET);
  });
});

describe('IPC-17: passwords from the TTY prompt (echo off)', () => {
  it('init asks twice with raw mode on, prompts on stderr, echoes nothing', async () => {
    const daemon = fakeDaemon();
    const tty = fakeTty([`${SECRET}\r`, `${SECRET}\r`]);
    const result = await run(daemon, ['init'], { stdin: tty, isTTY: true });
    expect(result.code).toBe(0);
    expect(daemon.calls).toEqual([{ op: 'init', args: { password: SECRET } }]);
    expect(tty.rawModes).toEqual([true, false, true, false]);
    expect(result.stderr).toBe('New store password: \nRepeat new store password: \n');
    neverPrinted(result, SECRET);
  });

  it('init refuses two different passwords and sends nothing', async () => {
    const daemon = fakeDaemon();
    const result = await run(daemon, ['init'], { stdin: fakeTty(['one\r', 'two\r']), isTTY: true });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/do not match/);
    expect(daemon.calls).toEqual([]);
  });

  it('Ctrl-C at the prompt exits 130 and leaves raw mode', async () => {
    const daemon = fakeDaemon();
    const tty = fakeTty(['sec\u0003']);
    const result = await run(daemon, ['unlock'], { stdin: tty, isTTY: true });
    expect(result.code).toBe(130);
    expect(tty.rawModes).toEqual([true, false]);
    expect(daemon.calls).toEqual([]);
  });

  it('backup asks for the backup password twice; restore asks once, then the new store password twice', async () => {
    const daemon = fakeDaemon();
    const backup = await run(daemon, ['backup', '/b'], { stdin: fakeTty(['bk\r', 'bk\r']), isTTY: true });
    expect(backup.code).toBe(0);
    const restore = await run(daemon, ['restore', '/b'], {
      stdin: fakeTty(['bk\r', 'new\r', 'new\r']),
      isTTY: true,
    });
    expect(restore.code).toBe(0);
    expect(restore.stderr).toBe('Backup password: \nNew store password: \nRepeat new store password: \n');
    expect(daemon.calls.map((c) => c.args)).toEqual([
      { path: '/b', backup_password: 'bk' },
      { path: '/b', backup_password: 'bk', password: 'new' },
    ]);
  });
});

describe('password commands check the daemon before prompting', () => {
  it('does not prompt when the daemon is not running', async () => {
    const daemon = fakeDaemon();
    daemon.running = false;
    const tty = fakeTty([`${SECRET}\r`]);
    const result = await run(daemon, ['unlock'], { stdin: tty, isTTY: true });
    expect(result.code).toBe(2);
    expect(tty.rawModes).toEqual([]);
    expect(result.stderr).not.toMatch(/password:/i);
  });
});
