import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openAgentDb } from './agent-db';
import { AGENT_MIGRATIONS, type Migration } from './migrations';
import { RunRepository } from './run.repository';
import { StoreError } from './store.errors';

function tmpDb(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'arslan-agent-')), 'agent.db');
}

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof StoreError ? error.code : `other: ${String(error)}`;
  }
  return undefined;
}

describe('agent store', () => {
  it('DATA-05: WAL, foreign keys, 5 s busy timeout, synchronous=NORMAL', () => {
    const { db, migration } = openAgentDb(tmpDb());
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    const versions = AGENT_MIGRATIONS.map((m) => m.version);
    expect(migration).toMatchObject({ from: 0, to: versions.at(-1), applied: versions });
    expect(migration.backupPath).toBeUndefined();
    db.close();
  });

  it('MIG-03: refuses a newer schema without modifying the file', () => {
    const file = tmpDb();
    openAgentDb(file).db.close();
    const raw = new Database(file);
    raw.prepare("INSERT INTO schema_version (version, name, applied_at) VALUES (7, 'future', 0)").run();
    raw.close();
    const before = fs.readFileSync(file);
    expect(code(() => openAgentDb(file))).toBe('schema_newer');
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it('MIG-03: refuses an unknown schema (foreign tables, or a version whose name does not match)', () => {
    const foreign = tmpDb();
    const raw = new Database(foreign);
    raw.exec('CREATE TABLE something (x)');
    raw.close();
    expect(code(() => openAgentDb(foreign))).toBe('schema_unknown');
    const renamed = tmpDb();
    openAgentDb(renamed).db.close();
    const other: Migration[] = [{ version: 1, name: 'different', sql: 'SELECT 1' }];
    expect(code(() => openAgentDb(renamed, { migrations: other }))).toBe('schema_unknown');
  });

  it('MIG-01/02: applies pending migrations in order after backing up the existing database', () => {
    const file = tmpDb();
    const first = openAgentDb(file, { now: () => 111 }).db;
    new RunRepository(first).ensureConversation('c1');
    first.close();
    // The next migration after the shipped ones (whatever their count).
    const latest = AGENT_MIGRATIONS.at(-1)!.version;
    const v2: Migration[] = [
      ...AGENT_MIGRATIONS,
      { version: latest + 1, name: 'add_note', sql: 'ALTER TABLE conversations ADD COLUMN note TEXT' },
    ];
    const { db, migration } = openAgentDb(file, { migrations: v2, now: () => 222 });
    expect(migration).toMatchObject({ from: latest, to: latest + 1, applied: [latest + 1] });
    expect(migration.backupPath).toBe(`${file}.v${latest}-222.bak`);
    const backup = new Database(migration.backupPath!, { readonly: true });
    expect(backup.prepare('SELECT MAX(version) AS v FROM schema_version').get()).toEqual({ v: latest });
    expect(backup.prepare('SELECT id FROM conversations').all()).toEqual([{ id: 'c1' }]);
    backup.close();
    expect(db.prepare('SELECT note FROM conversations').all()).toEqual([{ note: null }]);
    db.close();
    // a build that only knows the shipped migrations now refuses the newer file
    expect(code(() => openAgentDb(file))).toBe('schema_newer');
  });

  it('DATA-09: message ids are never reused, even after deletes', () => {
    const { db } = openAgentDb(':memory:');
    const repo = new RunRepository(db);
    repo.ensureConversation('c');
    const a = repo.addMessage('c', 'user', 'one', null);
    const b = repo.addMessage('c', 'user', 'two', null);
    repo.deleteMessage(b);
    const c = repo.addMessage('c', 'user', 'three', null);
    expect(c).toBeGreaterThan(b);
    expect(a).toBeLessThan(b);
  });

  it('CKPT-05/06, SIDE-003: after a restart unfinished runs are interrupted, started actions unknown, unstarted ones cancelled', () => {
    const file = tmpDb();
    const first = openAgentDb(file).db;
    const repo = new RunRepository(first);
    repo.ensureConversation('c');
    repo.createRun({
      id: 'r1',
      conversationId: 'c',
      taskId: null,
      attemptId: null,
      mode: 'interactive',
      provider: 'p',
      model: 'm',
      tier: 'standard',
    });
    repo.createRun({
      id: 'r2',
      conversationId: 'c',
      taskId: null,
      attemptId: null,
      mode: 'interactive',
      provider: 'p',
      model: 'm',
      tier: 'standard',
    });
    repo.finishRun('r2', 'succeeded', 'ok');
    repo.createAction({
      runId: 'r1',
      taskId: null,
      callId: 'a',
      tool: 'write_file',
      kind: 'workspace_write',
      summary: 'x',
    });
    repo.setActionState('r1', 'a', 'started');
    repo.createAction({
      runId: 'r1',
      taskId: null,
      callId: 'b',
      tool: 'write_file',
      kind: 'workspace_write',
      summary: 'y',
    });
    first.close(); // "crash"
    const again = new RunRepository(openAgentDb(file).db);
    expect(again.recoverAfterRestart()).toEqual({ interruptedRuns: ['r1'], unknownActions: 1 });
    expect(again.getRun('r1')?.status).toBe('interrupted');
    expect(again.getRun('r2')?.status).toBe('succeeded');
    expect(again.listActions({ runId: 'r1' }).map((a) => [a.callId, a.state])).toEqual([
      ['a', 'unknown'],
      ['b', 'cancelled'],
    ]);
    // CKPT-08: a late writer cannot end a run that was already ended
    expect(again.finishRun('r1', 'succeeded', 'late')).toBe(false);
  });
});
