// Prisma CLI config for the SQLite schema: `engine: 'js'` makes the CLI use the wasm
// schema engine with a driver adapter, so nothing is downloaded (see docs/center.md).
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';
import { defineConfig } from 'prisma/config';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: './schema.prisma',
  // The CLI only renders SQL (migrate diff) or generates: an in-memory database leaves no file behind.
  adapter: async () => new PrismaBetterSQLite3({ url: process.env.CENTER_SQLITE_URL ?? ':memory:' }),
});
