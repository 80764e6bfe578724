import { mkdirSync } from 'node:fs';
import { IpcError, type StatusResult } from '@arslan/protocol';
import { DaemonNotRunningError } from './cli-errors';
import { type CommandContext, type CommandOutcome } from './cli-context';

/** How long `daemon start` waits for the status op, and `daemon stop` for the pid to exit. */
export const DAEMON_WAIT_MS = 10_000;
const POLL_MS = 100;

async function probeStatus(ctx: CommandContext): Promise<StatusResult | null> {
  try {
    const session = await ctx.deps.connector.connect(ctx.dataDir);
    try {
      return await session.call('status', {});
    } finally {
      await session.close();
    }
  } catch (error) {
    if (error instanceof DaemonNotRunningError) return null;
    throw error;
  }
}

export async function daemonStartCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const socket = ctx.deps.connector.socketPath(ctx.dataDir);
  const running = await probeStatus(ctx);
  if (running) {
    return {
      json: { running: true, already_running: true, pid: running.pid, socket },
      text: `the daemon is already running (pid ${running.pid})`,
    };
  }
  mkdirSync(ctx.dataDir, { recursive: true, mode: 0o700 });
  const child = ctx.deps.spawnDaemon(ctx.dataDir, ctx.configPath ?? undefined);
  const deadline = ctx.deps.now() + DAEMON_WAIT_MS;
  for (;;) {
    const status = await probeStatus(ctx);
    if (status) {
      return {
        json: { running: true, already_running: false, pid: status.pid, socket, log: child.logPath },
        text: `daemon started (pid ${status.pid})`,
      };
    }
    if (child.hasExited()) {
      throw new DaemonNotRunningError(`the daemon exited while starting; see ${child.logPath}`);
    }
    if (ctx.deps.now() >= deadline) {
      throw new DaemonNotRunningError(
        `the daemon (pid ${child.pid}) did not answer within ${DAEMON_WAIT_MS / 1000} s; see ${child.logPath}`,
      );
    }
    await ctx.deps.sleep(POLL_MS);
  }
}

export async function daemonStopCommand(ctx: CommandContext): Promise<CommandOutcome> {
  let session;
  try {
    session = await ctx.deps.connector.connect(ctx.dataDir);
  } catch (error) {
    if (!(error instanceof DaemonNotRunningError)) throw error;
    return { json: { running: false, stopped: false, pid: null }, text: 'the daemon is not running' };
  }
  let pid: number;
  try {
    pid = (await session.call('status', {})).pid;
    try {
      await session.call('shutdown', {});
    } catch (error) {
      // The daemon may close the connection as it exits; only a daemon error response counts.
      if (error instanceof IpcError) throw error;
    }
  } finally {
    await session.close();
  }
  const deadline = ctx.deps.now() + DAEMON_WAIT_MS;
  while (ctx.deps.processAlive(pid)) {
    if (ctx.deps.now() >= deadline) {
      throw new IpcError('timeout', `the daemon (pid ${pid}) did not exit within ${DAEMON_WAIT_MS / 1000} s`);
    }
    await ctx.deps.sleep(POLL_MS);
  }
  return { json: { running: false, stopped: true, pid }, text: `daemon stopped (pid ${pid})` };
}

/** Exit 0 when running, 2 when not; both print one status document. */
export async function daemonStatusCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const socket = ctx.deps.connector.socketPath(ctx.dataDir);
  const status = await probeStatus(ctx);
  if (!status) {
    return {
      json: { running: false, pid: null, socket, data_dir: ctx.dataDir },
      text: `the daemon is not running (socket ${socket}); start it with \`memories daemon start\``,
      exitCode: 2,
    };
  }
  return {
    json: { running: true, pid: status.pid, socket, data_dir: ctx.dataDir },
    text: `the daemon is running (pid ${status.pid}, socket ${socket})`,
  };
}
