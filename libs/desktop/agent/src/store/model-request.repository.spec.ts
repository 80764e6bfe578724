// ARCH-18 storage: migration 4 over a v3 database that already holds a summary, summary version
// ids, and the request record round trip.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openAgentDb } from './agent-db';
import { ContextRepository } from './context.repository';
import { AGENT_MIGRATIONS } from './migrations';
import { ModelRequestRepository } from './model-request.repository';
import { RunRepository } from './run.repository';

const SUMMARY = { goal: 'g', progress: [], decisions: [], filesTouched: [], nextSteps: [] };

function tmpDb(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'arslan-agent-req-')), 'agent.db');
}

describe('model request records (ARCH-18)', () => {
  it('ARCH-18/MIG-02: migration 4 upgrades a v3 store, keeping its summary under a stable id', () => {
    const file = tmpDb();
    const v3 = openAgentDb(file, { migrations: AGENT_MIGRATIONS.filter((m) => m.version <= 3) }).db;
    new RunRepository(v3).ensureConversation('c1');
    v3.prepare(
      `INSERT INTO context_summaries (conversation_id, summary_json, folded_message_ids_json, model, updated_at)
       VALUES ('c1', ?, '[1]', 'm', 42)`,
    ).run(JSON.stringify(SUMMARY));
    v3.close();
    const { db, migration } = openAgentDb(file, {
      migrations: AGENT_MIGRATIONS.filter((m) => m.version <= 4),
    });
    expect(migration).toMatchObject({ from: 3, to: 4, applied: [4] });
    const context = new ContextRepository(db);
    const legacy = context.getSummary('c1')!;
    expect(legacy.id).toBe('v3-c1-42');
    expect(context.getSummary('c1')!.id).toBe(legacy.id);
    // Every save is a new version with a new id.
    const a = context.saveSummary({
      conversationId: 'c1',
      summary: SUMMARY,
      foldedMessageIds: [1],
      model: 'm',
    });
    const b = context.saveSummary({
      conversationId: 'c1',
      summary: SUMMARY,
      foldedMessageIds: [1],
      model: 'm',
    });
    expect(a).not.toBe(b);
    expect(context.getSummary('c1')!.id).toBe(b);
    db.close();
  });

  it('ARCH-18: a record keeps endpoint, items, attempts and outcome, per run in order', () => {
    const { db } = openAgentDb(tmpDb());
    const runs = new RunRepository(db);
    runs.ensureConversation('c1');
    runs.createRun({
      id: 'r1',
      conversationId: 'c1',
      taskId: null,
      attemptId: null,
      mode: 'interactive',
      provider: 'anthropic',
      model: 'm',
      tier: 'standard',
    });
    const repo = new ModelRequestRepository(db, () => 7);
    const included = {
      items: [0, 1],
      messageIds: [3],
      summaryId: null,
      unsavedSummary: false,
      materials: [{ item: 1, callId: 'k', tool: 'recall', treatment: 'verbatim' as const, sources: [] }],
      masked: [],
    };
    const id = repo.add({
      runId: 'r1',
      step: 1,
      purpose: 'step',
      provider: 'anthropic',
      endpointOrigin: 'https://api.anthropic.com',
      model: 'm',
      included,
      context: { folded: 0 },
    });
    repo.countAttempt(id);
    repo.setOutcome(id, 'ok');
    expect(repo.list('r1')).toEqual([
      {
        id,
        runId: 'r1',
        step: 1,
        purpose: 'step',
        endpoint: { provider: 'anthropic', origin: 'https://api.anthropic.com' },
        model: 'm',
        included,
        context: { folded: 0 },
        attempts: 2,
        outcome: 'ok',
        createdAt: 7,
      },
    ]);
    expect(repo.list('other')).toEqual([]);
    // A record belongs to a stored run (foreign key).
    const orphan = { runId: 'missing', step: 1, purpose: 'step' as const, provider: 'x', model: 'm' };
    expect(() => repo.add({ ...orphan, endpointOrigin: null, included, context: null })).toThrow();
    db.close();
  });
});
