// The daemon's local IPC server (IPC-2, IPC-6..8): a Unix socket in a 0700 directory, at most
// 16 clients, per-frame / idle / write deadlines per connection so that no client can stall
// another. Requests go to VaultRequestHandler; errors are mapped in ipc-error.mapper.ts.
import { chmodSync, unlinkSync } from 'node:fs';
import { type Server, type Socket, createServer } from 'node:net';
import { dirname } from 'node:path';
import { FrameDecoder, encodeFrame, parseFrameJson } from '@arslan/daemon-client';
import type { VaultService } from '@arslan/desktop-vault';
import type { RagService } from '@arslan/vault-rag';
import {
  type PeerCredentials,
  parentPidOf as procParentPidOf,
  peerCredentials as kernelPeerCredentials,
} from '@arslan/peer-credentials';
import {
  FRAME_DEADLINE_MS,
  IDLE_CONNECTION_MS,
  IPC_VERSION,
  MAX_FRAME_BYTES,
  MAX_IPC_CLIENTS,
  SUDO_IDLE_MS,
  SUDO_MAX_MS,
  UNLOCK_IDLE_MS,
  parseVaultRequest,
  requestIdOf,
} from '@arslan/protocol';
import type { CenterSeam } from './center-seam';
import { type IpcErrorBody, toIpcErrorBody } from './ipc-error.mapper';
import { ensurePrivateDir, removeStaleSocket } from './private-socket';
import { type Clock, type SessionLimits, SessionPolicy, systemClock } from './session-policy';
import { type Caller, VaultRequestHandler } from './vault-request.handler';

export interface VaultIpcLimits extends SessionLimits {
  maxClients: number;
  maxFrameBytes: number;
  /** IPC-8: a frame whose first byte arrived must be complete within this. */
  frameDeadlineMs: number;
  /** A connection with nothing in flight is closed after this. */
  idleConnectionMs: number;
  /** A response that cannot be flushed within this closes the connection. */
  writeDeadlineMs: number;
  /** Requests of one connection in flight before its reads pause. */
  maxInFlightPerClient: number;
  /** How often idle unlock expiry is checked without requests. */
  sweepIntervalMs: number;
}

export const DEFAULT_VAULT_IPC_LIMITS: VaultIpcLimits = {
  maxClients: MAX_IPC_CLIENTS,
  maxFrameBytes: MAX_FRAME_BYTES,
  frameDeadlineMs: FRAME_DEADLINE_MS,
  idleConnectionMs: IDLE_CONNECTION_MS,
  writeDeadlineMs: FRAME_DEADLINE_MS,
  maxInFlightPerClient: 32,
  sweepIntervalMs: 10_000,
  unlockIdleMs: UNLOCK_IDLE_MS,
  sudoMaxMs: SUDO_MAX_MS,
  sudoIdleMs: SUDO_IDLE_MS,
  freeAttempts: 5,
  backoffBaseMs: 1_000,
  backoffMaxMs: 60_000,
};

export interface VaultIpcServerOptions {
  socketPath: string;
  service: VaultService;
  /** Retrieval over the service (RAG-*); cleared on lock. */
  rag?: RagService;
  /** Called once after the `shutdown` response has been written. */
  onShutdown: () => void;
  clock?: Clock;
  /** Reported by `status`. */
  dataDir?: string;
  limits?: Partial<VaultIpcLimits>;
  /** Configured Centers (CTR-1, CTR-3/4, CTR-7/8). */
  center?: CenterSeam;
  /** Injection points for tests; default to the kernel (native addon) and /proc or ps. */
  peerCredentials?: (socket: Socket) => PeerCredentials | undefined;
  parentPidOf?: (pid: number) => number | undefined;
}

export interface VaultIpcServer {
  readonly socketPath: string;
  readonly clientCount: number;
  /** Stops accepting, closes every connection and removes the socket file. */
  close(): Promise<void>;
}

type Send = (id: number, body: { result: unknown } | { error: IpcErrorBody }, then?: () => void) => void;

class IpcConnection {
  private readonly decoder: FrameDecoder;
  private frameTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private writeTimer: NodeJS.Timeout | undefined;
  private inFlight = 0;
  private closing = false;

  constructor(
    private readonly socket: Socket,
    private readonly caller: Caller,
    private readonly limits: VaultIpcLimits,
    private readonly handle: (
      request: ReturnType<typeof parseVaultRequest>,
      caller: Caller,
      send: Send,
    ) => void,
  ) {
    this.decoder = new FrameDecoder(limits.maxFrameBytes);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.clearTimers());
    this.armIdle();
  }

  private onData(chunk: Buffer): void {
    if (this.closing) return;
    this.armIdle();
    let bodies: Buffer[];
    try {
      bodies = this.decoder.push(chunk);
    } catch (error) {
      this.fail(toIpcErrorBody(error)); // frame_too_large / zero length: the stream is lost
      return;
    }
    if (bodies.length > 0 && this.frameTimer) {
      clearTimeout(this.frameTimer);
      this.frameTimer = undefined;
    }
    if (this.decoder.inFrame && !this.frameTimer)
      this.frameTimer = setTimeout(
        () => this.fail({ code: 'timeout', message: 'frame not completed in time' }),
        this.limits.frameDeadlineMs,
      );
    for (const body of bodies) this.onFrame(body);
  }

  private onFrame(body: Buffer): void {
    let decoded: unknown;
    let request;
    try {
      decoded = parseFrameJson(body);
      request = parseVaultRequest(decoded);
    } catch (error) {
      this.send(requestIdOf(decoded), { error: toIpcErrorBody(error) });
      return;
    }
    this.inFlight += 1;
    if (this.inFlight >= this.limits.maxInFlightPerClient) this.socket.pause();
    this.handle(request, this.caller, (id, response, then) => {
      this.inFlight -= 1;
      if (!this.closing) this.socket.resume();
      this.send(id, response, then);
      this.armIdle();
    });
  }

  send: Send = (id, body, then) => {
    if (this.socket.destroyed || this.socket.writableEnded) return;
    let frame: Buffer;
    try {
      frame = encodeFrame({ v: IPC_VERSION, id, ok: 'result' in body, ...body }, this.limits.maxFrameBytes);
    } catch (error) {
      frame = encodeFrame({ v: IPC_VERSION, id, ok: false, error: toIpcErrorBody(error) });
    }
    const flushed = this.socket.write(frame, then && (() => then()));
    if (!flushed && !this.writeTimer) {
      this.writeTimer = setTimeout(() => this.socket.destroy(), this.limits.writeDeadlineMs);
      this.socket.once('drain', () => {
        clearTimeout(this.writeTimer);
        this.writeTimer = undefined;
      });
    }
  };

  /** Sends one connection-level error frame (id 0) and closes. */
  fail(error: IpcErrorBody): void {
    if (this.closing) return;
    this.closing = true;
    this.clearTimers();
    this.send(0, { error });
    this.socket.end();
    this.writeTimer = setTimeout(() => this.socket.destroy(), this.limits.writeDeadlineMs);
  }

  private armIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.inFlight > 0 || this.decoder.inFrame) this.armIdle();
      else this.socket.destroy();
    }, this.limits.idleConnectionMs);
  }

  private clearTimers(): void {
    for (const timer of [this.frameTimer, this.idleTimer, this.writeTimer]) if (timer) clearTimeout(timer);
    this.frameTimer = this.idleTimer = this.writeTimer = undefined;
  }
}

/** Starts listening; resolves once the socket (0600, in a 0700 directory) accepts connections. */
export async function startVaultIpcServer(options: VaultIpcServerOptions): Promise<VaultIpcServer> {
  const limits: VaultIpcLimits = { ...DEFAULT_VAULT_IPC_LIMITS, ...options.limits };
  const readPeer = options.peerCredentials ?? kernelPeerCredentials;
  const policy = new SessionPolicy(options.clock ?? systemClock, limits);
  const handler = new VaultRequestHandler({
    service: options.service,
    policy,
    parentPidOf: options.parentPidOf ?? ((pid) => procParentPidOf(pid)),
    dataDir: options.dataDir ?? '',
    ...(options.rag ? { rag: options.rag } : {}),
    ...(options.center ? { center: options.center } : {}),
  });
  const { socketPath } = options;
  const uid = process.getuid?.();
  const sockets = new Set<Socket>();
  let shuttingDown = false;

  const dispatch = (request: ReturnType<typeof parseVaultRequest>, caller: Caller, send: Send) => {
    handler.handle(request, caller).then(
      (result) => {
        const isShutdown = request.op === 'shutdown' && !shuttingDown;
        if (isShutdown) shuttingDown = true;
        send(request.id, { result }, isShutdown ? () => options.onShutdown() : undefined);
      },
      (error: unknown) => send(request.id, { error: toIpcErrorBody(error) }),
    );
  };

  const refuse = (socket: Socket, error: IpcErrorBody) => {
    socket.on('error', () => socket.destroy());
    socket.end(encodeFrame({ v: IPC_VERSION, id: 0, ok: false, error }));
    setTimeout(() => socket.destroy(), limits.writeDeadlineMs).unref();
  };

  const server: Server = createServer((socket) => {
    const peer = readPeer(socket);
    if (peer && uid !== undefined && peer.uid !== uid) {
      socket.destroy(); // IPC-6: another OS user; say nothing
      return;
    }
    if (sockets.size >= limits.maxClients) {
      refuse(socket, { code: 'too_many_clients', message: `at most ${limits.maxClients} clients at once` });
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    new IpcConnection(socket, { peer }, limits, dispatch);
  });

  ensurePrivateDir(dirname(socketPath));
  await removeStaleSocket(socketPath);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(socketPath, 0o600);

  const sweep = setInterval(() => {
    handler.expireIdleUnlock();
    handler.sweepGrants();
  }, limits.sweepIntervalMs);
  sweep.unref();

  return {
    socketPath,
    get clientCount() {
      return sockets.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(sweep);
        server.close(() => {
          try {
            unlinkSync(socketPath);
          } catch {
            // already gone
          }
          resolve();
        });
        for (const socket of sockets) socket.destroy();
      }),
  };
}
