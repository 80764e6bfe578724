// PROV-04 / DATA-02 storage: migration 5 over a v4 store keeps the trusted settings, adds the
// model choice beside them, and the artifacts table refuses rows of unknown runs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openAgentDb } from './agent-db';
import { ArtifactRepository } from './artifact.repository';
import { ContextRepository } from './context.repository';
import { ConversationModelRepository } from './conversation-model.repository';
import { AGENT_MIGRATIONS } from './migrations';
import { RunRepository } from './run.repository';

const dirs: string[] = [];
function tmpDb(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arslan-agent-models-'));
  dirs.push(dir);
  return path.join(dir, 'agent.db');
}
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('conversation model choice and artifacts storage (PROV-04, DATA-02)', () => {
  it('PROV-04/MIG-02: migration 5 keeps v4 settings; the choice sits beside them', () => {
    const file = tmpDb();
    const v4 = openAgentDb(file, { migrations: AGENT_MIGRATIONS.filter((m) => m.version <= 4) }).db;
    new RunRepository(v4).ensureConversation('c1');
    new ContextRepository(v4).updateSettings('c1', { replyLanguage: 'German', cloudMemory: true });
    v4.close();
    const { db, migration } = openAgentDb(file, {
      migrations: AGENT_MIGRATIONS.filter((m) => m.version <= 5),
    });
    try {
      expect(migration).toMatchObject({ from: 4, to: 5, applied: [5] });
      const models = new ConversationModelRepository(db);
      const context = new ContextRepository(db);
      expect(models.get('c1')).toBeNull();
      models.set('c1', 'fast');
      expect(models.get('c1')).toBe('fast');
      expect(context.getSettings('c1')).toEqual({
        replyLanguage: 'German',
        localMemory: true,
        cloudMemory: true,
      });
      // A later settings change keeps the choice.
      context.updateSettings('c1', { localMemory: false });
      expect(models.get('c1')).toBe('fast');
    } finally {
      db.close();
    }
  });

  it('DATA-02: an artifact row must belong to a recorded run', () => {
    const { db } = openAgentDb(tmpDb());
    try {
      const repo = new ArtifactRepository(db);
      expect(() =>
        repo.insert({
          id: '00000000-0000-0000-0000-000000000001',
          runId: 'missing-run',
          callId: 'c',
          tool: 'attach_file',
          fileName: 'a.txt',
          mediaType: 'text/plain',
          storedName: '00000000-0000-0000-0000-000000000001.bin',
          bytes: 1,
          sha256: 'x',
          createdAt: 1,
        }),
      ).toThrow(/FOREIGN KEY/);
      expect(repo.listForRun('missing-run')).toEqual([]);
    } finally {
      db.close();
    }
  });
});
