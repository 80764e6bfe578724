// terminal (TOOL-21, SEC-007..009/016, APPR-017, DATA-03): `/bin/sh -c` in the workspace with a
// minimal environment; every command asks first; after external content the command runs with
// network denied by the OS (or not at all); unattended runs run no commands.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import type { Tool, ToolContext, ToolResult } from '../ports/tool.port';
import { classifyNetworkCommand } from './network-classifier';
import { type CommandSandbox, defaultCommandSandbox } from './sandbox';
import { toolOutputDir, toolOutputFileName } from './tool-output';

export const TERMINAL_DEFAULT_TIMEOUT_MS = 2 * 60 * 1000;
export const TERMINAL_MAX_TIMEOUT_MS = 10 * 60 * 1000;

export interface TerminalOptions {
  sandbox?: CommandSandbox;
  /** Characters of output the model sees before head + tail excerpting (default 30 000). */
  maxOutputChars?: number;
  /** Upper bound of the saved full output (bytes; default 50 MiB). */
  maxSavedBytes?: number;
  /** The minimal environment (default: PATH, HOME=workspace, LANG, TERM=dumb). */
  env?: (ctx: ToolContext) => Record<string, string>;
  /** Grace between SIGTERM and SIGKILL of the process group (default 1 s). */
  killGraceMs?: number;
  now?: () => number;
}

const terminalArgs = z.strictObject({
  command: z.string().min(1).max(20_000).describe('Shell command, run with /bin/sh -c in the workspace.'),
  timeout_seconds: z
    .number()
    .int()
    .min(1)
    .max(TERMINAL_MAX_TIMEOUT_MS / 1000)
    .optional()
    .describe('How long the command may run (default 120, at most 600).'),
  needs_network: z.boolean().optional().describe('Declare that the command needs network access.'),
});
export type TerminalArgs = z.infer<typeof terminalArgs>;

function defaultEnv(ctx: ToolContext): Record<string, string> {
  return {
    PATH: '/usr/local/bin:/opt/homebrew/bin:/usr/bin:/bin:/usr/sbin:/sbin',
    HOME: ctx.workspace,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
  };
}

/** Keeps the first and last bytes of a stream and, once it overflows, the whole stream in a file. */
class OutputCollector {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;
  private fd: number | null = null;
  private savedBytes = 0;
  private saveTruncated = false;
  file: string | null = null;

  constructor(
    private readonly limit: number,
    private readonly maxSaved: number,
    private readonly makeFile: () => string,
  ) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.fd === null && this.total > this.limit) this.openFile();
    if (this.fd !== null) this.save(chunk);
    const half = Math.floor(this.limit / 2);
    if (this.headBytes < this.limit) {
      const take = chunk.subarray(0, this.limit - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tail.length > 1 && this.tailBytes - this.tail[0]!.length >= half) {
      this.tailBytes -= this.tail.shift()!.length;
    }
  }

  private openFile(): void {
    const file = this.makeFile();
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    this.fd = openSync(file, 'wx', 0o600);
    this.file = file;
    // Everything so far is still in head (total just crossed the limit for the first time).
    for (const b of [...this.head, ...this.tail]) this.save(b);
  }

  private save(chunk: Buffer): void {
    if (this.fd === null || this.saveTruncated) return;
    const room = this.maxSaved - this.savedBytes;
    const part = chunk.subarray(0, Math.max(0, room));
    if (part.length > 0) writeSync(this.fd, part);
    this.savedBytes += part.length;
    if (part.length < chunk.length) {
      writeSync(this.fd, '\n[saved output truncated here]\n');
      this.saveTruncated = true;
    }
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  render(): string {
    const whole = Buffer.concat(this.head);
    if (this.total <= this.limit) return whole.toString('utf8');
    const half = Math.floor(this.limit / 2);
    const head = whole.subarray(0, half).toString('utf8');
    const tailBuf = Buffer.concat(this.tail);
    const tail = tailBuf.subarray(Math.max(0, tailBuf.length - half)).toString('utf8');
    const omitted = this.total - half - Math.min(half, tailBuf.length);
    return (
      `${head}\n\n[… ${omitted} bytes omitted; the full output (${this.total} bytes) is saved at ${this.file}` +
      ` for 7 days — read it with read_file in chunks …]\n\n${tail}`
    );
  }
}

interface RunOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  cancelled: boolean;
  spawnError?: string;
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

function runProcess(
  argv: string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
  signal: AbortSignal,
  output: OutputCollector,
  killGraceMs: number,
): Promise<RunOutcome> {
  return new Promise((resolve) => {
    const state = { timedOut: false, cancelled: false };
    let settled = false;
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stop = () => {
      killGroup(child.pid, 'SIGTERM');
      setTimeout(() => killGroup(child.pid, 'SIGKILL'), killGraceMs).unref();
    };
    const timer = setTimeout(() => {
      state.timedOut = true;
      stop();
    }, timeoutMs);
    const onAbort = () => {
      state.cancelled = true;
      stop();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const finish = (outcome: RunOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    child.stdout.on('data', (c: Buffer) => output.push(c));
    child.stderr.on('data', (c: Buffer) => output.push(c));
    child.on('error', (error) =>
      finish({ exitCode: null, signal: null, ...state, spawnError: error.message }),
    );
    child.on('exit', (code, sig) => {
      // Pipes may stay open in a grandchild that left the group; do not wait for them forever.
      killGroup(child.pid, 'SIGKILL');
      const t = setTimeout(() => finish({ exitCode: code, signal: sig, ...state }), 500);
      t.unref();
      child.on('close', () => finish({ exitCode: code, signal: sig, ...state }));
    });
    if (signal.aborted) onAbort();
  });
}

export function createTerminalTool(options: TerminalOptions = {}): Tool<TerminalArgs> {
  const sandbox = options.sandbox ?? defaultCommandSandbox();
  const limit = options.maxOutputChars ?? 30_000;
  const now = options.now ?? Date.now;
  return {
    name: 'terminal',
    description:
      'Run a shell command (/bin/sh -c) in the workspace. Default timeout 120 s, at most 600 s. Every new command is shown to the user first. Set needs_network when the command needs network access.',
    schema: terminalArgs,
    readOnly: false,
    resident: true,
    approval(args, ctx) {
      if (ctx.turn.externalContentRead) {
        const verdict = classifyNetworkCommand(args.command);
        if (args.needs_network || verdict.network) {
          return { kind: 'network_command', summary: args.command.slice(0, 500) };
        }
      }
      return { kind: 'command', summary: args.command.slice(0, 500) };
    },
    async execute(args, ctx): Promise<ToolResult> {
      // Unattended runs run no commands (APPR-017) unless the user pre-approved commands for this
      // headless run (`arslan run --allow command`); the approval gate has already checked the kind.
      const preApproved = ctx.preApproved ?? [];
      if (!ctx.attended && !preApproved.includes('command') && !preApproved.includes('network_command')) {
        return {
          content: 'Refused: unattended runs run no terminal commands (APPR-017). Nothing was run.',
          isError: true,
        };
      }
      const requested = (args.timeout_seconds ?? TERMINAL_DEFAULT_TIMEOUT_MS / 1000) * 1000;
      const timeoutMs = Math.min(requested, TERMINAL_MAX_TIMEOUT_MS, Math.floor(ctx.remainingMs));
      if (timeoutMs <= 0)
        return { content: 'Refused: the reply has no time left to run a command.', isError: true };
      let argv = ['/bin/sh', '-c', args.command];
      let offline = false;
      if (ctx.turn.externalContentRead) {
        const wrapped = await sandbox.offline(argv);
        if (!wrapped) {
          return {
            content:
              'Refused: this turn read external content, so commands must run without network, and the network sandbox ' +
              `(${sandbox.name}) cannot be applied here. Nothing was run.`,
            isError: true,
          };
        }
        argv = wrapped;
        offline = true;
      }
      const output = new OutputCollector(limit, options.maxSavedBytes ?? 50 * 1024 * 1024, () =>
        path.join(toolOutputDir(ctx.dataDir), toolOutputFileName(ctx.runId, ctx.callId, now())),
      );
      await ctx.beforeWorkspaceChange?.(); // CKPT-11: a command may change the folder; save it first
      let outcome: RunOutcome;
      try {
        outcome = await runProcess(
          argv,
          ctx.workspace,
          options.env?.(ctx) ?? defaultEnv(ctx),
          timeoutMs,
          ctx.signal,
          output,
          options.killGraceMs ?? 1000,
        );
      } finally {
        output.close();
      }
      const lines = [output.render()];
      if (offline) lines.push('[ran without network access: this turn read external content]');
      if (outcome.spawnError) lines.push(`[could not start: ${outcome.spawnError}]`);
      else if (outcome.timedOut)
        lines.push(`[timed out after ${Math.round(timeoutMs / 100) / 10} s; output so far is shown]`);
      else if (outcome.cancelled) lines.push('[cancelled; output so far is shown]');
      else if (outcome.signal) lines.push(`[killed by ${outcome.signal}]`);
      else lines.push(`[exit code ${outcome.exitCode}]`);
      const failed = outcome.timedOut || outcome.cancelled || !!outcome.spawnError || outcome.exitCode !== 0;
      return { content: lines.join('\n'), isError: failed };
    },
  };
}
