// The daemon's local API (ARCH-05/06/09/10): HTTP manages resources, a WebSocket streams a run's
// events. Loopback only, token on every request, Host/Origin checks, strict bodies.
import { realpathSync, rmSync, statSync } from 'node:fs';
import {
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
  createServer,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { isAbsolute } from 'node:path';
import type { Duplex } from 'node:stream';
import type {
  ArtifactStore,
  ConversationModels,
  RunEvent,
  RunResult,
  RunService,
  RunSnapshot,
  SnapshotTarget,
} from '@arslan/desktop-agent';
import type { JobEvent, JobService } from '@arslan/desktop-agent';
import { type WebSocket, WebSocketServer } from 'ws';
import { type JobsApiErrorCode, routeJobs } from './local-api.jobs';
import type { z } from 'zod';
import {
  WS_PROTOCOL,
  bearerOf,
  checkHostAndOrigin,
  newToken,
  protocolToken,
  tokenMatches,
  writeTokenFile,
} from './local-api.auth';
import {
  cardAnswerBodySchema,
  describeIssues,
  sendMessageBodySchema,
  startRunBodySchema,
  toCardAnswer,
} from './local-api.schemas';
import { type UndoApiErrorCode, isUndoAction, routeUndo } from './local-api.undo';
import { isReconcileAction, routeReconcile } from './local-api.reconcile';
import {
  type DataFlowApiErrorCode,
  type DataFlowRouteContext,
  routeConversationSettings,
  routeRunRequests,
} from './local-api.data-flow';
import { type ModelsApiErrorCode, routeConversationModel, routeModels } from './local-api.models';
import {
  type ArtifactsApiErrorCode,
  type ArtifactsRouteContext,
  matchArtifactDownload,
  routeRunArtifacts,
  sendArtifact,
} from './local-api.artifacts';

/** ARCH-05: the preferred port keeps the UI origin (and its local storage) stable across launches. */
export const PREFERRED_PORT = 47317;
export const LOOPBACK = '127.0.0.1';
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** A client that stops reading is dropped rather than buffered without bound. */
const MAX_WS_BUFFERED_BYTES = 16 * 1024 * 1024;
const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,200}$/;

export type ApiErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'invalid_json'
  | 'invalid_body'
  | 'bad_workspace'
  | 'no_model'
  | 'unknown_provider'
  | 'not_running'
  | 'no_run'
  | 'already_answered'
  | 'card_refused'
  | UndoApiErrorCode
  | DataFlowApiErrorCode
  | JobsApiErrorCode
  | ModelsApiErrorCode
  | ArtifactsApiErrorCode
  | 'internal';

export interface LocalApiDefaults {
  /** A provider name `RunService` resolves (the daemon's `[agent]` provider). */
  provider: string;
  model: string;
  tier?: 'light' | 'standard' | 'deep';
}

export interface LocalApiOptions {
  service: RunService;
  /** Where the token file is written (0600) for the shell and CLI. */
  dataDir: string;
  /** Default 47317; 0 binds an ephemeral port directly. Never a non-loopback address. */
  preferredPort?: number;
  /** Default: 256 random bits, new per process. */
  token?: string;
  maxBodyBytes?: number;
  /** Provider and model of runs whose body names none. */
  defaults?: LocalApiDefaults;
  /** PROV-04/05: the configured models conversations may choose from. */
  models?: ConversationModels;
  /** DATA-02 / FILE-05: the runs' recorded files, served by id. */
  artifacts?: ArtifactStore;
  /** WORK-07..13: background jobs (`/api/jobs`; job cards on conversation streams). */
  jobs?: JobService;
  /** How long `close()` waits for stopped runs to settle (default 5 s). */
  stopGraceMs?: number;
}

export interface LocalApi {
  port: number;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  token: string;
  tokenFile: string;
  /** Stops live runs (waiting up to the grace period), closes every socket and the server. */
  close(): Promise<void>;
}

/** Frames sent on the WebSocket (JSON in binary frames). */
export type StreamFrame =
  | { type: 'snapshot'; conversationId: string | null; snapshot: RunSnapshot | null }
  | { type: 'event'; event: RunEvent };

/** WORK-08: a background job's card, sent to streams of its originating conversation. */
export type JobFrame = JobEvent;

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
  ) {
    super(message);
  }
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  res.end(text);
}

function sendError(res: ServerResponse, error: ApiError): void {
  sendJson(
    res,
    error.status,
    { error: { code: error.code, message: error.message } },
    error.status === 401 ? { 'www-authenticate': 'Bearer' } : {},
  );
}

function rejectUpgrade(socket: Duplex, status: number, code: ApiErrorCode, message: string): void {
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Connection: close\r\n' +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      (status === 401 ? 'WWW-Authenticate: Bearer\r\n' : '') +
      `\r\n${body}`,
  );
  socket.destroy();
}

async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const type = req.headers['content-type'];
  if (typeof type !== 'string' || !/^application\/json\s*(;|$)/i.test(type))
    throw new ApiError(415, 'unsupported_media_type', 'the body must be application/json');
  const declared = Number(req.headers['content-length'] ?? '0');
  if (Number.isFinite(declared) && declared > limit)
    throw new ApiError(413, 'payload_too_large', `the body is larger than ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new ApiError(413, 'payload_too_large', `the body is larger than ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new ApiError(400, 'invalid_json', 'the body is not valid JSON');
  }
}

function parseBody<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ApiError(400, 'invalid_body', describeIssues(parsed.error));
  return parsed.data;
}

function pathId(raw: string): string {
  let id: string;
  try {
    id = decodeURIComponent(raw);
  } catch {
    throw new ApiError(404, 'not_found', 'no such resource');
  }
  if (!ID_PATTERN.test(id)) throw new ApiError(404, 'not_found', 'no such resource');
  return id;
}

function realWorkspace(path: string): string {
  if (!isAbsolute(path)) throw new ApiError(400, 'bad_workspace', 'workspace must be an absolute path');
  try {
    const real = realpathSync(path);
    if (!statSync(real).isDirectory()) throw new Error('not a directory');
    return real;
  } catch {
    throw new ApiError(400, 'bad_workspace', 'workspace must be an existing folder');
  }
}

/** A RunResult as JSON (it holds only plain data). */
function resultJson(result: RunResult): RunResult {
  return result;
}

async function listenLoopback(server: Server, port: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const onError = (error: Error): void => {
      server.off('listening', onListening);
      reject(error);
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ port, host: LOOPBACK, exclusive: true });
  });
}

interface StreamClient {
  ws: WebSocket;
  target: SnapshotTarget;
  runId: string | undefined;
  unsubscribe: () => void;
}

export async function startLocalApi(options: LocalApiOptions): Promise<LocalApi> {
  const { service } = options;
  const token = options.token ?? newToken();
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const running = new Map<string, Promise<RunResult>>();
  const clients = new Set<StreamClient>();
  // WORK-08/10: job cards follow the originating conversation's streams; a socket going away
  // only drops its subscription, never the job.
  const unsubscribeJobs = options.jobs?.subscribe((event) => {
    for (const client of clients)
      if (
        'conversationId' in client.target &&
        client.target.conversationId === event.job.originConversationId
      )
        send(client, event);
  });
  let port = 0;
  let closing = false;

  const track = (runId: string, result: Promise<RunResult>): void => {
    running.set(runId, result);
    void result.then(
      () => running.delete(runId),
      () => running.delete(runId),
    );
  };

  const send = (client: StreamClient, frame: StreamFrame | JobFrame): void => {
    if (client.ws.readyState !== client.ws.OPEN) return;
    if (client.ws.bufferedAmount > MAX_WS_BUFFERED_BYTES) {
      client.ws.terminate();
      return;
    }
    client.ws.send(Buffer.from(JSON.stringify(frame), 'utf8'), { binary: true });
  };

  /**
   * CKPT-04: snapshot and subscription are one synchronous call; the snapshot frame is queued
   * before any later event can be delivered, so the client sees each event exactly once.
   */
  const attach = (client: StreamClient): boolean => {
    client.unsubscribe();
    const conversationId = 'conversationId' in client.target ? client.target.conversationId : null;
    const taken = service.snapshotAndSubscribe(client.target, (event) => {
      send(client, { type: 'event', event });
      if (event.type !== 'run_finished') return;
      // A conversation stream follows the conversation's next run (LOOP-19 follow-ups, next turns);
      // a run stream ends with its run.
      if (conversationId !== null) setImmediate(() => followConversation(client));
      else client.ws.close(1000, 'run finished');
    });
    if (!taken) {
      if (conversationId === null) return false;
      client.runId = undefined;
      client.unsubscribe = () => undefined;
      send(client, { type: 'snapshot', conversationId, snapshot: null });
      return true;
    }
    client.runId = taken.snapshot.runId;
    client.unsubscribe = taken.unsubscribe;
    send(client, {
      type: 'snapshot',
      conversationId: taken.snapshot.conversationId,
      snapshot: taken.snapshot,
    });
    if (conversationId === null && taken.snapshot.status !== 'running') client.ws.close(1000, 'run finished');
    return true;
  };

  const followConversation = (client: StreamClient): void => {
    if (!clients.has(client) || !('conversationId' in client.target)) return;
    const latest = service.registry.latestRunOf(client.target.conversationId);
    if (latest !== undefined && latest !== client.runId) attach(client);
  };

  const conversationStarted = (conversationId: string): void => {
    for (const client of clients)
      if ('conversationId' in client.target && client.target.conversationId === conversationId)
        followConversation(client);
  };

  const startRun = (raw: unknown): { status: number; body: unknown } => {
    const body = parseBody(startRunBodySchema, raw);
    const provider = body.provider ?? options.defaults?.provider;
    const model = body.model ?? (body.provider === undefined ? options.defaults?.model : undefined);
    if (provider === undefined || model === undefined)
      throw new ApiError(400, 'no_model', 'no provider and model given and none configured ([agent])');
    const workspace = realWorkspace(body.workspace);
    const tier = body.tier ?? options.defaults?.tier;
    let started;
    try {
      started = service.startRun({
        message: body.message,
        workspace,
        provider,
        model,
        attended: body.attended ?? true,
        ...(body.conversationId !== undefined ? { conversationId: body.conversationId } : {}),
        ...(tier !== undefined ? { tier } : {}),
        ...(body.allow !== undefined ? { allow: body.allow } : {}),
      });
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('unknown provider'))
        throw new ApiError(400, 'unknown_provider', 'the provider is not configured');
      throw error;
    }
    track(started.runId, started.result);
    conversationStarted(started.conversationId);
    return {
      status: 201,
      body: { runId: started.runId, conversationId: started.conversationId, taskId: started.taskId },
    };
  };

  const getRun = (runId: string): unknown => {
    const taken = service.snapshotAndSubscribe({ runId }, () => undefined);
    taken?.unsubscribe();
    const result = service.getResult(runId);
    if (!taken) throw new ApiError(404, 'not_found', 'no such run');
    const { snapshot } = taken;
    return {
      runId,
      conversationId: snapshot.conversationId,
      status: snapshot.status,
      lastSeq: snapshot.lastSeq,
      events: snapshot.events,
      result: result ? resultJson(result) : null,
    };
  };

  const artifactsCtx = (req: IncomingMessage, url: URL): ArtifactsRouteContext => ({
    service,
    artifacts: options.artifacts,
    method: req.method ?? 'GET',
    query: url.searchParams,
    fail: (status, code, message) => {
      throw new ApiError(status, code, message);
    },
  });

  const route = async (req: IncomingMessage): Promise<{ status: number; body: unknown }> => {
    const url = new URL(req.url ?? '/', `http://${LOOPBACK}`);
    const parts = url.pathname.split('/').filter((p) => p !== '');
    const method = req.method ?? 'GET';
    const only = (allowed: string): void => {
      if (method !== allowed) throw new ApiError(405, 'method_not_allowed', `use ${allowed}`);
    };
    if (parts[0] !== 'api') throw new ApiError(404, 'not_found', 'no such resource');
    const [, resource, rawId, action, ...rest] = parts;
    if (rest.length > 0) throw new ApiError(404, 'not_found', 'no such resource');
    if (resource === 'health' && rawId === undefined) {
      only('GET');
      return { status: 200, body: { ok: true, port } };
    }
    if (resource === 'runs' && rawId === undefined) {
      only('POST');
      return startRun(await readJsonBody(req, limit));
    }
    if (resource === 'runs' && rawId !== undefined && action === undefined) {
      only('GET');
      return { status: 200, body: getRun(pathId(rawId)) };
    }
    const dataFlow = (): DataFlowRouteContext => ({
      service,
      method,
      query: url.searchParams,
      readBody: () => readJsonBody(req, limit),
      fail: (status, code, message) => {
        throw new ApiError(status, code, message);
      },
    });
    if (resource === 'runs' && rawId !== undefined && action === 'requests')
      return routeRunRequests(dataFlow(), pathId(rawId));
    if (resource === 'conversations' && rawId !== undefined && action === 'settings')
      return routeConversationSettings(dataFlow(), pathId(rawId));
    const modelsCtx = {
      models: options.models,
      method,
      query: url.searchParams,
      readBody: () => readJsonBody(req, limit),
      fail: (status: number, code: ModelsApiErrorCode, message: string): never => {
        throw new ApiError(status, code, message);
      },
    };
    if (resource === 'models' && rawId === undefined) return routeModels(modelsCtx);
    if (resource === 'conversations' && rawId !== undefined && action === 'model')
      return routeConversationModel(modelsCtx, pathId(rawId));
    if (resource === 'runs' && rawId !== undefined && action === 'artifacts')
      return routeRunArtifacts(artifactsCtx(req, url), pathId(rawId));
    if (resource === 'runs' && rawId !== undefined && action === 'stop') {
      only('POST');
      const runId = pathId(rawId);
      if (!service.stop(runId)) {
        getRun(runId); // 404 when it does not exist at all
        throw new ApiError(409, 'not_running', 'the run is not running');
      }
      return { status: 202, body: { runId, stopping: true } };
    }
    if (resource === 'conversations' && rawId !== undefined && action === 'messages') {
      only('POST');
      const conversationId = pathId(rawId);
      const body = parseBody(sendMessageBodySchema, await readJsonBody(req, limit));
      const sent = service.sendMessage(conversationId, body.text);
      if (sent.delivered === 'no_run')
        throw new ApiError(404, 'no_run', 'the conversation has no run to continue');
      if (sent.delivered === 'started') {
        track(sent.runId, sent.result);
        conversationStarted(conversationId);
        return { status: 201, body: { delivered: sent.delivered, runId: sent.runId } };
      }
      return { status: 202, body: sent };
    }
    if (resource === 'conversations' && rawId !== undefined && isUndoAction(action)) {
      return routeUndo({
        service,
        conversationId: pathId(rawId),
        action,
        method,
        readBody: () => readJsonBody(req, limit),
        fail: (status, code, message) => {
          throw new ApiError(status, code, message);
        },
      });
    }
    if (resource === 'conversations' && rawId !== undefined && isReconcileAction(action)) {
      return routeReconcile({
        service,
        conversationId: pathId(rawId),
        action,
        method,
        readBody: () => readJsonBody(req, limit),
        fail: (status, code, message) => {
          throw new ApiError(status, code, message);
        },
      });
    }
    if (resource === 'jobs')
      return routeJobs({
        jobs: options.jobs,
        method,
        jobId: rawId === undefined ? undefined : pathId(rawId),
        action,
        query: url.searchParams,
        readBody: () => readJsonBody(req, limit),
        realWorkspace,
        defaults: options.defaults,
        fail: (status, code, message) => {
          throw new ApiError(status, code, message);
        },
      });
    if (resource === 'cards' && rawId === undefined) {
      only('GET');
      return { status: 200, body: { cards: service.listCards() } };
    }
    if (resource === 'cards' && rawId !== undefined && action === 'answer') {
      only('POST');
      const callId = pathId(rawId);
      const body = parseBody(cardAnswerBodySchema, await readJsonBody(req, limit));
      const answered = service.answerCard(toCardAnswer(callId, body));
      if (answered.ok) return { status: 200, body: { callId, resolution: answered.resolution } };
      if (answered.reason === 'unknown_card') throw new ApiError(404, 'not_found', 'no such card');
      if (answered.reason === 'already_answered')
        throw new ApiError(409, 'already_answered', 'the card was already answered');
      throw new ApiError(422, 'card_refused', `the answer was refused: ${answered.reason}`);
    }
    if (resource === 'inbox' && rawId === undefined) {
      only('GET');
      return { status: 200, body: { items: service.listInbox() } };
    }
    throw new ApiError(404, 'not_found', 'no such resource');
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    void (async () => {
      try {
        const verdict = checkHostAndOrigin(req.headers, port);
        if (!verdict.ok)
          throw new ApiError(403, 'forbidden', verdict.reason === 'bad_host' ? 'bad Host' : 'bad Origin');
        if (!tokenMatches(token, bearerOf(req.headers)))
          throw new ApiError(401, 'unauthorized', 'a valid bearer token is required');
        if (closing) throw new ApiError(503 as number, 'internal', 'the daemon is shutting down');
        const url = new URL(req.url ?? '/', `http://${LOOPBACK}`);
        const download = matchArtifactDownload(url.pathname);
        if (download) return await sendArtifact(artifactsCtx(req, url), res, download);
        const { status, body } = await route(req);
        sendJson(res, status, body);
      } catch (error) {
        // An unread (refused or oversized) body is not drained: the connection closes after the answer.
        if (!req.complete) {
          res.setHeader('connection', 'close');
          res.once('finish', () => req.socket.destroy());
        }
        if (error instanceof ApiError) sendError(res, error);
        else sendError(res, new ApiError(500, 'internal', 'internal error'));
      }
    })();
  };

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: 64 * 1024,
    perMessageDeflate: false,
    handleProtocols: (protocols) => (protocols.has(WS_PROTOCOL) ? WS_PROTOCOL : false),
  });

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => undefined);
    const verdict = checkHostAndOrigin(req.headers, port);
    if (!verdict.ok) return rejectUpgrade(socket, 403, 'forbidden', verdict.reason);
    if (!tokenMatches(token, bearerOf(req.headers) ?? protocolToken(req.headers)))
      return rejectUpgrade(socket, 401, 'unauthorized', 'a valid token is required');
    const url = new URL(req.url ?? '/', `http://${LOOPBACK}`);
    if (url.pathname !== '/ws') return rejectUpgrade(socket, 404, 'not_found', 'no such resource');
    const run = url.searchParams.get('run');
    const conversation = url.searchParams.get('conversation');
    if ((run === null) === (conversation === null) || !ID_PATTERN.test(run ?? conversation ?? ''))
      return rejectUpgrade(socket, 400, 'invalid_body', 'give exactly one of run= or conversation=');
    const target: SnapshotTarget = run !== null ? { runId: run } : { conversationId: conversation! };
    if (run !== null) {
      const probe = service.snapshotAndSubscribe({ runId: run }, () => undefined);
      probe?.unsubscribe();
      if (!probe) return rejectUpgrade(socket, 404, 'not_found', 'no such run');
    }
    if (closing) return rejectUpgrade(socket, 503, 'internal', 'the daemon is shutting down');
    wss.handleUpgrade(req, socket, head, (ws) => {
      const client: StreamClient = { ws, target, runId: undefined, unsubscribe: () => undefined };
      clients.add(client);
      // ARCH-15: a socket closing only ends its own subscription, never the run.
      ws.on('close', () => {
        clients.delete(client);
        client.unsubscribe();
      });
      ws.on('error', () => ws.terminate());
      ws.on('message', () => undefined); // commands go over HTTP (ARCH-09)
      attach(client);
    });
  };

  const server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, onRequest);
  server.on('upgrade', onUpgrade);
  server.on('clientError', (_error, socket: Socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    socket.destroy();
  });

  const preferred = options.preferredPort ?? PREFERRED_PORT;
  try {
    port = await listenLoopback(server, preferred);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || preferred === 0) throw error;
    port = await listenLoopback(server, 0); // ARCH-05 fallback: an OS-assigned port
  }
  let tokenFile: string;
  try {
    tokenFile = writeTokenFile(options.dataDir, token);
  } catch (error) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw error;
  }

  const close = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    unsubscribeJobs?.();
    const pending = [...running.entries()];
    for (const [runId] of pending) service.stop(runId);
    for (const client of clients) {
      const latest =
        'conversationId' in client.target
          ? service.registry.latestRunOf(client.target.conversationId)
          : undefined;
      if (latest !== undefined) service.stop(latest);
    }
    if (pending.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled(pending.map(([, result]) => result)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, options.stopGraceMs ?? 5_000))),
      ]);
      clearTimeout(timer);
    }
    for (const client of clients) {
      client.unsubscribe();
      client.ws.close(1001, 'daemon shutting down');
    }
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    for (const client of clients) client.ws.terminate();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(tokenFile, { force: true });
  };

  return { port, origin: `http://${LOOPBACK}:${port}`, token, tokenFile, close };
}
