import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolContext } from '../ports/tool.port';
import { type EgressOptions, EgressRefusal, guardedFetch, type Resolver } from './egress';
import {
  providerSearchForTurn,
  providerSearchFromModels,
  type ProviderSearchTarget,
  providerSearchTarget,
} from './web-provider-search';
import { createWebSearchTool, type WebToolsOptions } from './web-tools';
import { FakeProvider, calls, fakeTool, makeService, reply } from '../loop/test-fakes';

jest.setTimeout(20_000);

const ctx: ToolContext = {
  workspace: '/nonexistent',
  dataDir: '/nonexistent',
  runId: 'r',
  callId: 'c',
  turn: { externalContentRead: false },
  signal: new AbortController().signal,
  remainingMs: 60_000,
  attended: true,
};

const DDG_HTML =
  '<div class="result"><a class="result__a" href="https://ddg.example/hit">DDG hit</a>' +
  '<a class="result__snippet">from ddg</a></div>';

/** Every request any fake server saw, in order: `<server> <method> <path>`. */
const seen: string[] = [];
let providerHandler: (path: string, body: unknown, res: http.ServerResponse) => void;
let searxStatus = 200;

let provider: http.Server; // the scripted provider API (plain HTTP, local)
let secure: https.Server; // stands in for html.duckduckgo.com and a SearXNG host (real TLS)
let providerPort: number;
let securePort: number;
let certDir: string;
let ca: string;

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let data = '';
    req.on('data', (c: Buffer) => (data += c.toString('utf8')));
    req.on('end', () => resolve(data));
  });
}

beforeAll(async () => {
  certDir = mkdtempSync(join(tmpdir(), 'web-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(certDir, 'key.pem'),
      '-out',
      join(certDir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=arslan-test',
      '-addext',
      'subjectAltName=DNS:html.duckduckgo.com,DNS:searx.example.test',
    ],
    { stdio: 'ignore' },
  );
  ca = readFileSync(join(certDir, 'cert.pem'), 'utf8');
  provider = http.createServer((req, res) => {
    void readBody(req).then((raw) => {
      seen.push(`provider ${req.method} ${req.url}`);
      providerHandler(req.url ?? '', raw ? JSON.parse(raw) : null, res);
    });
  });
  secure = https.createServer({ key: readFileSync(join(certDir, 'key.pem')), cert: ca }, (req, res) => {
    void readBody(req).then(() => {
      const host = String(req.headers.host);
      seen.push(`${host} ${req.method} ${req.url}`);
      if (host.startsWith('searx')) {
        res.writeHead(searxStatus, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ results: [{ title: 'S', url: 'https://searx.example/r', content: 'sx' }] }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(DDG_HTML);
    });
  });
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
  await new Promise<void>((r) => secure.listen(0, '127.0.0.1', r));
  providerPort = (provider.address() as AddressInfo).port;
  securePort = (secure.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((r) => provider.close(r));
  await new Promise((r) => secure.close(r));
  rmSync(certDir, { recursive: true, force: true });
});

beforeEach(() => {
  seen.length = 0;
  searxStatus = 200;
});

const publicNames: Resolver = async (name) => {
  if (['html.duckduckgo.com', 'searx.example.test', 'other.example.test'].includes(name))
    return [{ address: '93.184.216.34', family: 4 }];
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

/** Test wiring: public-looking names, every accepted connection dialled to the local TLS server. */
function egress(extra: Partial<EgressOptions> = {}): EgressOptions {
  return { resolve: publicNames, dial: () => ({ address: '127.0.0.1', port: securePort }), ca, ...extra };
}

function target(kind: ProviderSearchTarget['kind']): ProviderSearchTarget {
  return {
    kind,
    baseUrl: `http://127.0.0.1:${providerPort}${kind === 'openai' ? '/v1' : ''}`,
    model: 'm',
    apiKey: 'sk-secret-key',
  };
}

async function search(options: WebToolsOptions, query = 'cats') {
  return createWebSearchTool(options).execute({ query, max_results: 5 }, ctx);
}

describe('provider search selection (WEB-01/02, PROV-06)', () => {
  it("WEB-01: offered only on the provider's own API", () => {
    expect(
      providerSearchTarget({ provider: 'anthropic', baseUrl: 'https://api.anthropic.com', model: 'claude' }),
    ).toMatchObject({ kind: 'anthropic', baseUrl: 'https://api.anthropic.com' });
    expect(
      providerSearchTarget({
        provider: 'gemini',
        baseUrl: 'https://generativelanguage.googleapis.com',
        model: 'gemini-2.5-pro',
      }),
    ).toMatchObject({ kind: 'gemini' });
    expect(
      providerSearchTarget({
        provider: 'openai-compatible',
        baseUrl: 'https://api.openai.com/v1',
        model: 'gpt',
      }),
    ).toMatchObject({ kind: 'openai' });
    // An OpenAI-compatible proxy (e.g. OpenRouter) is not OpenAI's own search.
    expect(
      providerSearchTarget({
        provider: 'openai-compatible',
        baseUrl: 'https://openrouter.ai/api/v1',
        model: 'x',
      }),
    ).toBeNull();
    expect(
      providerSearchTarget({ provider: 'anthropic', baseUrl: 'http://api.anthropic.com', model: 'claude' }),
    ).toBeNull();
  });

  it('WEB-02: a local model never gets a provider search', () => {
    for (const baseUrl of [
      'http://127.0.0.1:11434/v1',
      'http://localhost:1234/v1',
      'https://mac-studio.local/v1',
      'https://192.168.1.20/v1',
    ])
      expect(providerSearchTarget({ provider: 'openai-compatible', baseUrl, model: 'llama' })).toBeNull();
    // Marked local by the user: never, even on a provider-looking host.
    expect(
      providerSearchTarget({
        provider: 'openai-compatible',
        baseUrl: 'https://api.openai.com/v1',
        model: 'x',
        local: true,
      }),
    ).toBeNull();
  });
});

describe('provider search from the turn context (WEB-01/02)', () => {
  const pick = providerSearchForTurn((provider) => `key-for-${provider}`);
  const at = (provider: string, origin: string | undefined) =>
    pick({ ...ctx, turnModel: { provider, origin, model: 'mdl' } });

  it("WEB-01: the turn's own model and endpoint choose the search", () => {
    expect(at('anthropic', 'https://api.anthropic.com')).toEqual({
      kind: 'anthropic',
      baseUrl: 'https://api.anthropic.com',
      model: 'mdl',
      apiKey: 'key-for-anthropic',
    });
    expect(at('openai-compatible', 'https://api.openai.com')).toMatchObject({
      kind: 'openai',
      baseUrl: 'https://api.openai.com/v1',
    });
  });

  it('WEB-02: a turn on a local model (or with no known endpoint) gets none', () => {
    expect(at('openai-compatible', 'http://127.0.0.1:11434')).toBeNull();
    expect(at('anthropic', undefined)).toBeNull();
    expect(pick(ctx)).toBeNull();
  });
});

describe('provider search over configured models (PROV-06, ARCH-11)', () => {
  const pick = providerSearchFromModels([
    { kind: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKey: 'anthropic-key' },
    { kind: 'openai-compatible', baseUrl: 'https://proxy.example.com/v1', apiKey: 'proxy-key' },
  ]);
  const at = (provider: string, origin: string) =>
    pick({ ...ctx, turnModel: { provider, origin, model: 'mdl' } });

  it('PROV-06: a key goes only to the endpoint it is configured for (same kind, same origin)', () => {
    expect(at('anthropic', 'https://api.anthropic.com')?.apiKey).toBe('anthropic-key');
    // api.openai.com is not a configured endpoint: its search gets no key, never the proxy's.
    expect(at('openai-compatible', 'https://api.openai.com')).toMatchObject({ kind: 'openai' });
    expect(at('openai-compatible', 'https://api.openai.com')?.apiKey).toBeUndefined();
    // The configured proxy is not the provider's own API: no provider search at all (WEB-01).
    expect(at('openai-compatible', 'https://proxy.example.com')).toBeNull();
  });
});

describe('WEB-01/02: the loop tells tools which model the turn runs on', () => {
  it('WEB-01/02: ctx.turnModel carries the provider kind, its endpoint origin and the model', async () => {
    const seenTurns: unknown[] = [];
    const probe = fakeTool('web_search', {
      execute: (_a, c) => {
        seenTurns.push(c.turnModel);
        return { content: 'none' };
      },
    });
    const provider = Object.assign(new FakeProvider([calls(['w1', 'web_search', {}]), reply('ok')]), {
      origin: 'http://127.0.0.1:11434',
    });
    const { service } = makeService([probe]);
    await service.startRun({ workspace: '/tmp', model: 'llama3', attended: true, message: 'x', provider })
      .result;
    expect(seenTurns).toEqual([{ provider: 'fake', origin: 'http://127.0.0.1:11434', model: 'llama3' }]);
  });
});

describe('web_search order (WEB-01/03/04)', () => {
  it("WEB-01/PROV-06: Anthropic's server-side web search first; nothing else is asked", async () => {
    let sent: Record<string, unknown> | undefined;
    providerHandler = (path, body, res) => {
      sent = body as Record<string, unknown>;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          content: [
            { type: 'server_tool_use', id: 'srv_1', name: 'web_search', input: { query: 'cats' } },
            {
              type: 'web_search_tool_result',
              tool_use_id: 'srv_1',
              content: [
                {
                  type: 'web_search_result',
                  url: 'https://cats.example/a',
                  title: 'Cats A',
                  encrypted_content: 'x',
                },
                {
                  type: 'web_search_result',
                  url: 'https://cats.example/b',
                  title: 'Cats B',
                  encrypted_content: 'y',
                },
              ],
            },
            {
              type: 'text',
              text: 'Cats.',
              citations: [{ url: 'https://cats.example/a', cited_text: 'cats purr' }],
            },
          ],
        }),
      );
    };
    const r = await search({ providerSearch: () => target('anthropic'), egress: egress() });
    expect(r.isError).toBeUndefined();
    expect(r.content).toContain('via anthropic search');
    expect(r.content).toContain('Source: https://cats.example/a');
    expect(r.content).toContain('cats purr');
    expect(seen).toEqual(['provider POST /v1/messages']);
    expect(sent?.tools).toEqual([{ type: 'web_search_20250305', name: 'web_search', max_uses: 1 }]);
  });

  it('WEB-01: Gemini google_search grounding and OpenAI web_search over their wire formats', async () => {
    providerHandler = (path, body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (path.includes(':generateContent')) {
        expect((body as { tools: unknown }).tools).toEqual([{ google_search: {} }]);
        res.end(
          JSON.stringify({
            candidates: [
              {
                content: { parts: [{ text: 'Cats.' }] },
                groundingMetadata: {
                  groundingChunks: [{ web: { uri: 'https://g.example/1', title: 'G1' } }],
                  groundingSupports: [{ segment: { text: 'grounded' }, groundingChunkIndices: [0] }],
                },
              },
            ],
          }),
        );
        return;
      }
      expect((body as { tools: unknown }).tools).toEqual([{ type: 'web_search' }]);
      const text = 'Cats purr loudly.';
      res.end(
        JSON.stringify({
          output: [
            { type: 'web_search_call', id: 'ws_1', status: 'completed' },
            {
              type: 'message',
              content: [
                {
                  type: 'output_text',
                  text,
                  annotations: [
                    {
                      type: 'url_citation',
                      url: 'https://o.example/1',
                      title: 'O1',
                      start_index: 0,
                      end_index: 9,
                    },
                  ],
                },
              ],
            },
          ],
        }),
      );
    };
    const g = await search({ providerSearch: () => target('gemini'), egress: egress() });
    expect(g.content).toContain('via gemini search');
    expect(g.content).toContain('Source: https://g.example/1');
    expect(g.content).toContain('grounded');
    const o = await search({ providerSearch: () => target('openai'), egress: egress() });
    expect(o.content).toContain('via openai search');
    expect(o.content).toContain('Source: https://o.example/1');
    expect(o.content).toContain('Cats purr');
    expect(seen).toEqual(['provider POST /v1beta/models/m:generateContent', 'provider POST /v1/responses']);
  });

  it('WEB-03/04: provider search fails → configured engine next → DuckDuckGo last', async () => {
    providerHandler = (_path, _body, res) => {
      res.writeHead(500);
      res.end('{}');
    };
    searxStatus = 503;
    const r = await search({
      providerSearch: () => target('anthropic'),
      engines: [{ kind: 'searxng', baseUrl: 'https://searx.example.test/' }],
      egress: egress(),
    });
    expect(r.content).toContain('via duckduckgo');
    expect(r.content).toContain('Source: https://ddg.example/hit');
    expect(seen).toEqual([
      'provider POST /v1/messages',
      'searx.example.test GET /search?q=cats&format=json',
      'html.duckduckgo.com POST /html/',
    ]);
  });

  it('WEB-04: a deliberate choice (only the configured engine) never falls back to DuckDuckGo', async () => {
    searxStatus = 503;
    const r = await search({
      engines: [{ kind: 'searxng', baseUrl: 'https://searx.example.test/' }],
      only: true,
      egress: egress(),
    });
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/NOT an empty result/);
    expect(seen).toEqual(['searx.example.test GET /search?q=cats&format=json']);
  });

  it('WEB-02: a conversation on a local model never sends its query to a provider search', async () => {
    providerHandler = (_p, _b, res) => {
      res.writeHead(200);
      res.end('{"content":[]}');
    };
    const localModel = {
      provider: 'openai-compatible' as const,
      baseUrl: `http://127.0.0.1:${providerPort}/v1`,
      model: 'llama',
    };
    const r = await search(
      { providerSearch: () => providerSearchTarget(localModel), egress: egress() },
      'secret plans',
    );
    expect(r.content).toContain('via duckduckgo');
    expect(seen.some((s) => s.startsWith('provider'))).toBe(false);
  });

  it('PROV-06: provider-search errors name neither the key nor another destination', async () => {
    providerHandler = (_p, _b, res) => {
      res.writeHead(401);
      res.end('{"error":"bad key sk-secret-key"}');
    };
    const r = await search({ providerSearch: () => target('anthropic'), egress: egress() });
    expect(r.content).not.toContain('sk-secret-key');
    expect(seen[0]).toBe('provider POST /v1/messages');
  });
});

describe('WEB-10: TLS is verified against the real requested hostname', () => {
  it('accepts a certificate for the requested name (connection dialled to another address)', async () => {
    const res = await guardedFetch('https://searx.example.test/search?q=x&format=json', {}, egress());
    expect(res.status).toBe(200);
  });

  it('refuses a certificate that does not name the requested host, even at the same address', async () => {
    await expect(guardedFetch('https://other.example.test/', {}, egress())).rejects.toBeInstanceOf(
      EgressRefusal,
    );
    await expect(guardedFetch('https://other.example.test/', {}, egress())).rejects.toThrow(
      /altnames|hostname|Host/i,
    );
  });

  it('refuses an untrusted (self-signed) certificate: verification is never switched off', async () => {
    const { ca: _ca, ...untrusted } = egress();
    await expect(guardedFetch('https://searx.example.test/', {}, untrusted)).rejects.toThrow(
      /self[- ]signed|unable to verify|certificate/i,
    );
  });
});
