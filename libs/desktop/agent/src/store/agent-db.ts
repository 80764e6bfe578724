// DATA-05: every connection enables WAL, foreign keys, a 5 s busy timeout and synchronous=NORMAL;
// MIG-02: the schema is checked and migrated before anything uses the data.
import Database from 'better-sqlite3';
import { AGENT_MIGRATIONS, type Migration } from './migrations';
import { type MigrationReport, runMigrations } from './migration-runner';

export type AgentDb = Database.Database;

export function applyConnectionPragmas(db: AgentDb): void {
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
}

/** At most this many distinct SQL strings keep a prepared statement (dynamic SQL stays uncached). */
const STATEMENT_CACHE_LIMIT = 256;

/**
 * The repositories call `db.prepare(sql)` per operation with a small fixed set of SQL strings;
 * re-preparing cost ~8 % of a loop step (bench:agent). Cached statements are safe to share here:
 * nothing in the store uses iterate(), pluck(), raw() or expand(), which would change or lock
 * a shared statement, and SQLite re-prepares a statement itself after a schema change.
 */
function cacheStatements(db: AgentDb): void {
  const cache = new Map<string, Database.Statement>();
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    const cached = cache.get(sql);
    if (cached) return cached;
    const statement = prepare(sql);
    if (cache.size < STATEMENT_CACHE_LIMIT) cache.set(sql, statement);
    return statement;
  }) as AgentDb['prepare'];
}

export interface OpenAgentDbOptions {
  migrations?: readonly Migration[];
  now?: () => number;
}

/** Opens (creating if needed) and migrates the agent database. Throws StoreError on a refused schema. */
export function openAgentDb(
  dbPath: string,
  options: OpenAgentDbOptions = {},
): { db: AgentDb; migration: MigrationReport } {
  const db = new Database(dbPath);
  try {
    applyConnectionPragmas(db);
    const migration = runMigrations(db, options.migrations ?? AGENT_MIGRATIONS, {
      dbPath,
      ...(options.now ? { now: options.now } : {}),
    });
    cacheStatements(db);
    return { db, migration };
  } catch (error) {
    db.close();
    throw error;
  }
}
