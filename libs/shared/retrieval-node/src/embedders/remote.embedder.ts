// EGRESS-3..9: an OpenAI-compatible remote embedder (`POST {baseUrl}/embeddings`). The egress rules
// (HTTPS or loopback HTTP, no redirects, key only from the env var as a Bearer header, bounded
// retries on connect/read failures, 429 and 502/503/504 with backoff 200 ms·2^n and Retry-After
// honoured up to a cap, per-request timeout, no way to disable TLS verification, no proxy for
// loopback, HTTP(S)/SOCKS proxies from the config or environment otherwise) live in the shared
// client, `egress-json-client.ts`. A request may still be billed twice (EGRESS-7).
import { type Embedder } from '@arslan/retrieval';
import { z } from 'zod';
import { createEgressJsonClient } from './egress-json-client';
import { type TrustedCa } from './egress-transport';
import { EmbedderError } from './embedder.errors';
import { checkEndpointUrl } from './endpoint-url.policy';
import { l2Normalise } from './vector-math';

export { RETRYABLE_STATUSES } from './egress-json-client';
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
  /** Explicit proxy URL (EGRESS-5); default: the proxy environment variables. Never for loopback. */
  proxy?: string;
  /** Trusted root certificates replacing the defaults (a private CA); verification stays on. */
  tlsCa?: TrustedCa;
  /** Where the key and proxy variables are read; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
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

export function createRemoteEmbedder(options: RemoteEmbedderOptions): RemoteEmbedder {
  const endpoint = checkEndpointUrl(options.baseUrl);
  if (!options.model || options.model.length > 200)
    throw new EmbedderError('invalid_config', 'model name is required');
  if (!Number.isInteger(options.dimensions) || options.dimensions <= 0) {
    throw new EmbedderError('invalid_config', 'dimensions must be a positive integer');
  }
  const client = createEgressJsonClient({
    endpoint,
    path: '/embeddings',
    ...(options.apiKeyEnv !== undefined ? { apiKeyEnv: options.apiKeyEnv } : {}),
    timeoutMs: options.timeoutMs ?? 30_000,
    maxAttempts: options.maxAttempts ?? 3,
    retryBaseMs: options.retryBaseMs ?? 200,
    maxRetryDelayMs: options.maxRetryDelayMs ?? 10_000,
    maxResponseChars: MAX_RESPONSE_BYTES,
    maxContentLength: MAX_RESPONSE_BYTES,
    operation: 'embedding',
    reportNetworkCode: true,
    ...(options.proxy !== undefined ? { proxy: options.proxy } : {}),
    ...(options.tlsCa !== undefined ? { tlsCa: options.tlsCa } : {}),
    ...(options.env !== undefined ? { env: options.env } : {}),
  });
  const host = client.host;
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 64));
  let closed = false;

  const request = async (input: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> => {
    const parsed = await client.postJson(
      { model: options.model, input },
      responseSchema,
      'an embeddings list',
      signal,
    );
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

  return {
    id: `remote:${host}/${options.model}`,
    dimensions: options.dimensions,
    local: client.loopback,
    get requestCount() {
      return client.requestCount;
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
      client.close();
    },
  };
}
