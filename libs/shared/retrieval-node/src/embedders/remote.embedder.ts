// EGRESS-3..9: an OpenAI-compatible remote embedder (`POST {baseUrl}/embeddings`).
// - HTTPS only; plain HTTP only for a literal loopback host (decided from the URL, never DNS).
// - Redirects are refused (`redirect: 'error'`, plus any 3xx that slips through).
// - The API key is read only from `process.env[apiKeyEnv]` and only sent as a Bearer header;
//   it never appears in URLs, arguments or error messages.
// - Bounded retries only on connect/read failures, 429 and 502/503/504 (backoff 200 ms·2^n,
//   Retry-After honoured up to a cap). A request may still be billed twice (EGRESS-7).
// - Per-request timeout via AbortSignal. No option to disable TLS verification exists (EGRESS-8).
// - Proxies: Node 20's global fetch ignores HTTP(S)_PROXY, so every request goes direct and
//   loopback never uses a proxy (EGRESS-5). Proxy support for remote hosts would need `undici`'s
//   ProxyAgent / EnvHttpProxyAgent, which is not installed; not implemented.
import { type Embedder } from '@arslan/retrieval';
import { z } from 'zod';
import { EmbedderError, isEmbedderError } from './embedder.errors';
import { assertTlsVerificationOn, checkEndpointUrl } from './endpoint-url.policy';
import { l2Normalise } from './vector-math';

export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const HEADER_SAFE = /^[\x21-\x7e]+$/;
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export interface RemoteEmbedderOptions {
  /** e.g. `https://api.example.com/v1` or `http://127.0.0.1:8080/v1`. */
  baseUrl: string;
  model: string;
  dimensions: number;
  /** Name of the environment variable holding the API key (EGRESS-9); omit for no key. */
  apiKeyEnv?: string;
  /** Per-request timeout; default 30 s. */
  timeoutMs?: number;
  /** Total attempts per request, 1..5; default 3. */
  maxAttempts?: number;
  /** First retry delay; doubles per attempt. Default 200 ms. */
  retryBaseMs?: number;
  /** Upper bound for any wait, including Retry-After; default 10 s. */
  maxRetryDelayMs?: number;
  /** Inputs per request; default 64. */
  batchSize?: number;
}

export interface RemoteEmbedder extends Embedder {
  /** HTTP requests sent so far, retries included (diagnostics, tests). */
  readonly requestCount: number;
}

const responseSchema = z.object({
  data: z
    .array(z.object({ embedding: z.array(z.number()), index: z.number().int().nonnegative().optional() }))
    .min(1),
});

class RetryableFailure extends Error {
  constructor(
    readonly failure: EmbedderError,
    readonly retryAfterMs?: number,
  ) {
    super(failure.message);
  }
}

function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

// fetch errors come from undici's realm: duck-type them (instanceof Error fails across realms).
function causeOf(e: unknown): { code?: unknown; message?: unknown } | undefined {
  if (typeof e !== 'object' || e === null || !('cause' in e)) return undefined;
  const cause = (e as { cause?: unknown }).cause;
  return typeof cause === 'object' && cause !== null ? cause : undefined;
}

function networkCode(e: unknown): string {
  const code = causeOf(e)?.code;
  return typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code) ? code : 'network failure';
}

function isRedirectError(e: unknown): boolean {
  const message = causeOf(e)?.message;
  return typeof message === 'string' && /redirect/i.test(message);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new EmbedderError('aborted', 'embedding was aborted'));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new EmbedderError('aborted', 'embedding was aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function createRemoteEmbedder(options: RemoteEmbedderOptions): RemoteEmbedder {
  const endpoint = checkEndpointUrl(options.baseUrl);
  if (!options.model || options.model.length > 200)
    throw new EmbedderError('invalid_config', 'model name is required');
  if (!Number.isInteger(options.dimensions) || options.dimensions <= 0) {
    throw new EmbedderError('invalid_config', 'dimensions must be a positive integer');
  }
  let apiKey: string | undefined;
  if (options.apiKeyEnv !== undefined) {
    if (!ENV_NAME.test(options.apiKeyEnv)) {
      throw new EmbedderError('invalid_config', 'apiKeyEnv must be an environment variable name');
    }
    apiKey = process.env[options.apiKeyEnv];
    if (!apiKey)
      throw new EmbedderError('invalid_config', `environment variable ${options.apiKeyEnv} is not set`);
    if (!HEADER_SAFE.test(apiKey)) {
      throw new EmbedderError(
        'invalid_config',
        `environment variable ${options.apiKeyEnv} is not a valid API key`,
      );
    }
  }
  const url = new URL(endpoint.url.href.replace(/\/+$/, '') + '/embeddings');
  const host = endpoint.url.host;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxAttempts = Math.min(5, Math.max(1, Math.floor(options.maxAttempts ?? 3)));
  const retryBaseMs = options.retryBaseMs ?? 200;
  const maxRetryDelayMs = options.maxRetryDelayMs ?? 10_000;
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 64));
  let requestCount = 0;
  let closed = false;

  const attempt = async (input: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> => {
    assertTlsVerificationOn(endpoint);
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (apiKey !== undefined) headers['authorization'] = `Bearer ${apiKey}`;
    let body: string;
    try {
      requestCount++;
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: options.model, input }),
        redirect: 'error',
        signal: combined,
      });
      if (res.status >= 300 && res.status < 400) {
        await res.body?.cancel();
        throw new EmbedderError(
          'egress_refused',
          `model API redirect refused (HTTP ${res.status} from ${host})`,
        );
      }
      if (!res.ok) {
        await res.body?.cancel();
        const failure = new EmbedderError('http_error', `HTTP ${res.status} from ${host}`, res.status);
        if (RETRYABLE_STATUSES.has(res.status)) {
          throw new RetryableFailure(failure, parseRetryAfter(res.headers.get('retry-after')));
        }
        throw failure;
      }
      const length = Number(res.headers.get('content-length') ?? '0');
      if (length > MAX_RESPONSE_BYTES) {
        await res.body?.cancel();
        throw new EmbedderError('bad_response', `response from ${host} is too large`);
      }
      body = await res.text();
    } catch (e) {
      if (isEmbedderError(e) || e instanceof RetryableFailure) throw e;
      if (signal?.aborted) throw new EmbedderError('aborted', 'embedding was aborted');
      if (timeout.aborted)
        throw new EmbedderError('timeout', `no answer from ${host} within ${timeoutMs} ms`);
      if (isRedirectError(e))
        throw new EmbedderError('egress_refused', `model API redirect refused (from ${host})`);
      throw new RetryableFailure(
        new EmbedderError('network_error', `request to ${host} failed (${networkCode(e)})`),
      );
    }
    if (body.length > MAX_RESPONSE_BYTES)
      throw new EmbedderError('bad_response', `response from ${host} is too large`);
    let parsed: z.infer<typeof responseSchema>;
    try {
      parsed = responseSchema.parse(JSON.parse(body));
    } catch {
      throw new EmbedderError('bad_response', `response from ${host} is not an embeddings list`);
    }
    const rows = parsed.data.every((d) => d.index !== undefined)
      ? [...parsed.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
      : parsed.data;
    if (rows.length !== input.length) {
      throw new EmbedderError(
        'bad_response',
        `expected ${input.length} embeddings from ${host}, got ${rows.length}`,
      );
    }
    return rows.map((r) => {
      if (r.embedding.length !== options.dimensions) {
        throw new EmbedderError(
          'bad_response',
          `expected ${options.dimensions}-d vectors from ${host}, got ${r.embedding.length}`,
        );
      }
      return l2Normalise(Float32Array.from(r.embedding));
    });
  };

  const request = async (input: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> => {
    for (let n = 1; ; n++) {
      try {
        return await attempt(input, signal);
      } catch (e) {
        if (!(e instanceof RetryableFailure)) throw e;
        if (n >= maxAttempts) throw e.failure;
        const backoff = retryBaseMs * 2 ** (n - 1);
        await sleep(Math.min(maxRetryDelayMs, Math.max(backoff, e.retryAfterMs ?? 0)), signal);
      }
    }
  };

  return {
    id: `remote:${host}/${options.model}`,
    dimensions: options.dimensions,
    local: endpoint.loopback,
    get requestCount() {
      return requestCount;
    },
    async embed(texts, signal) {
      if (closed) throw new EmbedderError('closed', 'embedder is closed');
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        if (signal?.aborted) throw new EmbedderError('aborted', 'embedding was aborted');
        out.push(...(await request(texts.slice(i, i + batchSize), signal)));
      }
      return out;
    },
    async close() {
      closed = true;
    },
  };
}
