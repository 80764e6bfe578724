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
    return { db, migration };
  } catch (error) {
    db.close();
    throw error;
  }
}
