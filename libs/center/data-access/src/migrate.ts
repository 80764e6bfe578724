// The Center's own migration runner: applies the checked-in SQL of prisma/migrations/<provider>
// (embedded at build time by prisma/generate.ts) in name order, once each, recording them in
// `center_migrations`. Prisma's `migrate deploy` cannot run against PostgreSQL here (see
// docs/center.md), so both providers use this runner.
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { MIGRATIONS } from './generated/migrations';

export interface MigrationResult {
  readonly applied: readonly string[];
}

const TABLE =
  'CREATE TABLE IF NOT EXISTS center_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)';

export function migrateSqlite(file: string): MigrationResult {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.exec(TABLE);
    const done = new Set(
      (db.prepare('SELECT name FROM center_migrations').all() as { name: string }[]).map((r) => r.name),
    );
    const applied: string[] = [];
    for (const m of MIGRATIONS.sqlite) {
      if (done.has(m.name)) continue;
      db.transaction(() => {
        db.exec(m.sql);
        db.prepare('INSERT INTO center_migrations (name, applied_at) VALUES (?, ?)').run(
          m.name,
          new Date().toISOString(),
        );
      }).immediate();
      applied.push(m.name);
    }
    return { applied };
  } finally {
    db.close();
  }
}

/** A session-level advisory lock keeps concurrent replicas from migrating at once. */
export async function migratePostgres(connectionString: string): Promise<MigrationResult> {
  const client = new Client({ connectionString });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock(72657301)');
    await client.query(TABLE);
    const { rows } = await client.query<{ name: string }>('SELECT name FROM center_migrations');
    const done = new Set(rows.map((r) => r.name));
    const applied: string[] = [];
    for (const m of MIGRATIONS.postgresql) {
      if (done.has(m.name)) continue;
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO center_migrations (name, applied_at) VALUES ($1, $2)', [
          m.name,
          new Date().toISOString(),
        ]);
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK');
        throw e;
      }
      applied.push(m.name);
    }
    await client.query('SELECT pg_advisory_unlock(72657301)');
    return { applied };
  } finally {
    await client.end();
  }
}
