// The generated client module is current for the checked-in OpenAPI document, and the client
// maps operations to requests and typed errors.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CenterApiError, CenterClient } from './center-client';
import { generateClientModule, schemaToTs } from './openapi-to-ts';

const root = join(__dirname, '..', '..', '..', '..');

describe('center-client', () => {
  it('src/generated/center-api.ts matches apps/center/openapi.json (run `npm run openapi:center`)', () => {
    const doc = JSON.parse(readFileSync(join(root, 'apps/center/openapi.json'), 'utf8')) as Parameters<
      typeof generateClientModule
    >[0];
    expect(readFileSync(join(__dirname, 'generated/center-api.ts'), 'utf8')).toBe(generateClientModule(doc));
  });

  it('converts the JSON Schema subset zod emits', () => {
    expect(schemaToTs({ type: ['string', 'null'] })).toBe('string | null');
    expect(schemaToTs({ anyOf: [{ const: 'self' }, { type: 'string' }] })).toBe('"self" | string');
    expect(schemaToTs({ type: 'array', items: { type: 'integer' } })).toBe('Array<number>');
    expect(schemaToTs({ type: 'object', additionalProperties: {} })).toBe('Record<string, unknown>');
    expect(schemaToTs({})).toBe('unknown');
  });

  it('builds the request from the operation table and throws typed errors', async () => {
    const calls: { url: string; init: RequestInit }[] = [];
    const fake = (async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      if (url.endsWith('/grants')) {
        return new Response(JSON.stringify({ error: { code: 'grant_bad_lifetime', message: 'no' } }), {
          status: 400,
        });
      }
      return new Response(JSON.stringify({ kind: 'member', name: 'a', depth: 0 }), { status: 200 });
    }) as unknown as typeof fetch;
    const client = new CenterClient({ baseUrl: 'http://c/', token: 'acm_x', adminToken: 'adm', fetch: fake });
    expect(await client.call('whoami', { params: { vault: 'v 1' } })).toEqual({
      kind: 'member',
      name: 'a',
      depth: 0,
    });
    expect(calls[0]?.url).toBe('http://c/v1/vaults/v%201/whoami');
    expect((calls[0]?.init.headers as Record<string, string>).authorization).toBe('Bearer acm_x');
    await expect(
      client.call('issueGrant', { params: { vault: 'v' }, body: { to: 'b', minutes: 0 } }),
    ).rejects.toMatchObject({
      status: 400,
      code: 'grant_bad_lifetime',
    });
    await expect(
      client.call('issueGrant', { params: { vault: 'v' }, body: { to: 'b', minutes: 0 } }),
    ).rejects.toBeInstanceOf(CenterApiError);
  });
});
