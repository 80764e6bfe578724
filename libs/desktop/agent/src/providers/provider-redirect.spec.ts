// PROV-06: a model request goes to the configured endpoint only. An endpoint answering with a
// redirect must not move the request (its key header and the context) to another host.
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProviderError } from '../ports';
import { ProviderSearchError, runProviderSearch } from '../tools/web-provider-search';
import { type ProviderKind, createModelProvider } from './create-provider';

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

describe('PROV-06: redirects are refused', () => {
  const elsewhereHits: string[] = [];
  const elsewhere = createServer((req, res) => {
    elsewhereHits.push(
      `${req.method} ${req.url} key=${String(req.headers['x-api-key'] ?? req.headers['x-goog-api-key'] ?? req.headers.authorization ?? '')}`,
    );
    res.writeHead(500).end();
  });
  let elsewhereUrl = '';
  const redirecting = createServer((req, res) => {
    res.writeHead(307, { location: `${elsewhereUrl}${req.url ?? '/'}` }).end();
  });
  let redirectingUrl = '';

  beforeAll(async () => {
    elsewhereUrl = await listen(elsewhere);
    redirectingUrl = await listen(redirecting);
  });
  afterAll(async () => {
    await new Promise((resolve) => elsewhere.close(resolve));
    await new Promise((resolve) => redirecting.close(resolve));
  });

  it.each<ProviderKind>(['openai-compatible', 'anthropic', 'gemini'])(
    'PROV-06: %s — a 307 from the endpoint fails the request; the other host receives nothing',
    async (kind) => {
      const provider = createModelProvider(kind, {
        baseUrl: kind === 'openai-compatible' ? `${redirectingUrl}/v1` : redirectingUrl,
        apiKey: 'sk-secret-redirect-0001',
      });
      let error: unknown;
      try {
        await provider.stream(
          {
            model: 'm',
            system: 's',
            trajectory: [{ role: 'user', text: 'hi' }],
            tools: [],
            maxOutputTokens: 64,
          },
          () => undefined,
          new AbortController().signal,
        );
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ProviderError);
      expect(String((error as Error).message)).not.toContain('sk-secret');
      expect(elsewhereHits).toEqual([]);
    },
  );

  it.each(['anthropic', 'gemini', 'openai'] as const)(
    'PROV-06/WEB-01: %s provider search — a redirect fails the search; the key never leaves',
    async (kind) => {
      const search = runProviderSearch(
        {
          kind,
          baseUrl: kind === 'openai' ? `${redirectingUrl}/v1` : redirectingUrl,
          model: 'm',
          apiKey: 'sk-secret-redirect-0002',
        },
        'query',
        5,
        new AbortController().signal,
      );
      await expect(search).rejects.toBeInstanceOf(ProviderSearchError);
      await expect(search).rejects.not.toThrow(/sk-secret/);
      expect(elsewhereHits).toEqual([]);
    },
  );
});
