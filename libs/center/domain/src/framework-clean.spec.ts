// The Center domain is framework-free (ARCHITECTURE.md): no Nest, Prisma, Fastify or passport
// imports; those live in apps/center and libs/center/data-access.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const FORBIDDEN = /from '(@nestjs\/[^']*|@prisma\/[^']*|fastify|passport[^']*|pg|better-sqlite3|zod)'/;

describe('center-domain imports no framework', () => {
  const files = readdirSync(__dirname).filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'));

  it.each(files)('%s', (file) => {
    expect(readFileSync(join(__dirname, file), 'utf8')).not.toMatch(FORBIDDEN);
  });
});
