// The checked-in OpenAPI document is exactly what the controllers generate today.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOpenApi, openApiText } from './openapi';

describe('OpenAPI 3.1 document', () => {
  it('apps/center/openapi.json is current (run `npm run openapi:center` after changing routes)', () => {
    expect(readFileSync(join(__dirname, '..', '..', 'openapi.json'), 'utf8')).toBe(openApiText());
  });

  it('declares security per route policy: public routes have none, admin and content use different schemes', () => {
    const doc = buildOpenApi() as {
      paths: Record<string, Record<string, { security: unknown[]; tags: string[] }>>;
    };
    for (const ops of Object.values(doc.paths)) {
      for (const op of Object.values(ops)) {
        const kind = op.tags[0];
        if (kind === 'public') expect(op.security).toEqual([]);
        if (kind === 'admin') expect(op.security).toEqual([{ adminBearer: [] }]);
        if (kind === 'content') expect(op.security).toEqual([{ contentBearer: [] }]);
      }
    }
    expect(Object.keys(doc.paths)).toContain('/v1/vaults/{vault}/grants');
  });
});
