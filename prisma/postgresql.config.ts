// Prisma CLI config for the derived PostgreSQL schema (generate and `migrate diff` only:
// migrations are applied by the Center's own runner, see docs/center.md).
import { PrismaPg } from '@prisma/adapter-pg';
import { defineConfig } from 'prisma/config';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: './postgresql/schema.prisma',
  adapter: async () =>
    new PrismaPg({
      connectionString: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/arslan_center',
      // Let the CLI exit at once: an idle pg pool otherwise keeps it alive for 10 s.
      allowExitOnIdle: true,
      idleTimeoutMillis: 50,
    }),
});
