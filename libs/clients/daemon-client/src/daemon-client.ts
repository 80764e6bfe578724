// Typed client of the local vault daemon (IPC-1/2): one connection, requests matched by id.
import { type Socket, connect as netConnect } from 'node:net';
import {
  IPC_VERSION,
  IpcError,
  MAX_FRAME_BYTES,
  type VaultOp,
  type VaultOpArgs,
  type VaultOpResults,
  isIpcErrorCode,
  responseWrapperSchema,
} from '@arslan/protocol';
import { FrameDecoder, encodeFrame, parseFrameJson } from './frame-codec';
import { daemonSocketPath } from './socket-path';

export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

/** Nothing answers on the daemon socket (not running, stale socket, or the connection dropped). */
export class DaemonUnavailableError extends Error {
  readonly socketPath: string;

  constructor(socketPath: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DaemonUnavailableError';
    this.socketPath = socketPath;
  }
}

export interface DaemonClientOptions {
  /** Deadline of the connect and of each call, in ms. */
  timeoutMs?: number;
  /** Connect here instead of `daemonSocketPath(dataDir)`. */
  socketPath?: string;
}

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

const UNAVAILABLE_CODES = new Set([
  'ENOENT',
  'ECONNREFUSED',
  'ENOTDIR',
  'ENOTSOCK',
  'EACCES',
  'ECONNRESET',
  'EPIPE',
]);

export class DaemonClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly decoder = new FrameDecoder(MAX_FRAME_BYTES);
  private closedWith: Error | null = null;

  private constructor(
    private readonly socket: Socket,
    readonly socketPath: string,
    private readonly timeoutMs: number,
  ) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error) =>
      this.shutdown(new DaemonUnavailableError(socketPath, error.message, { cause: error })),
    );
    socket.on('close', () =>
      this.shutdown(new DaemonUnavailableError(socketPath, 'daemon closed the connection')),
    );
  }

  /** Connects to the daemon of `dataDir`; DaemonUnavailableError when nothing listens. */
  static connect(dataDir: string, options: DaemonClientOptions = {}): Promise<DaemonClient> {
    const socketPath = options.socketPath ?? daemonSocketPath(dataDir);
    const timeoutMs = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      const socket = netConnect(socketPath);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new DaemonUnavailableError(socketPath, `no answer on ${socketPath} within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        const known = error.code !== undefined && UNAVAILABLE_CODES.has(error.code);
        const why = known ? `no daemon listening on ${socketPath} (${error.code})` : error.message;
        reject(new DaemonUnavailableError(socketPath, why, { cause: error }));
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new DaemonClient(socket, socketPath, timeoutMs));
      });
    });
  }

  /** Sends one request and resolves with its result; rejects with IpcError for an error response. */
  call<Op extends VaultOp>(op: Op, args: VaultOpArgs<Op>): Promise<VaultOpResults[Op]> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = this.nextId++;
    let frame: Buffer;
    try {
      frame = encodeFrame({ v: IPC_VERSION, id, op, args });
    } catch (error) {
      return Promise.reject(error as Error);
    }
    return new Promise<VaultOpResults[Op]>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new IpcError('timeout', `${op} got no response within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.pending.set(id, { resolve: resolve as (result: unknown) => void, reject, timer });
      this.socket.write(frame);
    });
  }

  /** Closes the connection; pending calls reject with DaemonUnavailableError. */
  close(): void {
    this.shutdown(new DaemonUnavailableError(this.socketPath, 'client closed'));
  }

  private onData(chunk: Buffer): void {
    let bodies: Buffer[];
    try {
      bodies = this.decoder.push(chunk);
    } catch (error) {
      this.shutdown(error as Error);
      return;
    }
    for (const body of bodies) {
      let response;
      try {
        response = responseWrapperSchema.parse(parseFrameJson(body));
      } catch {
        this.shutdown(new IpcError('bad_request', 'daemon sent a malformed response'));
        return;
      }
      const waiting = this.pending.get(response.id);
      if (response.ok) {
        if (!waiting) continue;
        this.settle(response.id, waiting);
        waiting.resolve(response.result);
        continue;
      }
      const code = isIpcErrorCode(response.error.code) ? response.error.code : 'internal';
      const error = new IpcError(code, response.error.message);
      if (waiting) {
        this.settle(response.id, waiting);
        waiting.reject(error);
      } else if (response.id === 0) {
        // connection-level error (too_many_clients, timeout, frame_too_large): fails everything
        this.shutdown(error);
        return;
      }
    }
  }

  private settle(id: number, waiting: Pending): void {
    clearTimeout(waiting.timer);
    this.pending.delete(id);
  }

  private shutdown(error: Error): void {
    if (!this.closedWith) this.closedWith = error;
    for (const [id, waiting] of this.pending) {
      this.settle(id, waiting);
      waiting.reject(this.closedWith);
    }
    this.socket.destroy();
  }
}
