import { openAgentDb } from '../store/agent-db';
import { RunRepository } from '../store/run.repository';
import { TaskRepository } from './task.repository';
import { TaskError, type TaskSpec } from './task.types';

function setup() {
  const { db } = openAgentDb(':memory:');
  let n = 0;
  const tasks = new TaskRepository(
    db,
    () => 1,
    () => `id${++n}`,
  );
  const runs = new RunRepository(db, () => 1);
  return { db, tasks, runs };
}

const spec: TaskSpec = {
  instruction: 'make report.html',
  acceptance: [
    { id: 'exists', description: 'report.html exists', critical: true },
    { id: 'style', description: 'looks tidy', critical: false },
  ],
};

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof TaskError ? error.code : `other: ${String(error)}`;
  }
  return undefined;
}

describe('tasks', () => {
  it('TASK-03: updates with a stale attempt id or row version are rejected', () => {
    const { tasks } = setup();
    const task = tasks.createTask({ conversationId: null, spec });
    const a1 = tasks.startAttempt(task.id, task.rowVersion);
    const a1b = tasks.updateProgress(a1, { step: 1 });
    expect(code(() => tasks.updateProgress(a1, { step: 2 }))).toBe('stale_version');
    // a new attempt after resume: the old one can no longer write
    const a2 = tasks.startAttempt(task.id, tasks.getTask(task.id).rowVersion);
    expect(code(() => tasks.updateProgress(a1b, { step: 3 }))).toBe('stale_attempt');
    expect(code(() => tasks.finishAttempt(a1b, 'completed', 'unverified'))).toBe('stale_attempt');
    expect(tasks.updateProgress(a2, { step: 1 })).toEqual({ attemptId: a2.attemptId, version: 2 });
    expect(code(() => tasks.startAttempt(task.id, task.rowVersion))).toBe('stale_version');
  });

  it('TASK-01/03/08: a spec change creates a revision and supersedes the running attempt', () => {
    const { tasks } = setup();
    const task = tasks.createTask({ conversationId: null, spec });
    const a1 = tasks.startAttempt(task.id, task.rowVersion);
    const revised = tasks.reviseSpec(task.id, tasks.getTask(task.id).rowVersion, {
      ...spec,
      instruction: 'make report.pdf',
    });
    expect(revised.currentRevision).toBe(2);
    expect(tasks.getSpec(task.id, 1).instruction).toBe('make report.html');
    expect(
      code(() =>
        tasks.recordAcceptance(a1, {
          itemId: 'exists',
          status: 'passed',
          evidence: [{ kind: 'artifact', ref: 'report.html' }],
        }),
      ),
    ).toBe('stale_attempt');
  });

  it('TASK-04/05/09/10: verdicts need evidence; critical items are never n/a; success needs every item', () => {
    const { tasks } = setup();
    const task = tasks.createTask({ conversationId: null, spec });
    let g = tasks.startAttempt(task.id, task.rowVersion);
    expect(code(() => tasks.recordAcceptance(g, { itemId: 'exists', status: 'passed', evidence: [] }))).toBe(
      'missing_evidence',
    );
    expect(
      code(() =>
        tasks.recordAcceptance(g, {
          itemId: 'exists',
          status: 'not_applicable',
          evidence: [{ kind: 'check', ref: 'x' }],
        }),
      ),
    ).toBe('critical_not_applicable');
    g = tasks.recordAcceptance(g, {
      itemId: 'exists',
      status: 'passed',
      evidence: [{ kind: 'artifact', ref: 'report.html', sha256: 'ab' }],
    });
    expect(code(() => tasks.markSucceeded(g))).toBe('insufficient_evidence');
    g = tasks.recordAcceptance(g, { itemId: 'style', status: 'not_run', evidence: [] });
    expect(code(() => tasks.markSucceeded(g))).toBe('insufficient_evidence');
    g = tasks.recordAcceptance(g, {
      itemId: 'style',
      status: 'not_applicable',
      evidence: [{ kind: 'user', ref: 'msg 4' }],
    });
    tasks.markSucceeded(g);
    expect(tasks.getTask(task.id).status).toBe('succeeded');
    expect(tasks.listAcceptance(g.attemptId).map((v) => [v.itemId, v.status])).toEqual([
      ['exists', 'passed'],
      ['style', 'not_applicable'],
    ]);
  });

  it('TASK-07/SIDE-002: success is refused while an action is preparing, started or unknown', () => {
    const { tasks, runs } = setup();
    const task = tasks.createTask({ conversationId: null, spec: { instruction: 'send it', acceptance: [] } });
    const g = tasks.startAttempt(task.id, task.rowVersion);
    runs.ensureConversation('c');
    runs.createRun({
      id: 'r',
      conversationId: 'c',
      taskId: task.id,
      attemptId: g.attemptId,
      mode: 'interactive',
      provider: 'p',
      model: 'm',
      tier: 'standard',
    });
    runs.createAction({
      runId: 'r',
      taskId: task.id,
      callId: 'x',
      tool: 'send',
      kind: 'send',
      summary: 'mail',
    });
    for (const state of ['preparing', 'started', 'unknown'] as const) {
      runs.setActionState('r', 'x', state);
      expect(code(() => tasks.markSucceeded(g))).toBe('unsettled_actions');
    }
    runs.setActionState('r', 'x', 'confirmed');
    tasks.markSucceeded(g);
    expect(tasks.getTask(task.id).status).toBe('succeeded');
  });

  it('TASK-08: acceptance binds to the same revision, the same valid attempt and evidence owned by the task', () => {
    const { tasks, runs } = setup();
    runs.ensureConversation('c');
    const one = { instruction: 'x', acceptance: [{ id: 'ok', description: 'done', critical: true }] };
    const task = tasks.createTask({ conversationId: 'c', spec: one });
    const other = tasks.createTask({ conversationId: 'c', spec: one });
    const g1 = tasks.startAttempt(task.id, tasks.getTask(task.id).rowVersion);
    const go = tasks.startAttempt(other.id, tasks.getTask(other.id).rowVersion);
    const run = (id: string, taskId: string, attemptId: string): void =>
      runs.createRun({
        id,
        conversationId: 'c',
        taskId,
        attemptId,
        mode: 'interactive',
        provider: 'p',
        model: 'm',
        tier: 'standard',
      });
    run('r1', task.id, g1.attemptId);
    run('ro', other.id, go.attemptId);
    const read = (runId: string, callId: string): void =>
      runs.recordToolCall(runId, {
        callId,
        stepIndex: 1,
        seq: 1,
        tool: 'read_file',
        argsJson: '{}',
        outcome: 'ok',
        detail: 'x',
      });
    read('r1', 'mine-rev1');
    read('ro', 'theirs');
    // Another task's read is not evidence for this one; an unknown call id neither.
    for (const ref of ['theirs', 'never-happened'])
      expect(
        code(() =>
          tasks.recordAcceptance(g1, { itemId: 'ok', status: 'passed', evidence: [{ kind: 'read', ref }] }),
        ),
      ).toBe('foreign_evidence');
    runs.createAction({
      runId: 'ro',
      taskId: other.id,
      callId: 'op-theirs',
      tool: 't',
      kind: 'send',
      summary: 's',
    });
    expect(
      code(() =>
        tasks.recordAcceptance(g1, {
          itemId: 'ok',
          status: 'passed',
          evidence: [{ kind: 'operation', ref: 'op-theirs' }],
        }),
      ),
    ).toBe('foreign_evidence');
    // Revision 2: the old attempt is stale, and revision-1 results are no evidence for revision 2.
    tasks.reviseSpec(task.id, tasks.getTask(task.id).rowVersion, { ...one, instruction: 'y' });
    expect(
      code(() =>
        tasks.recordAcceptance(g1, {
          itemId: 'ok',
          status: 'passed',
          evidence: [{ kind: 'read', ref: 'mine-rev1' }],
        }),
      ),
    ).toBe('stale_attempt');
    let g2 = tasks.startAttempt(task.id, tasks.getTask(task.id).rowVersion);
    expect(
      code(() =>
        tasks.recordAcceptance(g2, {
          itemId: 'ok',
          status: 'passed',
          evidence: [{ kind: 'read', ref: 'mine-rev1' }],
        }),
      ),
    ).toBe('foreign_evidence');
    run('r2', task.id, g2.attemptId);
    read('r2', 'mine-rev2');
    g2 = tasks.recordAcceptance(g2, {
      itemId: 'ok',
      status: 'passed',
      evidence: [{ kind: 'read', ref: 'mine-rev2' }],
    });
    tasks.markSucceeded(g2);
    expect(tasks.listAcceptance(g2.attemptId)).toEqual([
      { itemId: 'ok', status: 'passed', evidence: [{ kind: 'read', ref: 'mine-rev2' }], revision: 2 },
    ]);
    // Nothing recorded against the older attempt counts for the new one.
    expect(tasks.listAcceptance(g1.attemptId)).toEqual([]);
  });
});
