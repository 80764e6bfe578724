import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ToolContext } from '../ports/tool.port';
import {
  checkUrl,
  classifyAddress,
  type EgressOptions,
  EgressRefusal,
  guardedFetch,
  type Resolver,
} from './egress';
import { createWebExtractTool, createWebSearchTool } from './web-tools';

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

const table: Record<string, string[]> = {
  'example.test': ['93.184.216.34'],
  'search.example.test': ['93.184.216.34'],
  'private.example.test': ['10.0.0.5'],
  'mixed.example.test': ['93.184.216.34', '192.168.1.1'],
  'v6private.example.test': ['fd00::1'],
  'fake.example.test': ['198.18.0.7', '198.19.255.1'],
  'halffake.example.test': ['198.18.0.7', '93.184.216.34'],
};
const resolver: Resolver = async (name) => {
  const list = table[name];
  if (!list) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

let server: http.Server;
let port: number;
let handler: (req: http.IncomingMessage, res: http.ServerResponse) => void;

beforeAll(async () => {
  server = http.createServer((req, res) => handler(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});

/** Test-only wiring: fake public names, and a dialer that sends accepted connections to the local server. */
function testEgress(): EgressOptions {
  return { resolve: resolver, dial: () => ({ address: '127.0.0.1', port }), timeoutMs: 5000 };
}

async function refused(url: string): Promise<string> {
  try {
    await checkUrl(url, resolver);
  } catch (error) {
    expect(error).toBeInstanceOf(EgressRefusal);
    return (error as Error).message;
  }
  throw new Error(`not refused: ${url}`);
}

describe('egress guard (WEB-07..10, SEC-010/011)', () => {
  it.each([
    'http://localhost/',
    'http://LOCALHOST./',
    'http://api.localhost/',
    'http://printer.local/',
    'http://metadata.google.internal/',
    'http://intranet/',
    'http://127.0.0.1/',
    'http://127.1.2.3:8080/',
    'http://2130706433/',
    'http://0x7f.0.0.1/',
    'http://0.0.0.0/',
    'http://10.1.2.3/',
    'http://172.16.0.1/',
    'http://192.168.0.10/',
    'http://100.64.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://224.0.0.1/',
    'http://[::1]/',
    'http://[::]/',
    'http://[fc00::1]/',
    'http://[fd12:3456::1]/',
    'http://[fe80::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://private.example.test/',
    'http://mixed.example.test/',
    'http://v6private.example.test/',
    'http://user:pw@example.test/',
    'file:///etc/passwd',
    'http://nosuch.example.test/',
  ])('WEB-08/SEC-010: refuses %s', async (url) => {
    await refused(url);
  });

  it('WEB-08: refuses host names with control characters', async () => {
    expect(await refused('http://exa\nmple.test/')).toMatch(/control characters/);
    expect(await refused('http://example.test\u0000.evil.com/')).toMatch(/control characters/);
    expect(await refused('http://exa%0Ample.test/')).toBeTruthy();
  });

  it('WEB-09/SEC-011: fake-IP (198.18.0.0/15) names only for https on port 443', async () => {
    expect(await refused('http://fake.example.test/')).toMatch(/only https on port 443/);
    expect(await refused('https://fake.example.test:8443/')).toMatch(/only https on port 443/);
    expect(await refused('https://halffake.example.test/')).toMatch(/mixes/);
    const ok = await checkUrl('https://fake.example.test/', resolver);
    expect(ok.port).toBe(443);
    expect(ok.hostname).toBe('fake.example.test');
  });

  it('classifies addresses', () => {
    expect(classifyAddress('93.184.216.34')).toBe('public');
    expect(classifyAddress('2606:4700::1111')).toBe('public');
    expect(classifyAddress('198.19.1.1')).toBe('fake-ip');
    expect(classifyAddress('::ffff:10.0.0.1')).toBe('blocked');
    expect(classifyAddress('64:ff9b::7f00:1')).toBe('blocked');
    expect(classifyAddress('not-an-ip')).toBe('blocked');
  });

  it('production defaults refuse a real loopback server (no injection)', async () => {
    handler = (_req, res) => res.end('should not be reached');
    await expect(guardedFetch(`http://127.0.0.1:${port}/`)).rejects.toThrow(/private or local/);
    await expect(guardedFetch(`http://localhost:${port}/`)).rejects.toThrow(/local name/);
  });

  it('WEB-08: a redirect to a private address or local name is refused hop by hop', async () => {
    for (const target of ['http://127.0.0.1/admin', 'http://private.example.test/', 'http://localhost/']) {
      handler = (_req, res) => {
        res.writeHead(302, { location: target });
        res.end();
      };
      await expect(guardedFetch('http://example.test/start', {}, testEgress())).rejects.toThrow(
        EgressRefusal,
      );
    }
  });

  it('follows a bounded number of public redirects', async () => {
    handler = (req, res) => {
      const n = Number(new URL(req.url!, 'http://x').searchParams.get('n') ?? '0');
      if (n < 3) {
        res.writeHead(301, { location: `/hop?n=${n + 1}` });
        return res.end();
      }
      res.end(`landed ${n}`);
    };
    const res = await guardedFetch('http://example.test/hop', {}, testEgress());
    expect(res.body.toString()).toBe('landed 3');
    expect(res.url).toBe('http://example.test/hop?n=3');
    await expect(
      guardedFetch('http://example.test/hop', {}, { ...testEgress(), maxRedirects: 2 }),
    ).rejects.toThrow(/too many redirects/);
  });

  it('bounds response size', async () => {
    handler = (_req, res) => res.end('x'.repeat(10_000));
    const res = await guardedFetch('http://example.test/', {}, { ...testEgress(), maxBytes: 100 });
    expect(res.body.length).toBe(100);
    expect(res.truncated).toBe(true);
  });
});

describe('web_extract (WEB-07, WEB-11)', () => {
  it('WEB-11: returns readable text of an HTML page as external data', async () => {
    handler = (req, res) => {
      expect(req.headers.host).toBe('example.test');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<html><head><title>Fish &amp; Chips</title><style>body{color:red}</style></head><body>' +
          '<script>alert("x")</script><h1>Menu</h1><p>Cod &lt;fresh&gt; &#8211; &#x20AC;5&nbsp;only</p>' +
          '<ul><li>one</li><li>two</li></ul><!-- hidden --></body></html>',
      );
    };
    const r = await createWebExtractTool({ egress: testEgress() }).execute(
      { url: 'http://example.test/menu' },
      ctx,
    );
    expect(r.external).toBe(true);
    expect(r.isError).toBeUndefined();
    expect(r.content).toContain('Title: Fish & Chips');
    expect(r.content).toContain('Cod <fresh> – €5 only');
    expect(r.content).toContain('- one');
    expect(r.content).not.toMatch(/alert|color:red|hidden|<h1>/);
  });

  it('WEB-07: explains guard refusals instead of fetching', async () => {
    const r = await createWebExtractTool({ egress: testEgress() }).execute(
      { url: 'http://169.254.169.254/' },
      ctx,
    );
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/private or local/);
  });
});

describe('web_search (WEB-03..06)', () => {
  const ddg = { kind: 'duckduckgo' as const, endpoint: 'http://search.example.test/html/' };
  const search = () => createWebSearchTool({ egress: testEgress(), engines: [ddg] });

  it('WEB-05: a 403 from the search service says blocked and nothing was searched, never "no results"', async () => {
    handler = (_req, res) => {
      res.writeHead(403);
      res.end('Forbidden');
    };
    const r = await search().execute({ query: 'cats', max_results: 5 }, ctx);
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/blocked: nothing was searched/);
    expect(r.content).not.toMatch(/no results/i);
  });

  it('WEB-05: a captcha page is blocked, not empty', async () => {
    handler = (_req, res) =>
      res.end('<html><form id="challenge-form">Please solve this captcha</form></html>');
    const r = await search().execute({ query: 'cats', max_results: 5 }, ctx);
    expect(r.content).toMatch(/blocked/);
  });

  it('WEB-06: results carry their sources; an honest empty page says no results', async () => {
    handler = (_req, res) =>
      res.end(
        '<div class="result"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fcats.example%2Fa&amp;rut=1">Cats &amp; more</a>' +
          '<a class="result__snippet" href="#">All about <b>cats</b></a></div>',
      );
    const r = await search().execute({ query: 'cats', max_results: 5 }, ctx);
    expect(r.external).toBe(true);
    expect(r.content).toContain('Cats & more');
    expect(r.content).toContain('Source: https://cats.example/a');
    expect(r.content).toContain('All about cats');
    handler = (_req, res) => res.end('<div class="no-results">No results.</div>');
    const empty = await search().execute({ query: 'zzqx', max_results: 5 }, ctx);
    expect(empty.content).toMatch(/^No results for "zzqx"/);
  });

  it('WEB-03: a configured SearXNG (JSON API) is used first', async () => {
    handler = (req, res) => {
      expect(req.url).toContain('format=json');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ results: [{ title: 'S', url: 'https://s.example/', content: 'snip' }] }));
    };
    const tool = createWebSearchTool({
      egress: testEgress(),
      engines: [{ kind: 'searxng', baseUrl: 'http://search.example.test/' }],
      only: true,
    });
    const r = await tool.execute({ query: 'q', max_results: 3 }, ctx);
    expect(r.content).toContain('via searxng');
    expect(r.content).toContain('Source: https://s.example/');
  });
});
