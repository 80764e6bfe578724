// Drift check: the checked-in migrations (prisma/migrations/<provider>) must build exactly the
// schema that `prisma migrate diff --from-empty` renders from prisma/schema.prisma today, on
// SQLite and on PostgreSQL; the derived PostgreSQL schema must match its source.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { MIGRATIONS } from './generated/migrations';

const root = join(__dirname, '..', '..', '..', '..');
const PG_ADMIN_URL = process.env.ARSLAN_TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

function renderFromEmpty(config: string, schema: string): string {
  return execFileSync(
    process.execPath,
    [
      join(root, 'node_modules/prisma/build/index.js'),
      'migrate',
      'diff',
      '--config',
      join(root, 'prisma', config),
      '--from-empty',
      '--to-schema-datamodel',
      join(root, 'prisma', schema),
      '--script',
    ],
    {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: PG_ADMIN_URL, CHECKPOINT_DISABLE: '1' },
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
}

function sqliteShape(sql: string[]): string[] {
  const db = new Database(':memory:');
  for (const s of sql) db.exec(s);
  const rows = db
    .prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name")
    .all();
  db.close();
  return rows.map((r) => JSON.stringify(r));
}

async function pgShape(sql: string[]): Promise<string[]> {
  const name = `arslan_center_drift_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  try {
    const c = new Client({ connectionString: PG_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`) });
    await c.connect();
    try {
      for (const s of sql) await c.query(s);
      const cols = await c.query(
        `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
         WHERE table_schema = 'public' ORDER BY table_name, column_name`,
      );
      const idx = await c.query(
        `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`,
      );
      return [...cols.rows, ...idx.rows].map((r) => JSON.stringify(r));
    } finally {
      await c.end();
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

describe('Prisma schema and migrations stay in sync', () => {
  it('the PostgreSQL schema is derived from prisma/schema.prisma (npm run prisma:generate)', () => {
    const source = readFileSync(join(root, 'prisma/schema.prisma'), 'utf8');
    const derived = readFileSync(join(root, 'prisma/postgresql/schema.prisma'), 'utf8');
    const strip = (s: string) =>
      s
        .split('\n')
        .filter((l) => !/provider\s*=\s*"(sqlite|postgresql)"|url\s*=|output\s*=|GENERATED/.test(l))
        .join('\n');
    expect(strip(derived)).toBe(strip(source));
  });

  it('SQLite: the checked-in migrations equal the current schema', () => {
    const current = renderFromEmpty('sqlite.config.ts', 'schema.prisma');
    expect(sqliteShape(MIGRATIONS.sqlite.map((m) => m.sql))).toEqual(sqliteShape([current]));
  }, 30_000);

  it('PostgreSQL: the checked-in migrations equal the current schema', async () => {
    const current = renderFromEmpty('postgresql.config.ts', 'postgresql/schema.prisma');
    expect(await pgShape(MIGRATIONS.postgresql.map((m) => m.sql))).toEqual(await pgShape([current]));
  }, 30_000);

  it('CTR-3: 0003_ticket_scope rebuilds the SQLite tickets table and keeps every existing ticket', () => {
    const db = new Database(':memory:');
    try {
      const upTo = MIGRATIONS.sqlite.findIndex((m) => m.name === '0003_ticket_scope');
      expect(upTo).toBeGreaterThan(0);
      for (const m of MIGRATIONS.sqlite.slice(0, upTo)) db.exec(m.sql);
      db.prepare(
        `INSERT INTO tickets (id, kind, token_hash, vault, member, reusable, expires_at, used_at, created_at)
         VALUES ('t1', 'unlock', 'h1', 'team', 'olga', 1, 2000, NULL, 1000)`,
      ).run();
      db.exec(MIGRATIONS.sqlite[upTo]!.sql);
      expect(db.prepare('SELECT * FROM tickets').all()).toEqual([
        {
          id: 't1',
          kind: 'unlock',
          token_hash: 'h1',
          vault: 'team',
          member: 'olga',
          reusable: 1,
          scope: null,
          grant_minutes: null,
          expires_at: 2000,
          used_at: null,
          created_at: 1000,
        },
      ]);
      // The unique index survived the rebuild.
      expect(() =>
        db
          .prepare(
            `INSERT INTO tickets (id, kind, token_hash, vault, member, reusable, expires_at)
             VALUES ('t2', 'unlock', 'h1', 'team', 'olga', 1, 2000)`,
          )
          .run(),
      ).toThrow(/UNIQUE/);
    } finally {
      db.close();
    }
  });

  it('the embedded migrations match the files in prisma/migrations', () => {
    for (const provider of ['sqlite', 'postgresql'] as const) {
      for (const m of MIGRATIONS[provider]) {
        expect(readFileSync(join(root, 'prisma/migrations', provider, m.name, 'migration.sql'), 'utf8')).toBe(
          m.sql,
        );
      }
    }
  });
});
