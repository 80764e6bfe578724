import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IPC_EXIT_CODES } from '@arslan/protocol';
import { type SpawnedDaemon } from './cli-context';
import { STATUS, fakeDaemon, run } from './testing/fake-cli';

function clock(): { now: () => number; sleep: (ms: number) => Promise<void> } {
  let t = 0;
  return { now: () => t, sleep: async (ms) => void (t += ms) };
}

describe('daemon start', () => {
  it('spawns the daemon when none answers, waits for status, prints the pid', async () => {
    const data = mkdtempSync(join(tmpdir(), 'memories-daemon-'));
    const daemon = fakeDaemon();
    daemon.running = false;
    const spawned: string[] = [];
    const time = clock();
    const result = await run(daemon, ['--data', data, 'daemon', 'start', '--json'], {
      deps: {
        now: time.now,
        // the daemon starts answering after 300 ms
        sleep: async (ms) => {
          await time.sleep(ms);
          daemon.running = time.now() >= 300;
        },
        spawnDaemon: (dir): SpawnedDaemon => {
          spawned.push(dir);
          return { pid: 4242, hasExited: () => false, logPath: join(dir, 'daemon.log') };
        },
      },
    });
    expect(result.code).toBe(0);
    expect(spawned).toEqual([data]);
    expect(JSON.parse(result.stdout)).toEqual({
      running: true,
      already_running: false,
      pid: STATUS.pid,
      socket: `${data}/run/vault.sock`,
      log: join(data, 'daemon.log'),
    });
    expect(time.now()).toBe(300);
  });

  it('says so when the daemon already runs and spawns nothing', async () => {
    const result = await run(fakeDaemon(), ['daemon', 'start', '--data', '/d']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`the daemon is already running (pid ${STATUS.pid})\n`);
  });

  it('gives up after 10 s with exit 2 and points at the log', async () => {
    const data = mkdtempSync(join(tmpdir(), 'memories-daemon-'));
    const daemon = fakeDaemon();
    daemon.running = false;
    const time = clock();
    const result = await run(daemon, ['--data', data, 'daemon', 'start'], {
      deps: {
        ...time,
        spawnDaemon: (dir) => ({ pid: 1, hasExited: () => false, logPath: `${dir}/daemon.log` }),
      },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/did not answer within 10 s; see .*daemon\.log/);
    expect(time.now()).toBe(10_000);
  });

  it('reports a daemon that exits during start', async () => {
    const data = mkdtempSync(join(tmpdir(), 'memories-daemon-'));
    const daemon = fakeDaemon();
    daemon.running = false;
    const result = await run(daemon, ['--data', data, 'daemon', 'start'], {
      deps: {
        ...clock(),
        spawnDaemon: (dir) => ({ pid: 1, hasExited: () => true, logPath: `${dir}/daemon.log` }),
      },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/exited while starting/);
  });
});

describe('daemon stop', () => {
  it('sends shutdown and waits for the pid to exit', async () => {
    const daemon = fakeDaemon();
    let polls = 0;
    const result = await run(daemon, ['daemon', 'stop', '--data', '/d'], {
      deps: { ...clock(), processAlive: (pid) => pid === STATUS.pid && ++polls < 3 },
    });
    expect(result.code).toBe(0);
    expect(daemon.calls.map((c) => c.op)).toEqual(['status', 'shutdown']);
    expect(polls).toBe(3);
    expect(result.stdout).toBe(`daemon stopped (pid ${STATUS.pid})\n`);
  });

  it('times out with the timeout exit code when the pid stays alive', async () => {
    const result = await run(fakeDaemon(), ['daemon', 'stop'], {
      deps: { ...clock(), processAlive: () => true },
    });
    expect(result.code).toBe(IPC_EXIT_CODES.timeout);
  });

  it('is a no-op when nothing runs', async () => {
    const daemon = fakeDaemon();
    daemon.running = false;
    const result = await run(daemon, ['daemon', 'stop', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ running: false, stopped: false, pid: null });
  });
});

describe('daemon status', () => {
  it('running: exit 0 with pid and socket', async () => {
    const result = await run(fakeDaemon(), ['daemon', 'status', '--data', '/d', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      running: true,
      pid: STATUS.pid,
      socket: '/d/run/vault.sock',
      data_dir: '/d',
    });
  });

  it('not running: exit 2, one document', async () => {
    const daemon = fakeDaemon();
    daemon.running = false;
    const result = await run(daemon, ['daemon', 'status', '--data', '/d', '--json']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ running: false, pid: null });
  });
});
