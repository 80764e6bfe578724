import { IPC_EXIT_CODES, IpcError, type IpcErrorCode } from '@arslan/protocol';

/** Exit codes the CLI owns; every other code comes from IPC_EXIT_CODES (one mapper: `exitCodeFor`). */
export const EXIT_OK = 0;
export const EXIT_USAGE = 1;
export const EXIT_DAEMON_UNAVAILABLE = 2;
export const EXIT_INTERRUPTED = 130;

/** Bad command line, config, or local input: exit 1, raised before any daemon contact. */
export class UsageError extends Error {
  readonly code = 'usage';

  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Nothing listens on the data directory's socket. */
export class DaemonNotRunningError extends Error {
  readonly code = 'daemon_unavailable';

  constructor(message = 'the daemon is not running; start it with `memories daemon start`') {
    super(message);
    this.name = 'DaemonNotRunningError';
  }
}

/** Ctrl-C at a password prompt. */
export class InterruptedError extends Error {
  readonly code = 'interrupted';

  constructor() {
    super('interrupted');
    this.name = 'InterruptedError';
  }
}

export interface CliFailure {
  code: string;
  message: string;
  exitCode: number;
}

/** The single mapping of every error the CLI can meet to a code, message and exit code. */
export function describeFailure(error: unknown): CliFailure {
  if (error instanceof UsageError) return { code: error.code, message: error.message, exitCode: EXIT_USAGE };
  if (error instanceof DaemonNotRunningError) {
    return { code: error.code, message: error.message, exitCode: EXIT_DAEMON_UNAVAILABLE };
  }
  if (error instanceof InterruptedError) {
    return { code: error.code, message: error.message, exitCode: EXIT_INTERRUPTED };
  }
  if (error instanceof LocalCommandError)
    return { code: error.code, message: error.message, exitCode: error.exitCode };
  if (error instanceof IpcError)
    return { code: error.code, message: error.message, exitCode: exitCodeFor(error.code) };
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'internal', message, exitCode: exitCodeFor('internal') };
}

export function exitCodeFor(code: IpcErrorCode): number {
  return IPC_EXIT_CODES[code];
}

/** A command that runs in the CLI process itself failed with a typed code (e.g. `manifest_unpinned`). */
export class LocalCommandError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'LocalCommandError';
  }
}
