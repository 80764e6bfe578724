// The shared transport of the three adapters: one POST over fetch with an AbortController
// (request timeout until headers, idle timeout between stream chunks, optional total timeout),
// hand-parsed SSE, ProviderError mapping, PROV-09 resends of rejected optional parameters and the
// PROV-08 fallback to flattened history.
import {
  ProviderError,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
} from '../ports/model.port';
import {
  detectRejectedTool,
  errorMessage,
  isTransientNetworkError,
  providerError,
  redact,
  statusKind,
} from './errors';
import { detectRejectedHistory, flattenTrajectory } from './history-fallback';
import {
  detectRejectedParam,
  processParamMemory,
  type ParamDecision,
  type RejectedParamMemory,
} from './rejected-params';
import { ResponseBuilder } from './response-builder';
import { SseParser, type SseEvent } from './sse';

export interface ProviderOptions {
  /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`, `https://api.anthropic.com`. */
  baseUrl: string;
  /** Resolved by the caller (e.g. from the env var named in config). Never appears in errors. */
  apiKey?: string;
  /** Until the response headers arrive (default 60 s). */
  requestTimeoutMs?: number;
  /** Longest silence allowed while the body streams (default 60 s). */
  idleTimeoutMs?: number;
  /** Whole exchange, headers to end of stream (default 10 min). */
  totalTimeoutMs?: number;
  /** Extra headers (e.g. OpenRouter's `HTTP-Referer`, `X-Title`). */
  headers?: Record<string, string>;
  /** PROV-09 decisions; defaults to the process-wide in-memory instance. */
  paramMemory?: RejectedParamMemory;
  /** Injected for tests; defaults to the global `fetch`. */
  fetch?: typeof fetch;
  /** Tool call ids synthesised when the wire has none (Gemini, some local servers). */
  newCallId?: () => string;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
export const DEFAULT_TOTAL_TIMEOUT_MS = 600_000;
/** PROV-09 resends per request (one per rejected parameter at most). */
const MAX_PARAM_RESENDS = 4;
const MAX_ERROR_BODY = 64 * 1024;

/** Collects the optional parameters a request carries, applying PROV-09 decisions. */
export class OptionalParams {
  /** wire name sent → original name */
  readonly sent = new Map<string, string>();

  constructor(private readonly decisions: ReadonlyMap<string, ParamDecision>) {}

  set(target: Record<string, unknown>, name: string, value: unknown): void {
    if (value === undefined) return;
    const decision = this.decisions.get(name);
    if (decision?.action === 'drop') return;
    const wireName = decision?.action === 'rename' ? decision.to : name;
    target[wireName] = value;
    this.sent.set(wireName, name);
  }
}

export interface WireRequest {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** Decodes one provider's SSE events into a ResponseBuilder. */
export interface WireDecoder {
  /** Handles one event; returns true at the end marker (nothing more to read). */
  event(event: SseEvent): boolean;
  /** The stream may end here without being broken (e.g. a finish reason was seen). */
  readonly finished: boolean;
}

/** `scheme://host:port` of a base URL; URL.origin drops user info, path and query (keys). */
function originOf(baseUrl: string): string | undefined {
  try {
    const { origin } = new URL(baseUrl);
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

type AbortWhy = 'cancelled' | 'request_timeout' | 'idle_timeout' | 'total_timeout';

export abstract class StreamingProvider implements ModelProvider {
  abstract readonly kind: 'openai-compatible' | 'anthropic' | 'gemini';
  protected abstract readonly label: string;
  protected readonly baseUrl: string;
  /** ARCH-18: the endpoint's origin only (no path, query or credentials). */
  readonly origin: string | undefined;
  protected readonly apiKey: string | undefined;
  private readonly memory: RejectedParamMemory;
  private readonly fetchImpl: typeof fetch;
  protected readonly makeCallId: (() => string) | undefined;
  /**
   * PROV-08: turns whose endpoint rejected native tool history. The loop passes one AbortSignal
   * per turn (a run's stop signal) to every request of that turn, so the signal is the turn's
   * identity here; a WeakSet lets the state go with the turn.
   */
  private readonly flattenedTurns = new WeakSet<AbortSignal>();

  constructor(protected readonly options: ProviderOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.origin = originOf(this.baseUrl);
    this.apiKey = options.apiKey || undefined;
    this.memory = options.paramMemory ?? processParamMemory;
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.makeCallId = options.newCallId;
  }

  protected abstract buildRequest(request: ModelRequest, params: OptionalParams): WireRequest;
  protected abstract decoder(request: ModelRequest, out: ResponseBuilder): WireDecoder;

  async stream(
    request: ModelRequest,
    onEvent: (event: ModelStreamEvent) => void,
    signal: AbortSignal,
  ): Promise<ModelResponse> {
    let flatten = this.flattenedTurns.has(signal);
    for (let resend = 0; ;) {
      const params = new OptionalParams(this.memory.get(this.baseUrl, request.model));
      const sent = flatten ? { ...request, trajectory: flattenTrajectory(request.trajectory) } : request;
      const wire = this.buildRequest(sent, params);
      try {
        const response = await this.exchange(sent, wire, [...params.sent.keys()], onEvent, signal);
        onEvent({ type: 'usage', usage: { ...response.usage } });
        return response;
      } catch (error) {
        if (error instanceof RejectedHistory) {
          // `sent` was native (a flattened request carries no tool history to reject).
          flatten = true;
          this.flattenedTurns.add(signal);
          continue;
        }
        if (!(error instanceof RejectedParam) || resend >= MAX_PARAM_RESENDS) {
          throw error instanceof RejectedParam ? error.original : error;
        }
        resend += 1;
        const original = params.sent.get(error.param) ?? error.param;
        const decision: ParamDecision =
          error.renameTo && error.param === original
            ? { action: 'rename', to: error.renameTo }
            : { action: 'drop' };
        this.memory.record(this.baseUrl, request.model, original, decision);
      }
    }
  }

  private secrets(): (string | undefined)[] {
    return [this.apiKey];
  }

  private async exchange(
    request: ModelRequest,
    wire: WireRequest,
    sentOptional: readonly string[],
    onEvent: (event: ModelStreamEvent) => void,
    signal: AbortSignal,
  ): Promise<ModelResponse> {
    const out = new ResponseBuilder(onEvent, this.makeCallId);
    const bodyText = JSON.stringify(wire.body);
    const estimatedInput = Math.ceil(bodyText.length / 4);
    const partial = (): { partial?: ModelResponse } =>
      out.hasOutput() ? { partial: out.build(estimatedInput, 'other') } : {};
    if (signal.aborted) throw new ProviderError('cancelled', `${this.label}: cancelled before sending`);

    const controller = new AbortController();
    let why: AbortWhy | undefined;
    const abort = (reason: AbortWhy): void => {
      why ??= reason;
      controller.abort();
    };
    const onAbort = (): void => abort('cancelled');
    signal.addEventListener('abort', onAbort, { once: true });
    const total = setTimeout(
      () => abort('total_timeout'),
      this.options.totalTimeoutMs ?? DEFAULT_TOTAL_TIMEOUT_MS,
    );
    const headersTimer = setTimeout(
      () => abort('request_timeout'),
      this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    );
    const idleMs = this.options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;

    const failure = (error: unknown): Error => {
      if (
        error instanceof ProviderError ||
        error instanceof RejectedParam ||
        error instanceof RejectedHistory
      )
        return error;
      if (why === 'cancelled') return new ProviderError('cancelled', `${this.label}: cancelled`, partial());
      if (why) {
        const what = why === 'idle_timeout' ? `stream idle for ${idleMs} ms` : why.replace('_', ' ');
        return new ProviderError('timeout', `${this.label}: ${what}`, partial());
      }
      const detail = redact(error instanceof Error ? error.message : String(error), this.secrets());
      const cause =
        error instanceof Error && error.cause instanceof Error
          ? ` (${redact(error.cause.message, this.secrets())})`
          : '';
      if (out.hasOutput()) {
        return new ProviderError(
          'stream_broken',
          `${this.label}: stream broke: ${detail}${cause}`,
          partial(),
        );
      }
      if (isTransientNetworkError(error)) {
        return new ProviderError('transient', `${this.label}: network error: ${detail}${cause}`);
      }
      return new ProviderError('bad_response', `${this.label}: ${detail}${cause}`);
    };

    try {
      let response: Response;
      try {
        response = await this.fetchImpl(wire.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...wire.headers },
          body: bodyText,
          // PROV-06: the request goes to the configured endpoint only; a redirect would carry the
          // key header (x-api-key, x-goog-api-key) and the context to another host.
          redirect: 'error',
          signal: controller.signal,
        });
      } finally {
        clearTimeout(headersTimer);
      }
      const body = response.body;
      if (!body)
        throw new ProviderError('bad_response', `${this.label}: empty response body (${response.status})`);
      const reader = body.getReader();
      const read = async (): ReturnType<typeof reader.read> => {
        const idle = setTimeout(() => abort('idle_timeout'), idleMs);
        try {
          return await reader.read();
        } finally {
          clearTimeout(idle);
        }
      };
      const decoder = new TextDecoder();

      if (!response.ok) {
        let text = '';
        for (;;) {
          const chunk = await read();
          if (chunk.done || text.length > MAX_ERROR_BODY) break;
          text += decoder.decode(chunk.value, { stream: true });
        }
        throw this.httpError(response.status, text, request, sentOptional);
      }

      const parser = new SseParser();
      const wireDecoder = this.decoder(request, out);
      let ended = false;
      const handle = (events: SseEvent[]): void => {
        for (const event of events) {
          if (ended) return;
          try {
            ended = wireDecoder.event(event);
          } catch (error) {
            if (error instanceof ProviderError) {
              if (!error.details.partial && out.hasOutput()) Object.assign(error.details, partial());
              throw error;
            }
            throw new ProviderError('bad_response', `${this.label}: unreadable stream event`, partial());
          }
        }
      };
      while (!ended) {
        const chunk = await read();
        if (chunk.done) {
          handle(parser.push(decoder.decode()));
          handle(parser.end());
          break;
        }
        handle(parser.push(decoder.decode(chunk.value, { stream: true })));
      }
      if (!ended && !wireDecoder.finished) {
        if (out.hasOutput()) {
          throw new ProviderError(
            'stream_broken',
            `${this.label}: stream ended before the response was complete`,
            partial(),
          );
        }
        throw new ProviderError('transient', `${this.label}: stream ended before any output`);
      }
      return out.build(estimatedInput);
    } catch (error) {
      throw failure(error);
    } finally {
      clearTimeout(total);
      clearTimeout(headersTimer);
      signal.removeEventListener('abort', onAbort);
      controller.abort();
    }
  }

  /** Non-2xx: PROV-09 rejected parameter, PROV-08 rejected history, PROV-11 rejected tool, or a kind by status. */
  private httpError(status: number, body: string, request: ModelRequest, sent: readonly string[]): Error {
    const message = errorMessage(body);
    const safe = redact(message.length > 2000 ? `${message.slice(0, 2000)}…` : message, this.secrets());
    const original = providerError(statusKind(status), `${this.label} ${status}: ${safe}`, this.secrets(), {
      status,
    });
    if (status === 400 || status === 422) {
      const param = detectRejectedParam(message, sent);
      if (param) return new RejectedParam(param.param, param.renameTo, original);
      if (detectRejectedHistory(message, request)) return new RejectedHistory(original);
      const tool = detectRejectedTool(message, request.tools);
      if (tool) {
        return providerError(
          'rejected_tool',
          `${this.label} ${status}: tool rejected: ${safe}`,
          this.secrets(),
          {
            status,
            tool: tool.tool,
          },
        );
      }
    }
    return original;
  }
}

/** Internal: a 400 rejecting an optional parameter (never leaves `stream`). */
class RejectedParam extends Error {
  constructor(
    readonly param: string,
    readonly renameTo: string | undefined,
    readonly original: ProviderError,
  ) {
    super(original.message);
  }
}

/** Internal: a 400 rejecting native tool history (PROV-08; never leaves `stream`). */
class RejectedHistory extends Error {
  constructor(readonly original: ProviderError) {
    super(original.message);
  }
}
