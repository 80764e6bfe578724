// The turn model's own provider search (WEB-01/02): Anthropic's server-side web_search tool, Gemini's
// google_search grounding, OpenAI's Responses web_search. Only on the provider's own API endpoint
// (a proxy or local server does not offer it); a local model never gets one (WEB-02). Requests go to
// the endpoint configured for the turn's model and nowhere else (PROV-06), with TLS verified by
// fetch's default agent (WEB-10; nothing here relaxes it).
import { z } from 'zod';
import type { ToolContext } from '../ports/tool.port';
import type { SearchHit } from './web-search-types';

export type ProviderSearchKind = 'anthropic' | 'gemini' | 'openai';

/** What the runtime knows about the turn's model (the same config its requests use). */
export interface TurnModelConfig {
  provider: 'anthropic' | 'gemini' | 'openai-compatible';
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** The user marked this model local (a local server); never searched through a provider. */
  local?: boolean;
}

export interface ProviderSearchTarget {
  kind: ProviderSearchKind;
  baseUrl: string;
  model: string;
  apiKey?: string;
}

/** Each provider's own API host: only there is its native search offered. */
const OWN_HOSTS: Readonly<Record<TurnModelConfig['provider'], { host: string; kind: ProviderSearchKind }>> = {
  anthropic: { host: 'api.anthropic.com', kind: 'anthropic' },
  gemini: { host: 'generativelanguage.googleapis.com', kind: 'gemini' },
  'openai-compatible': { host: 'api.openai.com', kind: 'openai' },
};

function isLocalHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    h.endsWith('.local') ||
    !h.includes('.') ||
    /^127\./.test(h) ||
    /^10\./.test(h) ||
    /^192\.168\./.test(h) ||
    /^172\.(1[6-9]|2\d|3[01])\./.test(h) ||
    h === '::1' ||
    /^f[cd][0-9a-f]{2}:/.test(h)
  );
}

/**
 * WEB-01/02: the provider search for this turn's model, or null when there is none: a local model,
 * a local endpoint, or an endpoint that is not the provider's own API (proxies, OpenRouter, …).
 */
export function providerSearchTarget(model: TurnModelConfig): ProviderSearchTarget | null {
  if (model.local) return null;
  let url: URL;
  try {
    url = new URL(model.baseUrl);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || isLocalHost(url.hostname)) return null;
  const own = OWN_HOSTS[model.provider];
  if (url.hostname.toLowerCase() !== own.host) return null;
  return { kind: own.kind, baseUrl: model.baseUrl, model: model.model, apiKey: model.apiKey };
}

/**
 * The `providerSearch` option for the web tools: the search of the turn's own model, found from the
 * tool context (the loop fills `turnModel`), with the key the caller holds for that endpoint.
 */
export function providerSearchForTurn(
  apiKeyFor: (provider: string, origin: string) => string | undefined,
): (ctx: ToolContext) => ProviderSearchTarget | null {
  return (ctx) => {
    const turn = ctx.turnModel;
    if (!turn?.origin) return null;
    const provider = turn.provider;
    if (provider !== 'anthropic' && provider !== 'gemini' && provider !== 'openai-compatible') return null;
    const baseUrl = provider === 'openai-compatible' ? `${turn.origin}/v1` : turn.origin;
    return providerSearchTarget({
      provider,
      baseUrl,
      model: turn.model,
      apiKey: apiKeyFor(provider, turn.origin),
    });
  };
}

/** A configured model's endpoint and key, as the daemon and the CLI hold them. */
export interface ConfiguredEndpoint {
  kind: string;
  baseUrl: string;
  apiKey?: string;
}

/**
 * The web tools' `providerSearch` over configured models: a key is handed only to the endpoint it
 * is configured for (same provider kind and same origin), never to another host (PROV-06, ARCH-11).
 */
export function providerSearchFromModels(
  models: readonly ConfiguredEndpoint[],
): (ctx: ToolContext) => ProviderSearchTarget | null {
  const originOf = (url: string): string | null => {
    try {
      return new URL(url).origin;
    } catch {
      return null;
    }
  };
  return providerSearchForTurn(
    (provider, origin) => models.find((m) => m.kind === provider && originOf(m.baseUrl) === origin)?.apiKey,
  );
}

export class ProviderSearchError extends Error {
  constructor(
    message: string,
    readonly blocked: boolean,
  ) {
    super(message);
    this.name = 'ProviderSearchError';
  }
}

const anthropicResponse = z.object({
  content: z.array(
    z.object({
      type: z.string(),
      text: z.string().optional(),
      citations: z
        .array(z.object({ url: z.string().optional(), cited_text: z.string().optional() }))
        .nullish(),
      content: z
        .union([
          z.array(z.object({ type: z.string(), url: z.string().optional(), title: z.string().optional() })),
          z.object({ type: z.string(), error_code: z.string().optional() }),
        ])
        .optional(),
    }),
  ),
});

const geminiResponse = z.object({
  candidates: z
    .array(
      z.object({
        groundingMetadata: z
          .object({
            groundingChunks: z
              .array(
                z.object({ web: z.object({ uri: z.string(), title: z.string().optional() }).optional() }),
              )
              .optional(),
            groundingSupports: z
              .array(
                z.object({
                  segment: z.object({ text: z.string().optional() }).optional(),
                  groundingChunkIndices: z.array(z.number()).optional(),
                }),
              )
              .optional(),
          })
          .optional(),
      }),
    )
    .optional(),
});

const openaiResponse = z.object({
  output: z.array(
    z.object({
      type: z.string(),
      content: z
        .array(
          z.object({
            type: z.string(),
            text: z.string().optional(),
            annotations: z
              .array(
                z.object({
                  type: z.string(),
                  url: z.string().optional(),
                  title: z.string().optional(),
                  start_index: z.number().optional(),
                  end_index: z.number().optional(),
                }),
              )
              .optional(),
          }),
        )
        .optional(),
    }),
  ),
});

function trimBase(base: string): string {
  return base.replace(/\/+$/, '');
}

function buildRequest(
  t: ProviderSearchTarget,
  query: string,
): { url: string; headers: Record<string, string>; body: unknown } {
  const prompt = `Search the web for: ${query}\nList the sources you found.`;
  if (t.kind === 'anthropic') {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
    };
    if (t.apiKey) headers['x-api-key'] = t.apiKey;
    return {
      url: `${trimBase(t.baseUrl)}/v1/messages`,
      headers,
      body: {
        model: t.model,
        max_tokens: 1024,
        messages: [{ role: 'user', content: prompt }],
        tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 1 }],
      },
    };
  }
  if (t.kind === 'gemini') {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (t.apiKey) headers['x-goog-api-key'] = t.apiKey;
    return {
      url: `${trimBase(t.baseUrl)}/v1beta/models/${encodeURIComponent(t.model)}:generateContent`,
      headers,
      body: { contents: [{ role: 'user', parts: [{ text: prompt }] }], tools: [{ google_search: {} }] },
    };
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (t.apiKey) headers.authorization = `Bearer ${t.apiKey}`;
  return {
    url: `${trimBase(t.baseUrl)}/responses`,
    headers,
    body: { model: t.model, input: prompt, tools: [{ type: 'web_search' }] },
  };
}

function parseHits(kind: ProviderSearchKind, json: unknown): SearchHit[] {
  if (kind === 'anthropic') {
    const r = anthropicResponse.parse(json);
    const snippets = new Map<string, string>();
    for (const block of r.content)
      for (const c of block.citations ?? []) if (c.url && c.cited_text) snippets.set(c.url, c.cited_text);
    const hits: SearchHit[] = [];
    for (const block of r.content) {
      if (block.type !== 'web_search_tool_result' || !block.content) continue;
      if (!Array.isArray(block.content))
        throw new ProviderSearchError(
          `the provider's search failed (${block.content.error_code ?? 'unknown error'})`,
          false,
        );
      for (const item of block.content)
        if (item.type === 'web_search_result' && item.url)
          hits.push({ title: item.title ?? '', url: item.url, snippet: snippets.get(item.url) ?? '' });
    }
    return hits;
  }
  if (kind === 'gemini') {
    const meta = geminiResponse.parse(json).candidates?.[0]?.groundingMetadata;
    const chunks = meta?.groundingChunks ?? [];
    const snippets = new Map<number, string>();
    for (const s of meta?.groundingSupports ?? [])
      for (const i of s.groundingChunkIndices ?? [])
        if (s.segment?.text && !snippets.has(i)) snippets.set(i, s.segment.text);
    return chunks.flatMap((c, i) =>
      c.web ? [{ title: c.web.title ?? '', url: c.web.uri, snippet: snippets.get(i) ?? '' }] : [],
    );
  }
  const hits: SearchHit[] = [];
  for (const item of openaiResponse.parse(json).output) {
    for (const part of item.content ?? []) {
      for (const a of part.annotations ?? []) {
        if (a.type !== 'url_citation' || !a.url || hits.some((h) => h.url === a.url)) continue;
        const snippet =
          part.text && a.start_index !== undefined && a.end_index !== undefined
            ? part.text.slice(a.start_index, a.end_index)
            : '';
        hits.push({ title: a.title ?? '', url: a.url, snippet });
      }
    }
  }
  return hits;
}

/** Runs one search through the provider's own API. Errors never carry the API key. */
export async function runProviderSearch(
  target: ProviderSearchTarget,
  query: string,
  limit: number,
  signal: AbortSignal,
  timeoutMs = 60_000,
): Promise<SearchHit[]> {
  const req = buildRequest(target, query);
  let res: Response;
  try {
    res = await fetch(req.url, {
      method: 'POST',
      headers: req.headers,
      body: JSON.stringify(req.body),
      // A redirect would carry the key header (x-api-key, x-goog-api-key) to another host: refuse.
      redirect: 'error',
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    });
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    throw new ProviderSearchError(
      name === 'TimeoutError' || name === 'AbortError'
        ? 'the request timed out or was cancelled'
        : 'the request failed',
      false,
    );
  }
  const text = await res.text();
  if (res.status === 401 || res.status === 403)
    throw new ProviderSearchError(`the provider refused the search (HTTP ${res.status})`, true);
  if (res.status === 429)
    throw new ProviderSearchError('the provider rate-limited the search (HTTP 429)', true);
  if (!res.ok) throw new ProviderSearchError(`the provider's search failed (HTTP ${res.status})`, false);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ProviderSearchError('the provider sent a response that is not JSON', false);
  }
  try {
    return parseHits(target.kind, json).slice(0, limit);
  } catch (error) {
    if (error instanceof ProviderSearchError) throw error;
    throw new ProviderSearchError('the provider sent a response of an unexpected shape', false);
  }
}
