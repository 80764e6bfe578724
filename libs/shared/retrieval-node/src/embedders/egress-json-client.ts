// EGRESS-3..9: the shared HTTP client behind the OpenAI-compatible model APIs (remote embedder,
// vault-rag chat model): `POST {endpoint}{path}` with a JSON body, JSON answer.
// - The endpoint comes from `checkEndpointUrl` (HTTPS only; plain HTTP only for a literal loopback
//   host, decided from the URL, never DNS). HTTPS is refused while NODE_TLS_REJECT_UNAUTHORIZED=0;
//   no option to disable TLS verification exists (EGRESS-8).
// - Redirects are refused (`redirect: 'error'`, plus any 3xx that slips through).
// - The API key is read only from `env[apiKeyEnv]` and only sent as a Bearer header;
//   it never appears in URLs, arguments or error messages (EGRESS-9).
// - Bounded retries only on connect/read failures, 429 and 502/503/504 (backoff retryBaseMs·2^n;
//   with `maxRetryDelayMs` set, Retry-After is honoured up to that cap). A request may still be
//   billed twice (EGRESS-7).
// - Per-request timeout via AbortSignal, combined with the caller's signal; response size capped.
// - Proxies: Node 20's global fetch ignores HTTP(S)_PROXY, so every request goes direct and
//   loopback never uses a proxy (EGRESS-5). Proxy support for remote hosts would need `undici`'s
//   ProxyAgent / EnvHttpProxyAgent, which is not installed; not implemented.
import { type z } from 'zod';
import { EmbedderError, isEmbedderError } from './embedder.errors';
import { type CheckedEndpoint, assertTlsVerificationOn } from './endpoint-url.policy';

export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const HEADER_SAFE = /^[\x21-\x7e]+$/;

export interface EgressJsonClientOptions {
  /** From `checkEndpointUrl(baseUrl)`. */
  endpoint: CheckedEndpoint;
  /** Appended to the endpoint URL (trailing slashes trimmed), e.g. `/embeddings`. */
  path: string;
  /** Name of the environment variable holding the API key (EGRESS-9); omit for no key. */
  apiKeyEnv?: string;
  /** How the key-variable option is called in the invalid-name message; default `apiKeyEnv`. */
  apiKeyEnvLabel?: string;
  /** Where the key and NODE_TLS_REJECT_UNAUTHORIZED are read; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Per-attempt timeout. */
  timeoutMs: number;
  /** Total attempts per request, clamped to 1..5. */
  maxAttempts: number;
  /** First retry delay; doubles per attempt. */
  retryBaseMs: number;
  /** Upper bound for any wait; when set, Retry-After is honoured up to it. Default: unbounded. */
  maxRetryDelayMs?: number;
  /** Cap on the response text length. */
  maxResponseChars: number;
  /** Also refuse a response whose Content-Length exceeds this, before reading it. */
  maxContentLength?: number;
  /** Used in the `aborted` message: `${operation} was aborted`. */
  operation: string;
  /** Add the (sanitised) network error code to `network_error` messages. */
  reportNetworkCode?: boolean;
}

export interface EgressJsonClient {
  /** The endpoint's literal host is loopback. */
  readonly loopback: boolean;
  /** `host[:port]` of the endpoint, for messages and ids (never the key). */
  readonly host: string;
  /** HTTP requests sent so far, retries included (diagnostics, tests). */
  readonly requestCount: number;
  /**
   * POSTs `body` as JSON (with retries) and parses the answer with `schema`; a non-JSON or
   * non-matching answer is `bad_response`: `response from {host} is not {kind}`.
   */
  postJson<T>(body: unknown, schema: z.ZodType<T>, kind: string, signal?: AbortSignal): Promise<T>;
}

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

function sleep(ms: number, abortedMessage: string, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new EmbedderError('aborted', abortedMessage));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new EmbedderError('aborted', abortedMessage));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function createEgressJsonClient(options: EgressJsonClientOptions): EgressJsonClient {
  const { endpoint, timeoutMs, retryBaseMs, maxResponseChars } = options;
  const env = options.env ?? process.env;
  let apiKey: string | undefined;
  if (options.apiKeyEnv !== undefined) {
    if (!ENV_NAME.test(options.apiKeyEnv)) {
      throw new EmbedderError(
        'invalid_config',
        `${options.apiKeyEnvLabel ?? 'apiKeyEnv'} must be an environment variable name`,
      );
    }
    apiKey = env[options.apiKeyEnv];
    if (!apiKey)
      throw new EmbedderError('invalid_config', `environment variable ${options.apiKeyEnv} is not set`);
    if (!HEADER_SAFE.test(apiKey)) {
      throw new EmbedderError(
        'invalid_config',
        `environment variable ${options.apiKeyEnv} is not a valid API key`,
      );
    }
  }
  const url = new URL(endpoint.url.href.replace(/\/+$/, '') + options.path);
  const host = endpoint.url.host;
  const maxAttempts = Math.min(5, Math.max(1, Math.floor(options.maxAttempts)));
  const abortedMessage = `${options.operation} was aborted`;
  let requestCount = 0;

  const attempt = async (body: string, signal?: AbortSignal): Promise<string> => {
    assertTlsVerificationOn(endpoint, env);
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (apiKey !== undefined) headers['authorization'] = `Bearer ${apiKey}`;
    let text: string;
    try {
      requestCount++;
      const res = await fetch(url, { method: 'POST', headers, body, redirect: 'error', signal: combined });
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
      if (options.maxContentLength !== undefined) {
        const length = Number(res.headers.get('content-length') ?? '0');
        if (length > options.maxContentLength) {
          await res.body?.cancel();
          throw new EmbedderError('bad_response', `response from ${host} is too large`);
        }
      }
      text = await res.text();
    } catch (e) {
      if (isEmbedderError(e) || e instanceof RetryableFailure) throw e;
      if (signal?.aborted) throw new EmbedderError('aborted', abortedMessage);
      if (timeout.aborted)
        throw new EmbedderError('timeout', `no answer from ${host} within ${timeoutMs} ms`);
      if (isRedirectError(e))
        throw new EmbedderError('egress_refused', `model API redirect refused (from ${host})`);
      const detail = options.reportNetworkCode ? ` (${networkCode(e)})` : '';
      throw new RetryableFailure(new EmbedderError('network_error', `request to ${host} failed${detail}`));
    }
    if (text.length > maxResponseChars)
      throw new EmbedderError('bad_response', `response from ${host} is too large`);
    return text;
  };

  const post = async (body: string, signal?: AbortSignal): Promise<string> => {
    for (let n = 1; ; n++) {
      try {
        return await attempt(body, signal);
      } catch (e) {
        if (!(e instanceof RetryableFailure)) throw e;
        if (n >= maxAttempts) throw e.failure;
        const backoff = retryBaseMs * 2 ** (n - 1);
        const delay =
          options.maxRetryDelayMs === undefined
            ? backoff
            : Math.min(options.maxRetryDelayMs, Math.max(backoff, e.retryAfterMs ?? 0));
        await sleep(delay, abortedMessage, signal);
      }
    }
  };

  return {
    loopback: endpoint.loopback,
    host,
    get requestCount() {
      return requestCount;
    },
    async postJson(body, schema, kind, signal) {
      const text = await post(JSON.stringify(body), signal);
      try {
        return schema.parse(JSON.parse(text));
      } catch {
        throw new EmbedderError('bad_response', `response from ${host} is not ${kind}`);
      }
    },
  };
}
