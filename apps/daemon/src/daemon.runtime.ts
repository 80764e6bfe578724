// The daemon's lifecycle: data dir (0700) → service → IPC server → agent + local API → pid file
// → stdout lines (`ARSLAN_VAULT_SOCKET=`, then `ARSLAN_PORT=` when the agent runs); SIGTERM/SIGINT,
// the `shutdown` op or stdin EOF under --stdin-lifeline (ARCH-12) stop it cleanly: live runs are
// cancelled, the local API and the agent DB closed, then the vault. Exit codes follow
// IPC_EXIT_CODES (store locked by another process → 13).
import { chmodSync, existsSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { daemonSocketPath } from '@arslan/daemon-client';
import type { VaultService } from '@arslan/desktop-vault';
import { type LocalApi, startLocalApi } from '@arslan/local-api';
import { IPC_EXIT_CODES, isIpcErrorCode } from '@arslan/protocol';
import { startVaultIpcServer } from '@arslan/vault-ipc';
import type { RagService, RagServiceConfig } from '@arslan/vault-rag';
import { centerSeamFor } from './center-gateway';
import type { DaemonAgent } from './daemon-agent';
import { parseDaemonArgs } from './daemon-args';
import { type DaemonConfig, loadDaemonConfig } from './daemon-config';

export const PID_FILE_NAME = 'daemon.pid';
export const SOCKET_LINE_PREFIX = 'ARSLAN_VAULT_SOCKET=';
/** ARCH-06: the handshake line the shell reads the local API port from. */
export const PORT_LINE_PREFIX = 'ARSLAN_PORT=';

export interface DaemonDeps {
  createService(dataDir: string): VaultService;
  /** Retrieval over the service (RAG-*); without it the RAG ops answer `bad_request`. */
  createRag?(service: VaultService, config: RagServiceConfig): RagService;
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** Where SIGTERM/SIGINT arrive; defaults to `process`. */
  signals?: NodeJS.EventEmitter;
  /**
   * The agent runtime behind the local API (ARCH-05..12); without it no local API is started.
   * `desktop`: ARCH-11, nothing may be taken from the inherited environment but the key variable
   * the config names.
   */
  createAgent?(
    dataDir: string,
    config: DaemonConfig,
    mode: { desktop: boolean },
    /**
     * The vault and its retrieval, for the agent's `recall` tool (KNOW-04); undefined while content
     * is forwarded to a saas Center (CTR-8: the local store must not answer for it).
     */
    vault: { service: VaultService; rag?: RagService } | undefined,
  ): DaemonAgent;
  /** Watched under --stdin-lifeline (ARCH-12); defaults to `process.stdin`. */
  stdin?: NodeJS.ReadableStream;
  /** The local API's preferred port (tests); default 47317. */
  apiPort?: number;
  /** Environment lookups the config names (Center credentials); defaults to `process.env`. */
  readEnv?: (name: string) => string | undefined;
}

function exitCodeOf(error: unknown): number {
  const code = (error as { code?: unknown } | null)?.code;
  return isIpcErrorCode(code) ? IPC_EXIT_CODES[code] : 1;
}

/** Runs until stopped; resolves with the process exit code. */
export async function runDaemon(argv: readonly string[], deps: DaemonDeps): Promise<number> {
  let dataDir: string;
  let config: DaemonConfig;
  let args: ReturnType<typeof parseDaemonArgs>;
  try {
    args = parseDaemonArgs(argv);
    dataDir = args.dataDir;
    // CFG-2: a missing file, unknown key or bad value stops the daemon before the store is opened.
    config = loadDaemonConfig(args.configPath, deps.readEnv);
  } catch (error) {
    deps.stderr((error as Error).message);
    return 1;
  }
  let service: VaultService | undefined;
  let rag: RagService | undefined;
  let agent: DaemonAgent | undefined;
  let api: LocalApi | undefined;
  let ipc: { close(): Promise<void> } | undefined;
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
    const stdin = args.stdinLifeline ? (deps.stdin ?? process.stdin) : undefined;

    const stop = async () => {
      if (stopping) return;
      stopping = true;
      signals.off('SIGTERM', onSignal);
      signals.off('SIGINT', onSignal);
      stdin?.off('end', onSignal);
      stdin?.off('error', onSignal);
      stdin?.pause();
      // ARCH-12: stop background jobs (WORK-10: only shutdown ends them), cancel live runs (the
      // API waits for them to settle), then close the agent DB.
      await agent?.jobs
        ?.stopAll()
        .catch((error: Error) => deps.stderr(`stopping background jobs failed: ${error.message}`));
      await api
        ?.close()
        .catch((error: Error) => deps.stderr(`closing the local API failed: ${error.message}`));
      try {
        agent?.close();
      } catch (error) {
        deps.stderr(`closing the agent store failed: ${(error as Error).message}`);
      }
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
    const center = centerSeamFor(config.centers);

    const server = await startVaultIpcServer({
      socketPath: daemonSocketPath(dataDir),
      service,
      ...(liveRag ? { rag: liveRag } : {}),
      dataDir,
      ...(center ? { center } : {}),
      onShutdown: () => void stop(),
    });
    ipc = server;
    if (deps.createAgent) {
      agent = deps.createAgent(
        dataDir,
        config,
        { desktop: args.desktop },
        center?.forward ? undefined : { service: liveService, ...(liveRag ? { rag: liveRag } : {}) },
      );
      api = await startLocalApi({
        service: agent.service,
        dataDir,
        ...(deps.apiPort !== undefined ? { preferredPort: deps.apiPort } : {}),
        ...(agent.defaults ? { defaults: agent.defaults } : {}),
        ...(agent.models ? { models: agent.models } : {}),
        ...(agent.artifacts ? { artifacts: agent.artifacts } : {}),
        ...(agent.jobs ? { jobs: agent.jobs } : {}),
      });
    }
    signals.on('SIGTERM', onSignal);
    signals.on('SIGINT', onSignal);
    if (stdin) {
      stdin.on('end', onSignal);
      stdin.on('error', onSignal);
      stdin.resume();
    }
    writeFileSync(pidFile, `${process.pid}\n`, { mode: 0o600 });
    chmodSync(pidFile, 0o600);
    deps.stdout(`${SOCKET_LINE_PREFIX}${server.socketPath}`);
    if (api) deps.stdout(`${PORT_LINE_PREFIX}${api.port}`);
    return await exited;
  } catch (error) {
    const code = exitCodeOf(error);
    deps.stderr(
      code === IPC_EXIT_CODES.store_locked
        ? `the vault in ${dataDir} is in use by another process`
        : `daemon failed to start: ${(error as Error).message}`,
    );
    await api?.close().catch(() => undefined);
    await ipc?.close().catch(() => undefined);
    try {
      agent?.close();
    } catch {
      // best effort
    }
    try {
      rag?.clear();
      service?.close();
    } catch {
      // best effort
    }
    return code;
  }
}
