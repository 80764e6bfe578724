// An OpenAI-compatible chat-completions ChatModel (`POST {base_url}/chat/completions`) under the same
// egress rules as the remote embedder (EGRESS-3..9): HTTPS or loopback HTTP (`checkEndpointUrl`), no
// redirects, bounded retries on connect/read failures, 429 and 502/503/504, the API key only from the
// environment variable named in the config and only in the Authorization header (never in URLs,
// messages or errors). TLS verification cannot be turned off; loopback never uses a proxy, other hosts
// use the configured `proxy` or else follow the proxy environment variables (EGRESS-5). All of that is the shared
// `createEgressJsonClient` (no Retry-After, no wait cap here). The model gets no tools (RAG-24).
import { type ChatModel } from '@arslan/retrieval';
import {
  EmbedderError,
  type TrustedCa,
  checkEndpointUrl,
  createEgressJsonClient,
} from '@arslan/retrieval-node';
import { z } from 'zod';

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
  /** Explicit proxy URL (`[rag] proxy`/`proxy_env`, EGRESS-5); never used for loopback. */
  proxy?: string;
  /** Trusted roots replacing the defaults (a private CA); verification stays on. */
  tlsCa?: TrustedCa;
}

export interface RagChatModel extends ChatModel {
  /** The endpoint's literal host is loopback (EGRESS-11 allows it for device-only vaults). */
  readonly loopback: boolean;
  /** `host/model`, for diagnostics (never the key). */
  readonly id: string;
  readonly requestCount: number;
  /** `scheme://host:port` of the proxy in use (no credentials), or undefined when direct. */
  readonly proxy?: string | undefined;
}

const responseSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional() }) })).min(1),
});

export function createOpenAiChatModel(options: OpenAiChatModelOptions): RagChatModel {
  const endpoint = checkEndpointUrl(options.baseUrl);
  if (!options.model || options.model.length > 200)
    throw new EmbedderError('invalid_config', 'generation model name is required');
  const client = createEgressJsonClient({
    endpoint,
    path: '/chat/completions',
    ...(options.apiKeyEnv !== undefined ? { apiKeyEnv: options.apiKeyEnv } : {}),
    apiKeyEnvLabel: 'api_key_env',
    ...(options.env !== undefined ? { env: options.env } : {}),
    timeoutMs: options.timeoutMs ?? 60_000,
    maxAttempts: options.maxAttempts ?? 3,
    retryBaseMs: options.retryBaseMs ?? 200,
    maxResponseChars: MAX_RESPONSE_CHARS,
    operation: 'generation',
    ...(options.proxy !== undefined ? { proxy: options.proxy } : {}),
    ...(options.tlsCa !== undefined ? { tlsCa: options.tlsCa } : {}),
  });

  return {
    loopback: client.loopback,
    id: `${client.host}/${options.model}`,
    proxy: client.proxy,
    get requestCount() {
      return client.requestCount;
    },
    async complete(messages, { signal }) {
      const body = {
        model: options.model,
        messages: messages.map((m) => ({ role: m.role, content: m.content })),
        response_format: { type: 'json_object' },
        temperature: 0,
      };
      const parsed = await client.postJson(body, responseSchema, 'a chat completion', signal);
      return parsed.choices[0]?.message.content ?? '';
    },
  };
}
