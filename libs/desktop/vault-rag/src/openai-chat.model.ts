// An OpenAI-compatible chat-completions ChatModel (`POST {base_url}/chat/completions`) under the same
// egress rules as the remote embedder (EGRESS-3..9): HTTPS or loopback HTTP (`checkEndpointUrl`), no
// redirects, bounded retries on connect/read failures, 429 and 502/503/504, the API key only from the
// environment variable named in the config and only in the Authorization header (never in URLs,
// messages or errors). TLS verification cannot be turned off. The model gets no tools (RAG-24).
import { type ChatMessage, type ChatModel } from '@arslan/retrieval';
import { EmbedderError, checkEndpointUrl, isEmbedderError } from '@arslan/retrieval-node';
import { z } from 'zod';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const HEADER_SAFE = /^[\x21-\x7e]+$/;
const RETRYABLE = new Set([429, 502, 503, 504]);
const MAX_RESPONSE_CHARS = 4 * 1024 * 1024;

export interface OpenAiChatModelOptions {
  baseUrl: string;
  model: string;
  apiKeyEnv?: string;
  /** Per attempt; default 60 s. */
  timeoutMs?: number;
  /** 1..5, default 3. */
  maxAttempts?: number;
  /** Default 200 ms, doubling. */
  retryBaseMs?: number;
  env?: Readonly<Record<string, string | undefined>>;
}

export interface RagChatModel extends ChatModel {
  /** The endpoint's literal host is loopback (EGRESS-11 allows it for device-only vaults). */
  readonly loopback: boolean;
  /** `host/model`, for diagnostics (never the key). */
  readonly id: string;
  readonly requestCount: number;
}

const responseSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional() }) })).min(1),
});

class Retryable extends Error {
  constructor(readonly failure: EmbedderError) {
    super(failure.message);
  }
}

export function createOpenAiChatModel(options: OpenAiChatModelOptions): RagChatModel {
  const endpoint = checkEndpointUrl(options.baseUrl);
  if (!options.model || options.model.length > 200)
    throw new EmbedderError('invalid_config', 'generation model name is required');
  const env = options.env ?? process.env;
  let apiKey: string | undefined;
  if (options.apiKeyEnv !== undefined) {
    if (!ENV_NAME.test(options.apiKeyEnv))
      throw new EmbedderError('invalid_config', 'api_key_env must be an environment variable name');
    apiKey = env[options.apiKeyEnv];
    if (!apiKey)
      throw new EmbedderError('invalid_config', `environment variable ${options.apiKeyEnv} is not set`);
    if (!HEADER_SAFE.test(apiKey))
      throw new EmbedderError(
        'invalid_config',
        `environment variable ${options.apiKeyEnv} is not a valid API key`,
      );
  }
  const url = new URL(endpoint.url.href.replace(/\/+$/, '') + '/chat/completions');
  const host = endpoint.url.host;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const maxAttempts = Math.min(5, Math.max(1, Math.floor(options.maxAttempts ?? 3)));
  const retryBaseMs = options.retryBaseMs ?? 200;
  let requestCount = 0;

  const attempt = async (messages: readonly ChatMessage[], signal?: AbortSignal): Promise<string> => {
    if (endpoint.url.protocol === 'https:' && env['NODE_TLS_REJECT_UNAUTHORIZED'] === '0')
      throw new EmbedderError('egress_refused', 'TLS certificate verification is disabled in this process');
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
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          model: options.model,
          messages: messages.map((m) => ({ role: m.role, content: m.content })),
          response_format: { type: 'json_object' },
          temperature: 0,
        }),
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
        if (RETRYABLE.has(res.status)) throw new Retryable(failure);
        throw failure;
      }
      text = await res.text();
    } catch (e) {
      if (isEmbedderError(e) || e instanceof Retryable) throw e;
      if (signal?.aborted) throw new EmbedderError('aborted', 'generation was aborted');
      if (timeout.aborted)
        throw new EmbedderError('timeout', `no answer from ${host} within ${timeoutMs} ms`);
      const cause = (e as { cause?: { message?: unknown } } | null)?.cause;
      if (typeof cause?.message === 'string' && /redirect/i.test(cause.message))
        throw new EmbedderError('egress_refused', `model API redirect refused (from ${host})`);
      throw new Retryable(new EmbedderError('network_error', `request to ${host} failed`));
    }
    if (text.length > MAX_RESPONSE_CHARS)
      throw new EmbedderError('bad_response', `response from ${host} is too large`);
    let parsed: z.infer<typeof responseSchema>;
    try {
      parsed = responseSchema.parse(JSON.parse(text));
    } catch {
      throw new EmbedderError('bad_response', `response from ${host} is not a chat completion`);
    }
    return parsed.choices[0]?.message.content ?? '';
  };

  return {
    loopback: endpoint.loopback,
    id: `${host}/${options.model}`,
    get requestCount() {
      return requestCount;
    },
    async complete(messages, { signal }) {
      for (let n = 1; ; n++) {
        try {
          return await attempt(messages, signal);
        } catch (e) {
          if (!(e instanceof Retryable)) throw e;
          if (n >= maxAttempts) throw e.failure;
          await sleep(retryBaseMs * 2 ** (n - 1), signal);
        }
      }
    },
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new EmbedderError('aborted', 'generation was aborted'));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new EmbedderError('aborted', 'generation was aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
