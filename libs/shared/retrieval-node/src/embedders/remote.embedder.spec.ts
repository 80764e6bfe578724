import { checkEndpointUrl, isLoopbackHostname } from './endpoint-url.policy';
import { isEmbedderError } from './embedder.errors';
import { createRemoteEmbedder } from './remote.embedder';
import { sendJson, startTestServer, type TestServer } from './testing/http-test.server';

const KEY_ENV = 'ARSLAN_TEST_EMBED_KEY';
const KEY = 'sk-test-9f8e7d6c5b4a';

function embeddingsFor(body: string, dims = 3): unknown {
  const { input } = JSON.parse(body) as { input: string[] };
  // Reverse order with explicit indexes: the client must sort by index.
  return {
    data: input.map((t, index) => ({ index, embedding: [t.length, 1, 0].slice(0, dims) })).reverse(),
  };
}

async function errorOf(p: Promise<unknown>): Promise<Error> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof Error)) throw new Error('expected a rejection');
  return e;
}

describe('endpoint URL policy (EGRESS-3, EGRESS-9)', () => {
  it('treats only literal loopback hosts as loopback', () => {
    for (const h of ['localhost', '127.0.0.1', '127.5.6.7', '[::1]'])
      expect(isLoopbackHostname(h)).toBe(true);
    for (const h of ['example.com', '128.0.0.1', '10.0.0.1', 'localhost.example.com', '[::2]']) {
      expect(isLoopbackHostname(h)).toBe(false);
    }
    // WHATWG normalises odd IPv4 spellings before the check.
    expect(checkEndpointUrl('http://127.1:8080/v1').loopback).toBe(true);
    expect(checkEndpointUrl('http://0x7f000001/').loopback).toBe(true);
  });

  it('requires HTTPS off loopback and refuses credentials, queries and odd schemes', () => {
    expect(checkEndpointUrl('https://api.example.com/v1')).toMatchObject({ loopback: false });
    expect(checkEndpointUrl('http://[::1]:9/v1').loopback).toBe(true);
    const refused = [
      'http://example.com/v1',
      'ftp://127.0.0.1/',
      'https://u:p@api.example.com/',
      'https://h/?key=1',
    ];
    for (const url of refused)
      expect(() => checkEndpointUrl(url)).toThrow(expect.objectContaining({ code: 'egress_refused' }));
    expect(() => checkEndpointUrl('not a url')).toThrow(expect.objectContaining({ code: 'invalid_config' }));
  });
});

describe('createRemoteEmbedder (OpenAI-compatible, real HTTP on 127.0.0.1)', () => {
  let server: TestServer;
  let respond: (body: string, res: Parameters<Parameters<typeof startTestServer>[0]>[1], i: number) => void;

  beforeAll(async () => {
    process.env[KEY_ENV] = KEY;
    server = await startTestServer((req, res, i) => {
      if (req.method !== 'POST' || !req.url.endsWith('/v1/embeddings'))
        return sendJson(res, 404, { error: 'no' });
      if (req.headers['authorization'] !== undefined && req.headers['authorization'] !== `Bearer ${KEY}`) {
        return sendJson(res, 401, { error: 'bad key' });
      }
      respond(req.body, res, i);
    });
  });

  beforeEach(() => {
    server.requests.length = 0;
    respond = (body, res) => sendJson(res, 200, embeddingsFor(body));
  });

  afterAll(async () => {
    delete process.env[KEY_ENV];
    await server.close();
  });

  it('posts {model, input} and returns normalised vectors in input order; loopback counts as local', async () => {
    const e = createRemoteEmbedder({ baseUrl: `${server.origin}/v1/`, model: 'tiny', dimensions: 3 });
    expect(e.local).toBe(true);
    expect(e.id).toBe(`remote:${new URL(server.origin).host}/tiny`);
    const [a, b] = await e.embed(['ab', 'abcd']);
    expect(Array.from(a!)).toEqual(Array.from(Float32Array.from([2 / Math.sqrt(5), 1 / Math.sqrt(5), 0])));
    expect(b![0]).toBeCloseTo(4 / Math.sqrt(17), 6);
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ model: 'tiny', input: ['ab', 'abcd'] });
    expect(server.requests[0]!.headers['authorization']).toBeUndefined();
  });

  it('sends the key from the named env var as a Bearer token, and never in messages', async () => {
    const e = createRemoteEmbedder({
      baseUrl: `${server.origin}/v1`,
      model: 'm',
      dimensions: 3,
      apiKeyEnv: KEY_ENV,
    });
    await e.embed(['x']);
    expect(server.requests[0]!.headers['authorization']).toBe(`Bearer ${KEY}`);
    expect(server.requests[0]!.url).not.toContain(KEY);
    expect(server.requests[0]!.body).not.toContain(KEY);
    respond = (_b, res) => sendJson(res, 500, { error: `invalid key ${KEY}` });
    const err = await errorOf(e.embed(['x']));
    expect(isEmbedderError(err, 'http_error')).toBe(true);
    expect(`${err.message} ${err.stack} ${JSON.stringify(err)}`).not.toContain(KEY);
  });

  it('refuses a missing key variable by name, without a request', () => {
    expect(() =>
      createRemoteEmbedder({
        baseUrl: server.origin,
        model: 'm',
        dimensions: 3,
        apiKeyEnv: 'ARSLAN_NOT_SET_X',
      }),
    ).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    expect(() =>
      createRemoteEmbedder({ baseUrl: server.origin, model: 'm', dimensions: 3, apiKeyEnv: 'a b' }),
    ).toThrow(expect.objectContaining({ code: 'invalid_config' }));
  });

  it('retries 429 (honouring Retry-After) and then succeeds', async () => {
    respond = (body, res, i) =>
      i < 2
        ? sendJson(res, 429, { error: 'slow down' }, { 'retry-after': '0' })
        : sendJson(res, 200, embeddingsFor(body));
    const e = createRemoteEmbedder({
      baseUrl: `${server.origin}/v1`,
      model: 'm',
      dimensions: 3,
      retryBaseMs: 10,
    });
    const vectors = await e.embed(['hello']);
    expect(vectors).toHaveLength(1);
    expect(server.requests).toHaveLength(3);
    expect(e.requestCount).toBe(3);
  });

  it('gives up after the bounded number of attempts on 503', async () => {
    respond = (_b, res) => sendJson(res, 503, {});
    const e = createRemoteEmbedder({
      baseUrl: `${server.origin}/v1`,
      model: 'm',
      dimensions: 3,
      retryBaseMs: 1,
      maxAttempts: 3,
    });
    await expect(e.embed(['x'])).rejects.toMatchObject({ code: 'http_error', status: 503 });
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry 500 or 400', async () => {
    respond = (_b, res) => sendJson(res, 500, {});
    const e = createRemoteEmbedder({
      baseUrl: `${server.origin}/v1`,
      model: 'm',
      dimensions: 3,
      retryBaseMs: 1,
    });
    await expect(e.embed(['x'])).rejects.toMatchObject({ code: 'http_error', status: 500 });
    expect(server.requests).toHaveLength(1);
    respond = (_b, res) => sendJson(res, 400, {});
    await expect(e.embed(['x'])).rejects.toMatchObject({ code: 'http_error', status: 400 });
    expect(server.requests).toHaveLength(2);
  });

  it('refuses redirects (EGRESS-4) without following them', async () => {
    respond = (_b, res) => {
      res.writeHead(307, { location: 'http://127.0.0.1:1/v1/embeddings' });
      res.end();
    };
    const e = createRemoteEmbedder({ baseUrl: `${server.origin}/v1`, model: 'm', dimensions: 3 });
    await expect(e.embed(['x'])).rejects.toMatchObject({ code: 'egress_refused' });
    expect(server.requests).toHaveLength(1);
  });

  it('refuses plain HTTP to a non-loopback host and credentials in the URL before any request', () => {
    expect(() =>
      createRemoteEmbedder({ baseUrl: 'http://example.com/v1', model: 'm', dimensions: 3 }),
    ).toThrow(expect.objectContaining({ code: 'egress_refused' }));
    const withCreds = `http://user:${KEY}@127.0.0.1:1/v1`;
    let err: unknown;
    try {
      createRemoteEmbedder({ baseUrl: withCreds, model: 'm', dimensions: 3 });
    } catch (e) {
      err = e;
    }
    expect(isEmbedderError(err, 'egress_refused')).toBe(true);
    expect((err as Error).message).not.toContain(KEY);
    expect(server.requests).toHaveLength(0);
  });

  it('marks a remote HTTPS endpoint as not local', () => {
    expect(
      createRemoteEmbedder({ baseUrl: 'https://api.example.com/v1', model: 'm', dimensions: 8 }).local,
    ).toBe(false);
  });

  it('times out a request that never answers', async () => {
    respond = () => undefined; // hold the connection open
    const e = createRemoteEmbedder({
      baseUrl: `${server.origin}/v1`,
      model: 'm',
      dimensions: 3,
      timeoutMs: 150,
    });
    await expect(e.embed(['x'])).rejects.toMatchObject({ code: 'timeout' });
    expect(server.requests).toHaveLength(1);
  });

  it('retries connection failures, then reports a network error', async () => {
    const e = createRemoteEmbedder({
      baseUrl: 'http://127.0.0.1:1/v1',
      model: 'm',
      dimensions: 3,
      retryBaseMs: 1,
    });
    await expect(e.embed(['x'])).rejects.toMatchObject({ code: 'network_error' });
    expect(e.requestCount).toBe(3);
  });

  it('rejects malformed or wrongly sized answers', async () => {
    const e = createRemoteEmbedder({ baseUrl: `${server.origin}/v1`, model: 'm', dimensions: 4 });
    await expect(e.embed(['x'])).rejects.toMatchObject({ code: 'bad_response' });
    respond = (_b, res) => sendJson(res, 200, { data: 'nope' });
    await expect(e.embed(['x'])).rejects.toMatchObject({ code: 'bad_response' });
  });
});
