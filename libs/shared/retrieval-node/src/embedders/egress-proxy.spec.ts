import { z } from 'zod';
import { createEgressJsonClient, type EgressJsonClientOptions } from './egress-json-client';
import { checkEndpointUrl } from './endpoint-url.policy';
import { bypassesProxy, chooseProxy } from './proxy.policy';
import { sendJson, startTestServer, type TestServer } from './testing/http-test.server';
import {
  makeTestPki,
  nonLoopbackAddress,
  startConnectProxy,
  startSocks5Proxy,
  startTlsTarget,
  type TestPki,
  type TestProxy,
  type TestSocksProxy,
  type TlsTarget,
} from './testing/proxy-test.servers';

jest.setTimeout(30_000);

const schema = z.object({ ok: z.boolean() });
const SECRET = 's3cret-pw';

describe('proxy policy (EGRESS-5)', () => {
  const https = (host: string, port = '') => new URL(`https://${host}${port ? `:${port}` : ''}/v1`);

  it('EGRESS-5: loopback never uses a proxy, whatever env or config say', () => {
    const env = { HTTPS_PROXY: 'http://p:1', ALL_PROXY: 'socks5h://p:2', HTTP_PROXY: 'http://p:3' };
    for (const host of ['127.0.0.1', '127.8.9.1', 'localhost', '[::1]']) {
      expect(chooseProxy(https(host), { env, proxy: 'http://p:4' })).toBeUndefined();
      expect(chooseProxy(new URL(`http://${host}:8080/v1`), { env })).toBeUndefined();
    }
  });

  it('EGRESS-5: lower-case variables win, https_proxy before all_proxy, config before env', () => {
    const target = https('api.example.com');
    expect(
      chooseProxy(target, { env: { https_proxy: 'http://a:1', HTTPS_PROXY: 'http://b:1' } })?.url.host,
    ).toBe('a:1');
    expect(
      chooseProxy(target, { env: { ALL_PROXY: 'socks5h://c:1080', HTTPS_PROXY: 'b:3128' } }),
    ).toMatchObject({
      scheme: 'http:',
      source: 'HTTPS_PROXY',
    });
    expect(chooseProxy(target, { env: { all_proxy: 'socks5://c:1080' } })?.scheme).toBe('socks5:');
    expect(chooseProxy(target, { env: { HTTP_PROXY: 'http://d:1' } })).toBeUndefined();
    expect(
      chooseProxy(target, { env: { HTTPS_PROXY: 'http://b:1' }, proxy: 'https://cfg:443' })?.source,
    ).toBe('config');
    expect(chooseProxy(target, { env: {} })).toBeUndefined();
  });

  it('EGRESS-5: NO_PROXY matches *, names and subdomains, ports, IPs and CIDR blocks', () => {
    expect(bypassesProxy(https('api.example.com'), '*')).toBe(true);
    expect(bypassesProxy(https('api.example.com'), 'foo, .example.com')).toBe(true);
    expect(bypassesProxy(https('api.example.com'), '*.example.com')).toBe(true);
    expect(bypassesProxy(https('example.com'), 'example.com')).toBe(true);
    expect(bypassesProxy(https('badexample.com'), 'example.com')).toBe(false);
    expect(bypassesProxy(https('api.example.com'), 'api.example.com:8443')).toBe(false);
    expect(bypassesProxy(https('api.example.com', '8443'), 'api.example.com:8443')).toBe(true);
    expect(bypassesProxy(https('10.1.2.3'), '10.0.0.0/8')).toBe(true);
    expect(bypassesProxy(https('11.1.2.3'), '10.0.0.0/8')).toBe(false);
    expect(bypassesProxy(https('[fd00::5]'), 'fd00::/8')).toBe(true);
    expect(bypassesProxy(https('192.0.2.7'), '192.0.2.7')).toBe(true);
    expect(
      chooseProxy(https('api.example.com'), { env: { no_proxy: 'example.com', HTTPS_PROXY: 'p:1' } }),
    ).toBeUndefined();
    expect(
      chooseProxy(https('api.example.com'), { env: { NO_PROXY: 'example.com' }, proxy: 'http://p:1' }),
    ).toBeUndefined();
  });

  it('EGRESS-5: unsupported or malformed proxy URLs are config errors that never echo credentials', () => {
    for (const proxy of [
      `ftp://user:${SECRET}@p:21`,
      `socks4://user:${SECRET}@p:1080`,
      `http://user:${SECRET}@[bad`,
    ]) {
      let caught: unknown;
      try {
        chooseProxy(https('api.example.com'), { env: { HTTPS_PROXY: proxy } });
      } catch (e) {
        caught = e;
      }
      expect(caught).toMatchObject({
        code: 'invalid_config',
        message: expect.stringContaining('HTTPS_PROXY'),
      });
      expect(String((caught as Error).message)).not.toContain(SECRET);
    }
  });
});

describe('createEgressJsonClient through real proxies (EGRESS-5, EGRESS-8)', () => {
  const altIp = nonLoopbackAddress();
  let pki: TestPki;
  let target: TlsTarget;
  let tunnel: TestProxy;
  let socks: TestSocksProxy;
  let plain: TestServer;
  const extra: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    pki = makeTestPki(altIp);
    target = await startTlsTarget(pki.target);
    tunnel = await startConnectProxy({ kind: 'tunnel', targetPort: target.port });
    socks = await startSocks5Proxy(target.port);
    plain = await startTestServer((_req, res) => sendJson(res, 200, { ok: true }));
  });
  afterAll(async () => {
    await Promise.all([target, tunnel, socks, plain, ...extra].map((s) => s.close()));
  });
  beforeEach(() => {
    target.requests.length = 0;
    tunnel.connects.length = 0;
    socks.connects.length = 0;
  });

  const client = (url: string, env: Record<string, string>, more: Partial<EgressJsonClientOptions> = {}) =>
    createEgressJsonClient({
      endpoint: checkEndpointUrl(url),
      path: '/embeddings',
      apiKeyEnv: 'MODEL_KEY',
      env: { MODEL_KEY: 'sk-target-only', ...env },
      tlsCa: pki.ca,
      timeoutMs: 5_000,
      maxAttempts: 2,
      retryBaseMs: 1,
      maxResponseChars: 1024,
      operation: 'testing',
      reportNetworkCode: true,
      ...more,
    });

  it('EGRESS-5: HTTPS_PROXY tunnels through HTTP CONNECT; the proxy sees only host:port, TLS is verified end to end', async () => {
    const c = client(`https://models.test:${target.port}/v1`, {
      HTTPS_PROXY: `http://user:${SECRET}@127.0.0.1:${tunnel.port}`,
    });
    expect(c.proxy).toBe(`http://127.0.0.1:${tunnel.port}`);
    await expect(c.postJson({ input: ['hi'] }, schema, 'an ok')).resolves.toEqual({ ok: true });
    c.close();
    expect(tunnel.connects).toEqual([
      {
        authority: `models.test:${target.port}`,
        proxyAuthorization: `Basic ${Buffer.from(`user:${SECRET}`).toString('base64')}`,
      },
    ]);
    expect(target.requests).toHaveLength(1);
    expect(target.requests[0]).toMatchObject({
      method: 'POST',
      url: '/v1/embeddings',
      body: '{"input":["hi"]}',
    });
    expect(target.requests[0]?.headers['authorization']).toBe('Bearer sk-target-only');
    expect(target.requests[0]?.headers['proxy-authorization']).toBeUndefined();
  });

  it('EGRESS-5: ALL_PROXY=socks5h:// lets the proxy resolve the name; socks5:// sends a resolved address', async () => {
    const viaName = client(`https://models.test:${target.port}/v1`, {
      ALL_PROXY: `socks5h://127.0.0.1:${socks.port}`,
    });
    await expect(viaName.postJson({}, schema, 'an ok')).resolves.toEqual({ ok: true });
    viaName.close();
    const viaAddress = client(`https://${altIp}:${target.port}/v1`, {
      all_proxy: `socks5://127.0.0.1:${socks.port}`,
    });
    await expect(viaAddress.postJson({}, schema, 'an ok')).resolves.toEqual({ ok: true });
    viaAddress.close();
    expect(socks.connects).toEqual([
      { addressType: 'domain', host: 'models.test', port: target.port },
      { addressType: 'ipv4', host: altIp, port: target.port },
    ]);
    expect(target.requests).toHaveLength(2);
  });

  it('EGRESS-5: NO_PROXY sends a matching host direct', async () => {
    const c = client(`https://${altIp}:${target.port}/v1`, {
      HTTPS_PROXY: `http://127.0.0.1:${tunnel.port}`,
      NO_PROXY: `other.example, ${altIp}`,
    });
    expect(c.proxy).toBeUndefined();
    await expect(c.postJson({}, schema, 'an ok')).resolves.toEqual({ ok: true });
    expect(tunnel.connects).toEqual([]);
    expect(target.requests).toHaveLength(1);
  });

  it('EGRESS-5: loopback endpoints (HTTP and HTTPS) go direct even with every proxy variable and a configured proxy', async () => {
    const env = {
      HTTPS_PROXY: `http://127.0.0.1:${tunnel.port}`,
      HTTP_PROXY: `http://127.0.0.1:${tunnel.port}`,
      ALL_PROXY: `socks5h://127.0.0.1:${socks.port}`,
    };
    const http = client(`${plain.origin}/v1`, env, { proxy: `http://127.0.0.1:${tunnel.port}` });
    const tls = client(`https://localhost:${target.port}/v1`, env);
    expect([http.proxy, tls.proxy]).toEqual([undefined, undefined]);
    await expect(http.postJson({}, schema, 'an ok')).resolves.toEqual({ ok: true });
    await expect(tls.postJson({}, schema, 'an ok')).resolves.toEqual({ ok: true });
    expect(tunnel.connects).toEqual([]);
    expect(socks.connects).toEqual([]);
    expect(target.requests).toHaveLength(1);
  });

  it('EGRESS-8: a proxy presenting a wrong-name or untrusted certificate for the target is refused, nothing leaks, no retry', async () => {
    for (const keyAndCert of [pki.wrongName, pki.untrusted]) {
      const mitm = await startConnectProxy({ kind: 'mitm', keyAndCert });
      extra.push(mitm);
      const c = client(`https://models.test:${target.port}/v1`, {
        https_proxy: `http://user:${SECRET}@127.0.0.1:${mitm.port}`,
      });
      const error = await c.postJson({ input: ['private text'] }, schema, 'an ok').catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'egress_refused',
        message: expect.stringContaining('TLS certificate'),
      });
      expect(String((error as Error).message)).not.toContain(SECRET);
      expect(c.requestCount).toBe(1);
      expect(mitm.connects).toHaveLength(1);
      expect(mitm.interceptedBytes).toBe(0);
    }
    expect(target.requests).toEqual([]);
  });

  it('EGRESS-5: proxy credentials never appear in errors (unreachable proxy, proxy refusal)', async () => {
    const refusing = await startConnectProxy({ kind: 'refuse', status: 407 });
    extra.push(refusing);
    const closedPort = await startTestServer(() => undefined);
    const deadPort = new URL(closedPort.origin).port;
    await closedPort.close();
    const cases = [
      { HTTPS_PROXY: `http://user:${SECRET}@127.0.0.1:${deadPort}` },
      { HTTPS_PROXY: `socks5h://user:${SECRET}@127.0.0.1:${deadPort}` },
      { HTTPS_PROXY: `http://user:${SECRET}@127.0.0.1:${refusing.port}` },
    ];
    for (const env of cases) {
      const c = client(`https://models.test:${target.port}/v1`, env);
      const error = (await c.postJson({}, schema, 'an ok').catch((e: unknown) => e)) as Error & {
        code: string;
      };
      expect(['network_error', 'http_error']).toContain(error.code);
      expect(error.message).toContain('via proxy');
      expect(error.message).not.toContain(SECRET);
      expect(error.message).not.toContain('user');
      expect(error.stack ?? '').not.toContain(SECRET);
      c.close();
    }
    expect(target.requests).toEqual([]);
  });
});
