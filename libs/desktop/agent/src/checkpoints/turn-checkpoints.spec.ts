// Undo-this-turn checkpoints on real temp folders and a real SQLite store (CKPT-11..17).
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openAgentDb, type AgentDb } from '../store/agent-db';
import { RunRepository } from '../store/run.repository';
import { CHECKPOINT_RETENTION_MS, TurnCheckpoints, type TurnCheckpointsOptions } from './turn-checkpoints';
import { UndoError } from './undo.errors';

jest.setTimeout(20_000);

const temps: string[] = [];
function temp(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

interface Setup {
  ws: string;
  outside: string;
  dataDir: string;
  db: AgentDb;
  runs: RunRepository;
  cps: TurnCheckpoints;
  clock: { now: number };
  /** One turn: the run and its message, the save before the change, the change, the turn's end. */
  turn(runId: string, change: () => void, conversationId?: string, workspace?: string): Promise<void>;
}

function setup(options: Partial<TurnCheckpointsOptions> = {}): Setup {
  const ws = temp('arslan-ckpt-ws-');
  const outside = temp('arslan-ckpt-out-');
  const dataDir = temp('arslan-ckpt-data-');
  const { db } = openAgentDb(join(dataDir, 'agent.sqlite'));
  const clock = { now: 1_000_000 };
  const runs = new RunRepository(db, () => clock.now);
  let ids = 0;
  const cps = new TurnCheckpoints({
    db,
    dataDir,
    now: () => clock.now,
    newId: () => `ck${++ids}`,
    ...options,
  });
  const turn: Setup['turn'] = async (runId, change, conversationId = 'c1', workspace = ws) => {
    runs.ensureConversation(conversationId);
    runs.createRun({
      id: runId,
      conversationId,
      taskId: null,
      attemptId: null,
      mode: 'interactive',
      provider: 'fake',
      model: 'm',
      tier: 'standard',
    });
    runs.addMessage(conversationId, 'user', `please ${runId}`, runId);
    const handle = cps.startTurn({ runId, conversationId, workspace });
    await handle.beforeFirstChange();
    change();
    runs.addMessage(conversationId, 'assistant', `done ${runId}`, runId);
    runs.finishRun(runId, 'succeeded', 'done');
    await handle.end();
    clock.now += 1000;
  };
  return { ws, outside, dataDir, db, runs, cps, clock, turn };
}

async function undoError(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof UndoError) return error.code;
    throw error;
  }
  throw new Error('undo was accepted');
}

describe('undo this turn (CKPT-11..17)', () => {
  it('CKPT-11: the first change saves the folder once, as it was, as real copies (no hard links)', async () => {
    const s = setup();
    writeFileSync(join(s.ws, 'a.txt'), 'before');
    mkdirSync(join(s.ws, 'src'));
    writeFileSync(join(s.ws, 'src', 'main.ts'), 'code');
    s.runs.ensureConversation('c1');
    s.runs.createRun({
      id: 'r1',
      conversationId: 'c1',
      taskId: null,
      attemptId: null,
      mode: 'interactive',
      provider: 'fake',
      model: 'm',
      tier: 'standard',
    });
    const handle = s.cps.startTurn({ runId: 'r1', conversationId: 'c1', workspace: s.ws });
    await handle.beforeFirstChange();
    writeFileSync(join(s.ws, 'a.txt'), 'after');
    await handle.beforeFirstChange(); // the second change saves nothing more
    const saved = join(s.dataDir, 'checkpoints', 'ck1', 'files');
    expect(readFileSync(join(saved, 'a.txt'), 'utf8')).toBe('before');
    expect(readFileSync(join(saved, 'src', 'main.ts'), 'utf8')).toBe('code');
    expect(statSync(join(saved, 'a.txt')).nlink).toBe(1);
    expect(statSync(join(saved, 'src', 'main.ts')).ino).not.toBe(statSync(join(s.ws, 'src', 'main.ts')).ino);
    expect(existsSync(join(s.dataDir, 'checkpoints', 'ck2'))).toBe(false);
    await handle.end();
    const [view] = s.cps.list('c1');
    expect(view).toMatchObject({
      runId: 'r1',
      undoable: true,
      checkpoint: { status: 'saved', fileCount: 2 },
    });
    s.db.close();
  });

  it('CKPT-12: over the file or size limit, short of disk, or on another volume the turn shows "Not saved"', async () => {
    const cases: [Partial<TurnCheckpointsOptions>, string, RegExp][] = [
      [{ limits: { maxFiles: 2 } }, 'too_many_files', /^Not saved: the folder has more than 2 files$/],
      [{ limits: { maxBytes: 10 } }, 'too_large', /^Not saved: the folder is larger than/],
      [{ limits: { minFreeBytes: Number.MAX_SAFE_INTEGER } }, 'low_disk', /^Not saved: not enough free disk/],
      [
        { deviceOf: async (p) => (p.includes('arslan-ckpt-ws-') ? 1 : 2) },
        'other_volume',
        /different volume/,
      ],
    ];
    for (const [options, reason, message] of cases) {
      const notes: { saved: boolean; message: string }[] = [];
      const s = setup(options);
      for (const name of ['a', 'b', 'c']) writeFileSync(join(s.ws, `${name}.txt`), 'twelve bytes');
      s.runs.ensureConversation('c1');
      s.runs.createRun({
        id: 'r1',
        conversationId: 'c1',
        taskId: null,
        attemptId: null,
        mode: 'interactive',
        provider: 'fake',
        model: 'm',
        tier: 'standard',
      });
      const handle = s.cps.startTurn({
        runId: 'r1',
        conversationId: 'c1',
        workspace: s.ws,
        notify: (n) => notes.push(n),
      });
      await handle.beforeFirstChange();
      await handle.end();
      expect(notes).toEqual([{ saved: false, message: expect.stringMatching(message) }]);
      const [view] = s.cps.list('c1');
      expect(view?.checkpoint).toMatchObject({ status: 'not_saved', reason });
      expect(view?.undoable).toBe(false);
      expect(existsSync(join(s.dataDir, 'checkpoints', 'ck1'))).toBe(false);
      expect(await undoError(s.cps.undo({ conversationId: 'c1', runId: 'r1' }))).toBe('not_saved');
      s.db.close();
    }
  });

  it('CKPT-12: a folder on a different real volume is not saved (when the machine has one)', async () => {
    const shm = '/dev/shm';
    if (!existsSync(shm) || statSync(shm).dev === statSync(tmpdir()).dev) return; // no second volume here
    const s = setup();
    const other = realpathSync(mkdtempSync(join(shm, 'arslan-ckpt-')));
    temps.push(other);
    await s.turn('r1', () => writeFileSync(join(other, 'x.txt'), 'x'), 'c1', other);
    expect(s.cps.list('c1')[0]?.checkpoint).toMatchObject({ status: 'not_saved', reason: 'other_volume' });
    s.db.close();
  });

  it('CKPT-13: rebuildable folders and secret-shaped files are neither saved nor restored, and are listed', async () => {
    const s = setup();
    mkdirSync(join(s.ws, 'node_modules', 'lib'), { recursive: true });
    writeFileSync(join(s.ws, 'node_modules', 'lib', 'index.js'), 'v1');
    mkdirSync(join(s.ws, 'pkg', '__pycache__'), { recursive: true });
    writeFileSync(join(s.ws, 'pkg', '__pycache__', 'm.pyc'), 'bytecode');
    writeFileSync(join(s.ws, '.env'), 'TOKEN=secret-value');
    writeFileSync(join(s.ws, 'server.pem'), 'PEM');
    writeFileSync(join(s.ws, 'id_rsa'), 'KEY');
    writeFileSync(join(s.ws, 'app.js'), 'app v1');
    await s.turn('r1', () => {
      writeFileSync(join(s.ws, 'node_modules', 'lib', 'index.js'), 'v2');
      writeFileSync(join(s.ws, '.env'), 'TOKEN=changed');
      writeFileSync(join(s.ws, 'app.js'), 'app v2');
    });
    const saved = join(s.dataDir, 'checkpoints', 'ck1', 'files');
    expect(existsSync(join(saved, 'node_modules'))).toBe(false);
    expect(existsSync(join(saved, '.env'))).toBe(false);
    expect(existsSync(join(saved, 'server.pem'))).toBe(false);
    expect(readFileSync(join(saved, 'app.js'), 'utf8')).toBe('app v1');
    const result = await s.cps.undo({ conversationId: 'c1', runId: 'r1' });
    expect(readFileSync(join(s.ws, 'app.js'), 'utf8')).toBe('app v1');
    expect(readFileSync(join(s.ws, 'node_modules', 'lib', 'index.js'), 'utf8')).toBe('v2');
    expect(readFileSync(join(s.ws, '.env'), 'utf8')).toBe('TOKEN=changed');
    expect(result.folders[0]?.notSaved).toEqual([
      '.env',
      'id_rsa',
      'node_modules/',
      'pkg/__pycache__/',
      'server.pem',
    ]);
    expect(result.folders[0]?.restored).toEqual(['app.js']);
    s.db.close();
  });

  it('CKPT-14: undo restores the files and removes the turn and every later turn; message ids are not reused', async () => {
    const forgotten: string[][] = [];
    const s = setup({ memory: { forgetTurns: async ({ runIds }) => void forgotten.push([...runIds]) } });
    writeFileSync(join(s.ws, 'notes.md'), 'v0');
    mkdirSync(join(s.ws, 'old'));
    writeFileSync(join(s.ws, 'old', 'keep.txt'), 'keep');
    await s.turn('r0', () => writeFileSync(join(s.ws, 'notes.md'), 'v1'));
    await s.turn('r1', () => {
      writeFileSync(join(s.ws, 'notes.md'), 'v2');
      mkdirSync(join(s.ws, 'new', 'deep'), { recursive: true });
      writeFileSync(join(s.ws, 'new', 'deep', 'made.txt'), 'made');
      rmSync(join(s.ws, 'old'), { recursive: true });
    });
    await s.turn('r2', () => writeFileSync(join(s.ws, 'notes.md'), 'v3'));
    s.runs.appendTrajectory('r1', 0, { role: 'user', text: 'please r1' });
    const before = s.runs.listMessages('c1');
    const maxId = Math.max(...before.map((m) => m.id));

    const result = await s.cps.undo({ conversationId: 'c1', runId: 'r1' });
    expect(result.undoneRunIds).toEqual(['r1', 'r2']);
    expect(result.removedMessages).toBe(4);
    expect(readFileSync(join(s.ws, 'notes.md'), 'utf8')).toBe('v1');
    expect(readFileSync(join(s.ws, 'old', 'keep.txt'), 'utf8')).toBe('keep');
    expect(existsSync(join(s.ws, 'new'))).toBe(false);
    expect(result.folders[0]).toMatchObject({
      restored: ['notes.md', 'old/keep.txt'],
      removed: ['new/', 'new/deep/', 'new/deep/made.txt'],
      changedAfter: [],
    });
    expect(s.runs.listMessages('c1').map((m) => m.text)).toEqual(['please r0', 'done r0']);
    expect(s.runs.loadTrajectory('r1')).toEqual([]);
    expect(s.db.prepare('SELECT undone_at IS NOT NULL AS undone FROM runs WHERE id = ?').get('r1')).toEqual({
      undone: 1,
    });
    expect(s.cps.list('c1').map((t) => t.runId)).toEqual(['r0']);
    expect(forgotten).toEqual([['r1', 'r2']]); // DEL-05: facts learned in those turns
    expect(existsSync(join(s.dataDir, 'checkpoints', 'ck2'))).toBe(false);
    expect(s.runs.addMessage('c1', 'user', 'again', null)).toBeGreaterThan(maxId);
    expect(await undoError(s.cps.undo({ conversationId: 'c1', runId: 'r1' }))).toBe('not_found');
    s.db.close();
  });

  it('CKPT-15: files changed after the turn are left as they are and listed', async () => {
    const s = setup();
    writeFileSync(join(s.ws, 'a.txt'), 'a0');
    writeFileSync(join(s.ws, 'b.txt'), 'b0');
    writeFileSync(join(s.ws, 'c.txt'), 'c0');
    await s.turn('r1', () => {
      writeFileSync(join(s.ws, 'a.txt'), 'a1');
      writeFileSync(join(s.ws, 'b.txt'), 'b1');
      writeFileSync(join(s.ws, 'made.txt'), 'agent');
    });
    // After the turn the user edits a.txt, deletes the agent's made.txt and adds mine.txt.
    writeFileSync(join(s.ws, 'a.txt'), 'a-user-edit');
    unlinkSync(join(s.ws, 'made.txt'));
    writeFileSync(join(s.ws, 'mine.txt'), 'user');
    const result = await s.cps.undo({ conversationId: 'c1', runId: 'r1' });
    expect(result.folders[0]).toMatchObject({
      restored: ['b.txt'],
      removed: [],
      changedAfter: ['a.txt', 'made.txt', 'mine.txt'],
    });
    expect(readFileSync(join(s.ws, 'a.txt'), 'utf8')).toBe('a-user-edit');
    expect(readFileSync(join(s.ws, 'b.txt'), 'utf8')).toBe('b0');
    expect(readFileSync(join(s.ws, 'c.txt'), 'utf8')).toBe('c0');
    expect(readFileSync(join(s.ws, 'mine.txt'), 'utf8')).toBe('user');
    s.db.close();
  });

  it('CKPT-16: undo is refused while a run is still working in the conversation or the folder', async () => {
    const s = setup();
    writeFileSync(join(s.ws, 'a.txt'), 'a0');
    await s.turn('r1', () => writeFileSync(join(s.ws, 'a.txt'), 'a1'));
    s.runs.ensureConversation('c2');
    const sameConversation = s.cps.startTurn({ runId: 'live1', conversationId: 'c1', workspace: temp('x-') });
    expect(await undoError(s.cps.undo({ conversationId: 'c1', runId: 'r1' }))).toBe('busy');
    expect(s.cps.list('c1')[0]?.undoable).toBe(false);
    await sameConversation.end();
    const sameFolder = s.cps.startTurn({ runId: 'live2', conversationId: 'c2', workspace: s.ws });
    expect(await undoError(s.cps.undo({ conversationId: 'c1', runId: 'r1' }))).toBe('busy');
    await sameFolder.end();
    expect(readFileSync(join(s.ws, 'a.txt'), 'utf8')).toBe('a1');
    await s.cps.undo({ conversationId: 'c1', runId: 'r1' });
    expect(readFileSync(join(s.ws, 'a.txt'), 'utf8')).toBe('a0');
    s.db.close();
  });

  it('CKPT-17: checkpoints are kept 7 days, then purged (on startup and by the purge)', async () => {
    const s = setup();
    writeFileSync(join(s.ws, 'a.txt'), 'a0');
    await s.turn('r1', () => writeFileSync(join(s.ws, 'a.txt'), 'a1'));
    s.clock.now += CHECKPOINT_RETENTION_MS - 5_000;
    expect(await s.cps.purgeExpired()).toBe(0);
    expect(existsSync(join(s.dataDir, 'checkpoints', 'ck1'))).toBe(true);
    s.clock.now += 10_000;
    // A new process over the same store purges when it recovers.
    const next = new TurnCheckpoints({ db: s.db, dataDir: s.dataDir, now: () => s.clock.now });
    await next.recover();
    expect(existsSync(join(s.dataDir, 'checkpoints', 'ck1'))).toBe(false);
    expect(next.list('c1')[0]?.checkpoint).toMatchObject({ status: 'expired' });
    expect(await undoError(next.undo({ conversationId: 'c1', runId: 'r1' }))).toBe('expired');
    expect(readFileSync(join(s.ws, 'a.txt'), 'utf8')).toBe('a1');
    s.db.close();
  });

  it('CKPT-11/17: links are saved as links and never followed out of the folder, on save or restore', async () => {
    const s = setup();
    writeFileSync(join(s.outside, 'secret-notes.txt'), 'outside content');
    symlinkSync(s.outside, join(s.ws, 'out-link'));
    mkdirSync(join(s.ws, 'sub'));
    writeFileSync(join(s.ws, 'sub', 'a.txt'), 'inside');
    chmodSync(join(s.ws, 'sub', 'a.txt'), 0o640);
    await s.turn('r1', () => {
      // The turn replaces the folder `sub` with a link leading outside.
      rmSync(join(s.ws, 'sub'), { recursive: true });
      symlinkSync(s.outside, join(s.ws, 'sub'));
    });
    const saved = join(s.dataDir, 'checkpoints', 'ck1', 'files');
    expect(lstatSync(join(saved, 'out-link')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(saved, 'out-link'))).toBe(s.outside);
    const result = await s.cps.undo({ conversationId: 'c1', runId: 'r1' });
    expect(lstatSync(join(s.ws, 'sub')).isDirectory()).toBe(true);
    expect(readFileSync(join(s.ws, 'sub', 'a.txt'), 'utf8')).toBe('inside');
    expect(statSync(join(s.ws, 'sub', 'a.txt')).mode & 0o777).toBe(0o640);
    expect(existsSync(join(s.outside, 'a.txt'))).toBe(false);
    expect(readFileSync(join(s.outside, 'secret-notes.txt'), 'utf8')).toBe('outside content');
    expect(result.folders[0]?.removed).toEqual(['sub']);
    s.db.close();
  });

  it('CKPT-12: a save cut off by a restart is "Not saved"; a turn that never listed its end is listed on recovery', async () => {
    const s = setup();
    writeFileSync(join(s.ws, 'a.txt'), 'a0');
    s.runs.ensureConversation('c1');
    for (const id of ['r1', 'r2'])
      s.runs.createRun({
        id,
        conversationId: 'c1',
        taskId: null,
        attemptId: null,
        mode: 'interactive',
        provider: 'fake',
        model: 'm',
        tier: 'standard',
      });
    s.db
      .prepare(
        "INSERT INTO turn_checkpoints (id, run_id, conversation_id, workspace, status, created_at, updated_at) VALUES ('cut', 'r1', 'c1', ?, 'saving', ?, ?)",
      )
      .run(s.ws, s.clock.now, s.clock.now);
    mkdirSync(join(s.dataDir, 'checkpoints', '.tmp-cut'), { recursive: true });
    const handle = s.cps.startTurn({ runId: 'r2', conversationId: 'c1', workspace: s.ws });
    await handle.beforeFirstChange();
    writeFileSync(join(s.ws, 'a.txt'), 'a1'); // the process dies before the turn ends
    const next = new TurnCheckpoints({ db: s.db, dataDir: s.dataDir, now: () => s.clock.now });
    await next.recover();
    expect(existsSync(join(s.dataDir, 'checkpoints', '.tmp-cut'))).toBe(false);
    const views = next.list('c1');
    expect(views[0]?.checkpoint).toMatchObject({ status: 'not_saved', reason: 'interrupted' });
    expect(views[1]?.checkpoint).toMatchObject({ status: 'saved' });
    await next.undo({ conversationId: 'c1', runId: 'r2' });
    expect(readFileSync(join(s.ws, 'a.txt'), 'utf8')).toBe('a0');
    s.db.close();
  });
});
