import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openAgentDb } from '../store/agent-db';
import { RunService } from '../loop/run-service';
import { StaticToolCatalog } from '../loop/tool-catalog';
import { FakeProvider, calls, fakeTool, flush, reply } from '../loop/test-fakes';
import { ReconcileError } from './unknown-effect';

// A crash while a side-effect operation (and a read) were in flight; a second service on the same
// database is the restart.
async function crashedRun(hangOn: 'send' | 'read' = 'send') {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'arslan-unknown-')), 'agent.db');
  const hang = () => new Promise<never>(() => undefined);
  const send = fakeTool('send_mail', {
    readOnly: false,
    approval: (args) => ({ kind: 'send', summary: `mail ${args.value ?? ''}` }),
    execute: hang,
  });
  const read = fakeTool('read_file', hangOn === 'read' ? { execute: hang } : {});
  const deps = {
    tools: () => new StaticToolCatalog([send, read]),
    wrapExternal: (c: string) => c,
    wrapToolOutput: (c: string) => c,
    dataDir: '/tmp',
  };
  const first = new RunService({ ...deps, db: openAgentDb(file).db });
  const started = first.startRun({
    workspace: '/tmp',
    model: 'm',
    message: 'mail bob and read notes',
    attended: false,
    allow: ['send'],
    provider: new FakeProvider([
      hangOn === 'read'
        ? calls(['r1', 'read_file', { value: 'notes' }])
        : calls(['r1', 'read_file', { value: 'notes' }], ['s1', 'send_mail', { value: 'bob' }]),
    ]),
  });
  await flush(30);
  const tools = { send, read };
  const restart = () => new RunService({ ...deps, db: openAgentDb(file).db });
  return { first, started, restart, tools, deps, file };
}

describe('CKPT-06/09: unknown-effect operations after an interruption', () => {
  it("CKPT-09: only the side-effect operation needs the user's check, the pure read does not", async () => {
    const { first, started, restart } = await crashedRun();
    const second = restart();
    const pending = second.unknownEffects.needsCheck(started.conversationId);
    expect(pending).toEqual([
      { runId: started.runId, callId: 's1', tool: 'send_mail', kind: 'send', summary: 'mail bob' },
    ]);
    first.stop(started.runId);
    // A crash during a pure read leaves nothing to check.
    const reading = await crashedRun('read');
    const after = reading.restart();
    expect(after.recovered.interruptedRuns).toEqual([reading.started.runId]);
    expect(after.unknownEffects.needsCheck(reading.started.conversationId)).toEqual([]);
    reading.first.stop(reading.started.runId);
  });

  it('CKPT-06: the same operation is not resent until it is reconciled; the next turn is told to check', async () => {
    const { first, started, restart, tools } = await crashedRun();
    const second = restart();
    first.stop(started.runId);
    tools.send.executed.length = 0;
    const again = second.startRun({
      workspace: '/tmp',
      conversationId: started.conversationId,
      model: 'm',
      message: 'continue',
      attended: false,
      allow: ['send'],
      provider: new FakeProvider([
        calls(['s2', 'send_mail', { value: 'bob' }]),
        reply('I could not confirm the earlier mail.'),
      ]),
    });
    const result = await again.result;
    expect(tools.send.executed).toEqual([]);
    expect(result.steps).toEqual([expect.objectContaining({ callId: 's2', outcome: 'unreconciled' })]);
    expect(result.notices.join(' ')).toMatch(/Needs your check: 1 earlier operation.*send_mail: mail bob/);
    // A different operation is not held up by it.
    expect(second.unknownEffects.blocking(started.conversationId, 'send_mail', 'mail alice')).toBeUndefined();
  });

  it('CKPT-06: once reconciled (by the user or a check) it no longer needs a check; only unknown rows change', async () => {
    const { first, started, restart } = await crashedRun();
    const second = restart();
    first.stop(started.runId);
    second.unknownEffects.reconcile(started.runId, 's1', 'failed');
    expect(second.unknownEffects.needsCheck(started.conversationId)).toEqual([]);
    expect(second.runs.listActions({ runId: started.runId })).toEqual([
      expect.objectContaining({ callId: 's1', state: 'failed' }),
    ]);
    expect(() => second.unknownEffects.reconcile(started.runId, 's1', 'confirmed')).toThrow(ReconcileError);
    expect(() => second.unknownEffects.reconcile(started.runId, 'r1', 'confirmed')).toThrow(ReconcileError);
  });
});
