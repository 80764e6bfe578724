// EGRESS-5 wiring: `[rag] proxy` / `proxy_env` reach the remote embedder and the `rag ask` model,
// checked against a real CONNECT proxy on a real socket.
import { parseArslanConfig } from '@arslan/protocol';
import { isEmbedderError } from '@arslan/retrieval-node';
import { startConnectProxy, type TestProxy } from '@arslan/retrieval-node-testing';
import { ragConfigFromToml } from './rag-config';
import { createConfiguredChatModel, createConfiguredEmbedder } from './rag-egress';
import { fakeChatServer } from './testing.spec-support';

jest.setTimeout(30_000);

const SECRET = 'pr0xy-s3cret';

function configFrom(toml: string) {
  const parsed = parseArslanConfig(toml);
  if (!parsed.ok) throw new Error(parsed.problem);
  return ragConfigFromToml(parsed.config.rag, '/tmp');
}

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a failure');
}

describe('[rag] proxy wiring (EGRESS-5)', () => {
  let proxy: TestProxy;
  beforeAll(async () => {
    proxy = await startConnectProxy({ kind: 'refuse', status: 403 });
  });
  afterAll(() => proxy.close());
  beforeEach(() => proxy.connects.splice(0));

  const remote = (extra: string) =>
    configFrom(
      [
        '[rag]',
        'embedder = "remote"',
        extra,
        '[rag.remote]',
        'base_url = "https://models.test/v1"',
        'model = "m"',
        'dimensions = 4',
        '[rag.generation]',
        'base_url = "https://chat.test/v1"',
        'model = "g"',
      ].join('\n'),
    );

  it('EGRESS-5: [rag] proxy routes the remote embedder and the rag ask model through the proxy, over env vars', async () => {
    const config = remote(`proxy = "http://127.0.0.1:${proxy.port}"`);
    expect(config.proxy).toBe(`http://127.0.0.1:${proxy.port}`);
    const env = { HTTPS_PROXY: 'http://127.0.0.1:9' };
    const embedder = await createConfiguredEmbedder(config, env);
    const embedError = await failure(embedder!.embed(['hello']));
    expect(isEmbedderError(embedError)).toBe(true);
    expect(embedError.message).toContain(`via proxy http://127.0.0.1:${proxy.port}`);
    const model = createConfiguredChatModel(config.generation!, config, env);
    expect(model.proxy).toBe(`http://127.0.0.1:${proxy.port}`);
    await failure(model.complete([{ role: 'user', content: 'q' }], {}));
    const authorities = proxy.connects.map((c) => c.authority);
    expect(authorities).toContain('models.test:443');
    expect(authorities).toContain('chat.test:443');
    await embedder!.close();
  });

  it('EGRESS-5: proxy_env supplies a URL with credentials; they reach the proxy only, never a message', async () => {
    const config = remote('proxy_env = "RAG_PROXY_URL"');
    const env = { RAG_PROXY_URL: `http://user:${SECRET}@127.0.0.1:${proxy.port}` };
    const model = createConfiguredChatModel(config.generation!, config, env);
    expect(model.proxy).toBe(`http://127.0.0.1:${proxy.port}`);
    const error = await failure(model.complete([{ role: 'user', content: 'q' }], {}));
    expect(error.message).not.toContain(SECRET);
    expect(proxy.connects[0]?.authority).toBe('chat.test:443');
    expect(proxy.connects[0]?.proxyAuthorization).toBe(
      `Basic ${Buffer.from(`user:${SECRET}`).toString('base64')}`,
    );
  });

  it('EGRESS-5: a proxy_env variable that is unset is a config error, not a direct connection', async () => {
    const config = remote('proxy_env = "RAG_PROXY_URL"');
    const error = await failure(createConfiguredEmbedder(config, {}));
    expect(error).toMatchObject({ code: 'invalid_config' });
    expect(() => createConfiguredChatModel(config.generation!, config, {})).toThrow(
      'environment variable RAG_PROXY_URL is not set',
    );
    expect(proxy.connects).toHaveLength(0);
  });

  it('EGRESS-5: a loopback model endpoint goes direct even with [rag] proxy set', async () => {
    const chat = await fakeChatServer();
    try {
      const config = configFrom(
        [
          '[rag]',
          `proxy = "http://127.0.0.1:${proxy.port}"`,
          '[rag.generation]',
          `base_url = "${chat.url}"`,
          'model = "g"',
        ].join('\n'),
      );
      const model = createConfiguredChatModel(config.generation!, config, {});
      expect(model.proxy).toBeUndefined();
      await model.complete([{ role: 'user', content: 'q' }], {});
      expect(chat.requests).toHaveLength(1);
      expect(proxy.connects).toHaveLength(0);
    } finally {
      await chat.close();
    }
  });
});
