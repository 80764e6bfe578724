// EGRESS-3..9: the shared HTTP client behind the OpenAI-compatible model APIs (remote embedder,
// vault-rag chat model): `POST {endpoint}{path}` with a JSON body, JSON answer.
// - The endpoint comes from `checkEndpointUrl` (HTTPS only; plain HTTP only for a literal loopback
//   host, decided from the URL, never DNS). HTTPS is refused while NODE_TLS_REJECT_UNAUTHORIZED=0;
//   no option to disable TLS verification exists (EGRESS-8); `tlsCa` can only replace the roots.
// - Redirects are refused: node:http never follows them and every 3xx is `egress_refused`.
// - The API key is read only from `env[apiKeyEnv]` and only sent as a Bearer header;
//   it never appears in URLs, arguments or error messages (EGRESS-9).
// - Bounded retries only on connect/read failures, 429 and 502/503/504 (backoff retryBaseMs·2^n;
//   with `maxRetryDelayMs` set, Retry-After is honoured up to that cap). A request may still be
//   billed twice (EGRESS-7). A rejected TLS certificate is not retried.
// - Per-request timeout via AbortSignal, combined with the caller's signal; response size capped.
// - Proxies (EGRESS-5, `proxy.policy.ts`): loopback endpoints never use one; other endpoints use
//   the explicit `proxy` option or the proxy environment variables (http/https CONNECT, socks5,
//   socks5h), unless `no_proxy` matches. The route is chosen once, when the client is created.
//   Proxy credentials never appear in messages (only `scheme://host:port`).
import { type z } from 'zod';
import { EmbedderError, isEmbedderError } from './embedder.errors';
import { type CheckedEndpoint, assertTlsVerificationOn } from './endpoint-url.policy';
import { createEgressTransport, type TrustedCa } from './egress-transport';
import { chooseProxy, describeProxy } from './proxy.policy';

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
  /** Where the key, the proxy variables and NODE_TLS_REJECT_UNAUTHORIZED are read; default `process.env`. */
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
  /** Explicit proxy URL (configuration, never MCP arguments: EGRESS-10); ignored for loopback. */
  proxy?: string;
  /** Trusted root certificates (PEM) replacing the defaults, e.g. a private CA. Verification stays on. */
  tlsCa?: TrustedCa;
}

export interface EgressJsonClient {
  /** The endpoint's literal host is loopback. */
  readonly loopback: boolean;
  /** `host[:port]` of the endpoint, for messages and ids (never the key). */
  readonly host: string;
  /** `scheme://host:port` of the proxy in use (no credentials), or undefined when direct. */
  readonly proxy: string | undefined;
  /** HTTP requests sent so far, retries included (diagnostics, tests). */
  readonly requestCount: number;
  /**
   * POSTs `body` as JSON (with retries) and parses the answer with `schema`; a non-JSON or
   * non-matching answer is `bad_response`: `response from {host} is not {kind}`.
   */
  postJson<T>(body: unknown, schema: z.ZodType<T>, kind: string, signal?: AbortSignal): Promise<T>;
  /** Releases pooled proxy connections. */
  close(): void;
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
  return errorCode(e) ?? 'network failure';
}

function errorCode(e: unknown): string | undefined {
  const own = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  const code = typeof own === 'string' ? own : causeOf(e)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{2,60}$/.test(code) ? code : undefined;
}

/** Node/OpenSSL certificate verification failures: never transient, never retried. */
function isCertificateError(code: string | undefined): boolean {
  return (
    code !== undefined &&
    /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS_CERT_ALTNAME|HOSTNAME_MISMATCH/.test(code)
  );
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

  const route = endpoint.loopback
    ? undefined
    : chooseProxy(endpoint.url, { env, ...(options.proxy !== undefined ? { proxy: options.proxy } : {}) });
  const via = route ? ` via proxy ${describeProxy(route.url)}` : '';
  const transport = createEgressTransport(route, options.tlsCa);
  // UTF-8 needs at most 3 bytes per UTF-16 unit: stop reading well before decoding a huge body.
  const maxBytes = Math.min(options.maxContentLength ?? Number.MAX_SAFE_INTEGER, maxResponseChars * 3);

  const attempt = async (body: string, signal?: AbortSignal): Promise<string> => {
    assertTlsVerificationOn(endpoint, env);
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (apiKey !== undefined) headers['authorization'] = `Bearer ${apiKey}`;
    let text: string | undefined;
    try {
      requestCount++;
      const res = await transport.send(url, { method: 'POST', headers, body, signal: combined, maxBytes });
      if (res.status >= 300 && res.status < 400) {
        throw new EmbedderError(
          'egress_refused',
          `model API redirect refused (HTTP ${res.status} from ${host})`,
        );
      }
      if (res.status < 200 || res.status >= 300) {
        const failure = new EmbedderError('http_error', `HTTP ${res.status} from ${host}${via}`, res.status);
        if (RETRYABLE_STATUSES.has(res.status)) {
          const retryAfter = res.headers['retry-after'];
          throw new RetryableFailure(
            failure,
            parseRetryAfter(typeof retryAfter === 'string' ? retryAfter : null),
          );
        }
        throw failure;
      }
      text = res.text;
    } catch (e) {
      if (isEmbedderError(e) || e instanceof RetryableFailure) throw e;
      if (signal?.aborted) throw new EmbedderError('aborted', abortedMessage);
      if (timeout.aborted)
        throw new EmbedderError('timeout', `no answer from ${host}${via} within ${timeoutMs} ms`);
      const code = errorCode(e);
      if (isCertificateError(code)) {
        // EGRESS-8: a certificate that doesn't verify for the endpoint host (e.g. an intercepting
        // proxy) is refused, not retried.
        throw new EmbedderError('egress_refused', `TLS certificate for ${host}${via} was rejected (${code})`);
      }
      const detail = options.reportNetworkCode ? ` (${networkCode(e)})` : '';
      throw new RetryableFailure(
        new EmbedderError('network_error', `request to ${host}${via} failed${detail}`),
      );
    }
    if (text === undefined || text.length > maxResponseChars)
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
    proxy: route ? describeProxy(route.url) : undefined,
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
    close() {
      transport.close();
    },
  };
}
