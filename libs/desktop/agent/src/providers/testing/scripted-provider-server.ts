// A real HTTP server on 127.0.0.1:0 that speaks the three providers' streaming wire formats
// (OpenAI-compatible Chat Completions, Anthropic Messages, Gemini streamGenerateContent), driven
// by a queue of scripted replies. It records every request so specs can assert what was sent.
// For specs only; routes by path:
//   POST …/chat/completions                              → OpenAI-compatible
//   POST /v1/messages                                    → Anthropic
//   POST /v1beta/models/{model}:streamGenerateContent    → Gemini
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type WireFormat = 'openai' | 'anthropic' | 'gemini';
export type ScriptedFinish = 'end' | 'tool_calls' | 'max_tokens' | 'other';

export type ScriptStep =
  /** One text delta (one SSE event). */
  | { text: string }
  /**
   * One tool call. `args` is an object or a raw JSON string; it is split into `parts` argument
   * deltas (default 3) for OpenAI and Anthropic (Gemini sends whole calls). `id` defaults to
   * `call_<n>` / `toolu_<n>`; Gemini sends an id only when `id` is given.
   */
  | { toolCall: { name: string; args?: unknown; id?: string; parts?: number; thoughtSignature?: string } }
  /** A provider error event inside the stream (Anthropic `event: error`, `{error}` data otherwise). */
  | { streamError: { type?: string; message: string } }
  /** An SSE comment line (`: …`), which clients must ignore. */
  | { comment: string }
  /** Raw SSE text written as is (line endings untouched). */
  | { raw: string }
  /** Pause before the next step; 'forever' stalls until the client goes away. */
  | { stall: number | 'forever' }
  /** Destroy the connection here (a stream cut mid-way). */
  | { cut: true };

export interface StreamReply {
  steps: ScriptStep[];
  /** Finish reason sent at the end (native name per format); default `tool_calls` if any call, else `end`. 'none': no finish and no end marker. */
  finish?: ScriptedFinish | 'none';
  /** Reported natively (OpenAI: a usage chunk, only when `stream_options.include_usage` was sent). */
  usage?: { input: number; output: number };
  /** Write the SSE bytes in pieces of this many bytes (may split UTF-8 characters and CRLF). Default: one write per event. */
  chunkBytes?: number;
  /** CRLF line endings instead of LF. */
  crlf?: boolean;
  /** JSON payloads pretty-printed over several `data:` lines. */
  multilineData?: boolean;
  /** Delay between writes (ms), default 0 (a macrotask turn). */
  delayMs?: number;
  /** Delay before the response headers (for request timeouts). 'forever': never answer. */
  headersDelayMs?: number | 'forever';
}

export interface ErrorReply {
  status: number;
  /** A string is wrapped in the format's native error JSON; an object is sent as JSON as is. */
  body?: string | Record<string, unknown>;
  headers?: Record<string, string>;
}

export type ScriptedReply = StreamReply | ErrorReply;
export type ScriptEntry = ScriptedReply | ((request: RecordedRequest) => ScriptedReply);

export interface RecordedRequest {
  format: WireFormat;
  method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  path: string;
  /** From the body (OpenAI, Anthropic) or the path (Gemini). */
  model: string;
  headers: IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- specs read arbitrary wire fields
  body: any;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

type Write = string | { stall: number | 'forever' } | { cut: true };

export class ScriptedProviderServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: ScriptEntry[] = [];
  /** Requests that found no scripted reply (answered 599). */
  unscripted = 0;

  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async start(): Promise<ScriptedProviderServer> {
    const holder: { instance?: ScriptedProviderServer } = {};
    const server = createServer((req, res) => {
      void holder.instance?.handle(req.method ?? 'GET', req.url ?? '/', req.headers, req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const instance = new ScriptedProviderServer(server, `http://127.0.0.1:${port}`);
    holder.instance = instance;
    return instance;
  }

  /** The `baseUrl` an adapter of that kind should use. */
  baseUrlFor(kind: 'openai-compatible' | 'anthropic' | 'gemini' | WireFormat): string {
    return kind === 'openai-compatible' || kind === 'openai' ? `${this.origin}/v1` : this.origin;
  }

  /** Appends replies; each request takes the next one. */
  enqueue(...entries: ScriptEntry[]): this {
    this.queue.push(...entries);
    return this;
  }

  /** Replies not yet consumed. */
  pending(): number {
    return this.queue.length;
  }

  lastRequest(): RecordedRequest {
    const last = this.requests[this.requests.length - 1];
    if (!last) throw new Error('scripted server: no request recorded');
    return last;
  }

  reset(): void {
    this.queue.length = 0;
    this.requests.length = 0;
    this.unscripted = 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    req: NodeJS.ReadableStream,
    res: ServerResponse,
  ): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(Buffer.from(chunk));
    const text = Buffer.concat(chunks).toString('utf8');
    const format = route(path);
    if (!format) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"no such route"}}');
      return;
    }
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      body = text;
    }
    const model =
      format === 'gemini'
        ? decodeURIComponent(/\/models\/([^:/?]+)/.exec(path)?.[1] ?? '')
        : String((body as { model?: unknown }).model ?? '');
    const recorded: RecordedRequest = { format, method, path, model, headers, body };
    this.requests.push(recorded);
    const entry = this.queue.shift();
    if (!entry) {
      this.unscripted++;
      res.writeHead(599, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'scripted server: no reply queued' } }));
      return;
    }
    const reply = typeof entry === 'function' ? entry(recorded) : entry;
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    if ('status' in reply) {
      const payload =
        typeof reply.body === 'string' || reply.body === undefined
          ? nativeError(format, reply.status, reply.body ?? `HTTP ${reply.status}`)
          : reply.body;
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(payload));
      return;
    }
    if (reply.headersDelayMs !== undefined) {
      await waitOrClose(reply.headersDelayMs, () => closed);
      if (closed) return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.flushHeaders();
    const writes = coalesce(render(format, reply, recorded), reply.chunkBytes);
    for (const write of writes) {
      if (closed) return;
      if (typeof write === 'string' || Buffer.isBuffer(write)) {
        res.write(write);
        await sleep(reply.delayMs ?? 0);
      } else if ('stall' in write) {
        await waitOrClose(write.stall, () => closed);
      } else {
        res.socket?.destroy();
        return;
      }
    }
    res.end();
  }
}

async function waitOrClose(ms: number | 'forever', isClosed: () => boolean): Promise<void> {
  const until = ms === 'forever' ? Infinity : Date.now() + ms;
  while (!isClosed() && Date.now() < until) await sleep(Math.min(10, Math.max(0, until - Date.now())));
}

function route(path: string): WireFormat | undefined {
  const pathname = path.split('?')[0] ?? '';
  if (pathname.endsWith('/chat/completions')) return 'openai';
  if (pathname.endsWith('/v1/messages')) return 'anthropic';
  if (/\/v1beta\/models\/[^/]+:streamGenerateContent$/.test(pathname)) return 'gemini';
  return undefined;
}

function nativeError(format: WireFormat, status: number, message: string): Record<string, unknown> {
  if (format === 'anthropic') {
    const type =
      status === 401
        ? 'authentication_error'
        : status === 429
          ? 'rate_limit_error'
          : status === 529
            ? 'overloaded_error'
            : status >= 500
              ? 'api_error'
              : 'invalid_request_error';
    return { type: 'error', error: { type, message } };
  }
  if (format === 'gemini') {
    const statusName =
      status === 400
        ? 'INVALID_ARGUMENT'
        : status === 401
          ? 'UNAUTHENTICATED'
          : status === 403
            ? 'PERMISSION_DENIED'
            : status === 429
              ? 'RESOURCE_EXHAUSTED'
              : 'INTERNAL';
    return { error: { code: status, message, status: statusName } };
  }
  return {
    error: {
      message,
      type: status === 429 ? 'rate_limit_exceeded' : 'invalid_request_error',
      param: null,
      code: null,
    },
  };
}

/** Splits a JSON string into `parts` roughly equal pieces (at least one). */
export function splitInto(text: string, parts: number): string[] {
  const n = Math.max(1, Math.min(parts, text.length || 1));
  const size = Math.ceil(text.length / n);
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces.length > 0 ? pieces : [''];
}

function render(format: WireFormat, reply: StreamReply, request: RecordedRequest): Write[] {
  const nl = reply.crlf ? '\r\n' : '\n';
  const sse = (data: unknown, event?: string): string => {
    const json = reply.multilineData ? JSON.stringify(data, null, 1) : JSON.stringify(data);
    const lines = json.split('\n').map((line) => `data: ${line}`);
    return [...(event ? [`event: ${event}`] : []), ...lines].join(nl) + nl + nl;
  };
  const calls = reply.steps.filter((s) => 'toolCall' in s).length;
  const finish = reply.finish ?? (calls > 0 ? 'tool_calls' : 'end');
  const out: Write[] = [];
  const control = (step: ScriptStep): boolean => {
    if ('stall' in step) out.push({ stall: step.stall });
    else if ('cut' in step) out.push({ cut: true });
    else if ('comment' in step) out.push(`: ${step.comment}${nl}`);
    else if ('raw' in step) out.push(step.raw);
    else return false;
    return true;
  };
  const argsText = (args: unknown): string => (typeof args === 'string' ? args : JSON.stringify(args ?? {}));

  if (format === 'openai') {
    const base = {
      id: 'chatcmpl-scripted',
      object: 'chat.completion.chunk',
      created: 0,
      model: request.model,
    };
    const chunk = (delta: unknown, finishReason: string | null = null): string =>
      sse({ ...base, choices: [{ index: 0, delta, finish_reason: finishReason }] });
    out.push(chunk({ role: 'assistant', content: '' }));
    let index = 0;
    for (const step of reply.steps) {
      if (control(step)) continue;
      if ('text' in step) out.push(chunk({ content: step.text }));
      else if ('streamError' in step)
        out.push(
          sse({
            error: { message: step.streamError.message, type: step.streamError.type ?? 'server_error' },
          }),
        );
      else if ('toolCall' in step) {
        const i = index++;
        const { name, args, id, parts } = step.toolCall;
        out.push(
          chunk({
            tool_calls: [
              { index: i, id: id ?? `call_${i}`, type: 'function', function: { name, arguments: '' } },
            ],
          }),
        );
        for (const piece of splitInto(argsText(args), parts ?? 3)) {
          out.push(chunk({ tool_calls: [{ index: i, function: { arguments: piece } }] }));
        }
      }
    }
    if (finish === 'none') return out;
    const native = { end: 'stop', tool_calls: 'tool_calls', max_tokens: 'length', other: 'content_filter' }[
      finish
    ];
    out.push(chunk({}, native));
    if (reply.usage && request.body?.stream_options?.include_usage) {
      const { input, output } = reply.usage;
      out.push(
        sse({
          ...base,
          choices: [],
          usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
        }),
      );
    }
    out.push(`data: [DONE]${nl}${nl}`);
    return out;
  }

  if (format === 'anthropic') {
    const usage = reply.usage ?? { input: 0, output: 0 };
    out.push(
      sse(
        {
          type: 'message_start',
          message: {
            id: 'msg_scripted',
            type: 'message',
            role: 'assistant',
            model: request.model,
            content: [],
            stop_reason: null,
            usage: { input_tokens: usage.input, output_tokens: 1 },
          },
        },
        'message_start',
      ),
    );
    out.push(sse({ type: 'ping' }, 'ping'));
    let index = -1;
    let open: 'text' | 'tool' | undefined;
    let toolNo = 0;
    const close = (): void => {
      if (open) out.push(sse({ type: 'content_block_stop', index }, 'content_block_stop'));
      open = undefined;
    };
    for (const step of reply.steps) {
      if (control(step)) continue;
      if ('text' in step) {
        if (open !== 'text') {
          close();
          index++;
          open = 'text';
          out.push(
            sse(
              { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
              'content_block_start',
            ),
          );
        }
        out.push(
          sse(
            { type: 'content_block_delta', index, delta: { type: 'text_delta', text: step.text } },
            'content_block_delta',
          ),
        );
      } else if ('streamError' in step) {
        out.push(
          sse(
            {
              type: 'error',
              error: { type: step.streamError.type ?? 'overloaded_error', message: step.streamError.message },
            },
            'error',
          ),
        );
      } else if ('toolCall' in step) {
        close();
        index++;
        open = 'tool';
        const { name, args, id, parts } = step.toolCall;
        out.push(
          sse(
            {
              type: 'content_block_start',
              index,
              content_block: { type: 'tool_use', id: id ?? `toolu_${toolNo++}`, name, input: {} },
            },
            'content_block_start',
          ),
        );
        for (const piece of splitInto(argsText(args), parts ?? 3)) {
          out.push(
            sse(
              {
                type: 'content_block_delta',
                index,
                delta: { type: 'input_json_delta', partial_json: piece },
              },
              'content_block_delta',
            ),
          );
        }
      }
    }
    if (finish === 'none') return out;
    close();
    const native = { end: 'end_turn', tool_calls: 'tool_use', max_tokens: 'max_tokens', other: 'refusal' }[
      finish
    ];
    out.push(
      sse(
        {
          type: 'message_delta',
          delta: { stop_reason: native, stop_sequence: null },
          usage: { output_tokens: usage.output },
        },
        'message_delta',
      ),
    );
    out.push(sse({ type: 'message_stop' }, 'message_stop'));
    return out;
  }

  // gemini
  const candidate = (parts: unknown[], finishReason?: string): Record<string, unknown> => ({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(finishReason ? { finishReason } : {}) }],
    modelVersion: request.model,
  });
  for (const step of reply.steps) {
    if (control(step)) continue;
    if ('text' in step) out.push(sse(candidate([{ text: step.text }])));
    else if ('streamError' in step) {
      out.push(
        sse({
          error: {
            code: 500,
            message: step.streamError.message,
            status: step.streamError.type ?? 'INTERNAL',
          },
        }),
      );
    } else if ('toolCall' in step) {
      const { name, args, id, thoughtSignature } = step.toolCall;
      const parsed = typeof args === 'string' ? (JSON.parse(args) as unknown) : (args ?? {});
      out.push(
        sse(
          candidate([
            {
              functionCall: { ...(id ? { id } : {}), name, args: parsed },
              ...(thoughtSignature ? { thoughtSignature } : {}),
            },
          ]),
        ),
      );
    }
  }
  if (finish === 'none') return out;
  const native = { end: 'STOP', tool_calls: 'STOP', max_tokens: 'MAX_TOKENS', other: 'SAFETY' }[finish];
  const usage = reply.usage;
  out.push(
    sse({
      ...candidate([], native),
      ...(usage
        ? {
            usageMetadata: {
              promptTokenCount: usage.input,
              candidatesTokenCount: usage.output,
              totalTokenCount: usage.input + usage.output,
            },
          }
        : {}),
    }),
  );
  return out;
}

/** With `chunkBytes`, consecutive text writes are re-cut into byte pieces (splitting anything). */
function coalesce(writes: Write[], chunkBytes: number | undefined): (Write | Buffer)[] {
  if (!chunkBytes) return writes;
  const out: (Write | Buffer)[] = [];
  let pending: Buffer[] = [];
  const flush = (): void => {
    const all = Buffer.concat(pending);
    for (let i = 0; i < all.length; i += chunkBytes) out.push(all.subarray(i, i + chunkBytes));
    pending = [];
  };
  for (const write of writes) {
    if (typeof write === 'string') pending.push(Buffer.from(write, 'utf8'));
    else {
      flush();
      out.push(write);
    }
  }
  flush();
  return out;
}
