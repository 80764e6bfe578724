import { z } from 'zod';
import { createEgressJsonClient, type EgressJsonClientOptions } from './egress-json-client';
import { checkEndpointUrl } from './endpoint-url.policy';
import { sendJson, startTestServer, type TestServer } from './testing/http-test.server';

const schema = z.object({ ok: z.boolean() });

describe('createEgressJsonClient (EGRESS-3..9)', () => {
  let server: TestServer;
  let respond: (res: Parameters<typeof sendJson>[0], i: number) => void;

  beforeEach(async () => {
    respond = (res) => sendJson(res, 200, { ok: true });
    server = await startTestServer((_req, res, i) => respond(res, i));
  });
  afterEach(() => server.close());

  const client = (extra: Partial<EgressJsonClientOptions> = {}) =>
    createEgressJsonClient({
      endpoint: checkEndpointUrl(`${server.origin}/v1/`),
      path: '/thing',
      timeoutMs: 5_000,
      maxAttempts: 3,
      retryBaseMs: 1,
      maxResponseChars: 1024,
      operation: 'testing',
      ...extra,
    });

  it('POSTs JSON to the joined path with the key from the given env', async () => {
    const c = client({ apiKeyEnv: 'K', env: { K: 'sk-abc' } });
    await expect(c.postJson({ a: 1 }, schema, 'an ok')).resolves.toEqual({ ok: true });
    expect(c.loopback).toBe(true);
    expect(c.requestCount).toBe(1);
    const [req] = server.requests;
    expect(req).toMatchObject({ method: 'POST', url: '/v1/thing', body: '{"a":1}' });
    expect(req?.headers['authorization']).toBe('Bearer sk-abc');
  });

  it('labels the key option in config errors', () => {
    expect(() => client({ apiKeyEnv: '1bad', apiKeyEnvLabel: 'api_key_env' })).toThrow(
      expect.objectContaining({
        code: 'invalid_config',
        message: expect.stringContaining('api_key_env must be an environment variable name'),
      }),
    );
    expect(() => client({ apiKeyEnv: 'K', env: {} })).toThrow(
      expect.objectContaining({ code: 'invalid_config' }),
    );
  });

  it('retries 503 up to maxAttempts, then reports http_error', async () => {
    respond = (res) => sendJson(res, 503, {});
    const c = client();
    await expect(c.postJson({}, schema, 'an ok')).rejects.toMatchObject({ code: 'http_error', status: 503 });
    expect(c.requestCount).toBe(3);
  });

  it('maps a schema mismatch and an oversized body to bad_response', async () => {
    respond = (res) => sendJson(res, 200, { nope: 1 });
    await expect(client().postJson({}, schema, 'an ok')).rejects.toMatchObject({
      code: 'bad_response',
      message: expect.stringContaining('is not an ok'),
    });
    respond = (res) => sendJson(res, 200, { ok: true, pad: 'x'.repeat(2048) });
    await expect(client().postJson({}, schema, 'an ok')).rejects.toMatchObject({
      code: 'bad_response',
      message: expect.stringContaining('too large'),
    });
  });

  it('uses the operation name when aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(client().postJson({}, schema, 'an ok', controller.signal)).rejects.toMatchObject({
      code: 'aborted',
      message: expect.stringContaining('testing was aborted'),
    });
  });
});
