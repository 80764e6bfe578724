// MIG-01..03: explicit versioned migration runner. Checks the version, refuses unknown or newer
// schemas without touching them, takes a pre-migration copy, then applies pending migrations in order.
import fs from 'node:fs';
import type Database from 'better-sqlite3';
import type { Migration } from './migrations';
import { StoreError } from './store.errors';

export interface MigrationReport {
  from: number;
  to: number;
  applied: number[];
  /** Path of the pre-migration copy, when one was taken. */
  backupPath?: string;
}

export interface MigrateOptions {
  /** File path of the database; `:memory:` (or undefined) takes no backup. */
  dbPath?: string;
  now?: () => number;
}

function hasTable(db: Database.Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/** Reads the recorded versions; refuses a schema this build does not recognise (MIG-03). */
export function readSchemaVersion(db: Database.Database, migrations: readonly Migration[]): number {
  if (!hasTable(db, 'schema_version')) {
    const other = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' LIMIT 1")
      .get() as { name: string } | undefined;
    if (other)
      throw new StoreError('schema_unknown', `database has tables (${other.name}) but no schema_version`);
    return 0;
  }
  const rows = db.prepare('SELECT version, name FROM schema_version ORDER BY version').all() as {
    version: number;
    name: string;
  }[];
  const latest = migrations.at(-1)?.version ?? 0;
  let current = 0;
  for (const row of rows) {
    if (row.version > latest) {
      throw new StoreError(
        'schema_newer',
        `database schema ${row.version} is newer than this build (${latest})`,
      );
    }
    const known = migrations.find((m) => m.version === row.version);
    if (!known || known.name !== row.name) {
      throw new StoreError('schema_unknown', `unknown schema version ${row.version} (${row.name})`);
    }
    current = Math.max(current, row.version);
  }
  return current;
}

function assertOrdered(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1)
      throw new StoreError('migration_failed', `migrations must be numbered 1..n (got ${m.version})`);
  });
}

/** Copies the database (WAL checkpointed) next to it before any change: `<db>.v<from>-<ts>.bak`. */
function backup(db: Database.Database, dbPath: string, from: number, now: number): string {
  const target = `${dbPath}.v${from}-${now}.bak`;
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
    if (fs.existsSync(target)) fs.rmSync(target);
    db.prepare('VACUUM INTO ?').run(target);
    return target;
  } catch (error) {
    throw new StoreError('backup_failed', `pre-migration backup to ${target} failed`, { cause: error });
  }
}

export function runMigrations(
  db: Database.Database,
  migrations: readonly Migration[],
  options: MigrateOptions = {},
): MigrationReport {
  assertOrdered(migrations);
  const now = options.now ?? Date.now;
  const from = readSchemaVersion(db, migrations);
  const pending = migrations.filter((m) => m.version > from);
  const report: MigrationReport = { from, to: from, applied: [] };
  if (pending.length === 0) return report;
  // MIG-02: back up existing data before migrating (a fresh, empty file has nothing to lose).
  if (from > 0 && options.dbPath && options.dbPath !== ':memory:') {
    report.backupPath = backup(db, options.dbPath, from, now());
  }
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
  );
  for (const migration of pending) {
    const apply = db.transaction(() => {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        now(),
      );
    });
    try {
      apply();
    } catch (error) {
      throw new StoreError('migration_failed', `migration ${migration.version} (${migration.name}) failed`, {
        cause: error,
      });
    }
    report.applied.push(migration.version);
    report.to = migration.version;
  }
  return report;
}
