// The daemon's lifecycle: data dir (0700) → service → IPC server → pid file → one stdout line;
// SIGTERM/SIGINT or the `shutdown` op stop it cleanly. Exit codes follow IPC_EXIT_CODES
// (store locked by another process → 13).
import { chmodSync, existsSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { daemonSocketPath } from '@arslan/daemon-client';
import type { VaultService } from '@arslan/desktop-vault';
import { IPC_EXIT_CODES, isIpcErrorCode } from '@arslan/protocol';
import { startVaultIpcServer } from '@arslan/vault-ipc';
import type { RagService, RagServiceConfig } from '@arslan/vault-rag';
import { parseDaemonArgs } from './daemon-args';
import { type DaemonConfig, loadDaemonConfig } from './daemon-config';

export const PID_FILE_NAME = 'daemon.pid';
export const SOCKET_LINE_PREFIX = 'ARSLAN_VAULT_SOCKET=';

export interface DaemonDeps {
  createService(dataDir: string): VaultService;
  /** Retrieval over the service (RAG-*); without it the RAG ops answer `bad_request`. */
  createRag?(service: VaultService, config: RagServiceConfig): RagService;
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** Where SIGTERM/SIGINT arrive; defaults to `process`. */
  signals?: NodeJS.EventEmitter;
}

function exitCodeOf(error: unknown): number {
  const code = (error as { code?: unknown } | null)?.code;
  return isIpcErrorCode(code) ? IPC_EXIT_CODES[code] : 1;
}

/** Runs until stopped; resolves with the process exit code. */
export async function runDaemon(argv: readonly string[], deps: DaemonDeps): Promise<number> {
  let dataDir: string;
  let config: DaemonConfig;
  try {
    const args = parseDaemonArgs(argv);
    dataDir = args.dataDir;
    // CFG-2: a missing file, unknown key or bad value stops the daemon before the store is opened.
    config = loadDaemonConfig(args.configPath);
  } catch (error) {
    deps.stderr((error as Error).message);
    return 1;
  }
  let service: VaultService | undefined;
  let rag: RagService | undefined;
  try {
    if (!existsSync(dataDir)) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    service = deps.createService(dataDir);
    const liveService = service;
    rag = deps.createRag?.(service, config.rag);
    const liveRag = rag;
    const pidFile = join(dataDir, PID_FILE_NAME);
    let resolveExit: (code: number) => void = () => undefined;
    const exited = new Promise<number>((resolve) => (resolveExit = resolve));
    let stopping = false;
    const signals = deps.signals ?? process;

    const stop = async () => {
      if (stopping) return;
      stopping = true;
      signals.off('SIGTERM', onSignal);
      signals.off('SIGINT', onSignal);
      await server.close();
      await liveRag?.close().catch(() => undefined);
      let code = 0;
      try {
        liveService.close();
      } catch (error) {
        deps.stderr(`closing the vault failed: ${(error as Error).message}`);
        code = exitCodeOf(error);
      }
      try {
        unlinkSync(pidFile);
      } catch {
        // already gone
      }
      resolveExit(code);
    };
    const onSignal = () => void stop();

    const server = await startVaultIpcServer({
      socketPath: daemonSocketPath(dataDir),
      service,
      ...(liveRag ? { rag: liveRag } : {}),
      dataDir,
      onShutdown: () => void stop(),
    });
    signals.on('SIGTERM', onSignal);
    signals.on('SIGINT', onSignal);
    writeFileSync(pidFile, `${process.pid}\n`, { mode: 0o600 });
    chmodSync(pidFile, 0o600);
    deps.stdout(`${SOCKET_LINE_PREFIX}${server.socketPath}`);
    return await exited;
  } catch (error) {
    const code = exitCodeOf(error);
    deps.stderr(
      code === IPC_EXIT_CODES.store_locked
        ? `the vault in ${dataDir} is in use by another process`
        : `daemon failed to start: ${(error as Error).message}`,
    );
    try {
      rag?.clear();
      service?.close();
    } catch {
      // best effort
    }
    return code;
  }
}
