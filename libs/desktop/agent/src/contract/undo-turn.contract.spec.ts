// Contract scenario: "undo this turn" (CKPT-11..16) over the REAL runtime, loop and tools, driven
// over REAL HTTP by the scripted provider server.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UndoError } from '../checkpoints/undo.errors';
import { contractSuite, notices, openHarness, text, toolCalls } from './contract-harness';

jest.setTimeout(30_000);

const suite = contractSuite();

describe('CKPT: undo this turn over the real loop', () => {
  it('CKPT-11/14/15: tools change the folder in two turns; undo of the first restores it and removes both turns', async () => {
    suite.h = openHarness(suite.server, 'anthropic');
    const ws = suite.h.workspace;
    writeFileSync(join(ws, 'readme.md'), '# original\n');
    writeFileSync(join(ws, 'keep.txt'), 'untouched');
    const headless = { attended: false, allow: ['workspace_write', 'command'] as const };

    suite.server.enqueue(
      toolCalls([
        { name: 'write_file', args: { path: 'readme.md', content: '# rewritten\n' }, id: 'call_u1' },
        { name: 'write_file', args: { path: 'docs/new.md', content: 'new page' }, id: 'call_u2' },
      ]),
      text('Rewrote the readme and added docs/new.md.'),
    );
    const first = suite.h.start({
      message: 'turn one: rewrite the readme',
      ...headless,
      allow: [...headless.allow],
    });
    expect((await first.result).status).toBe('succeeded');
    expect(notices(first.events)).toEqual(['checkpoint_saved']); // one save for the turn's two writes
    expect(readFileSync(join(ws, 'readme.md'), 'utf8')).toBe('# rewritten\n');
    const { conversationId } = first;

    suite.server.enqueue(
      toolCalls([
        { name: 'terminal', args: { command: 'echo shell > shell.txt' }, id: 'call_u3' },
        {
          name: 'edit_file',
          args: { path: 'docs/new.md', old_string: 'new page', new_string: 'edited page' },
          id: 'call_u4',
        },
      ]),
      text('Ran the command and edited the page.'),
    );
    const second = suite.h.start({
      message: 'turn two: run and edit',
      conversationId,
      ...headless,
      allow: [...headless.allow],
    });
    expect((await second.result).status).toBe('succeeded');
    expect(notices(second.events)).toEqual(['checkpoint_saved']);
    expect(readFileSync(join(ws, 'shell.txt'), 'utf8')).toBe('shell\n');

    // The user edits a file after the turns: undo leaves it and lists it (CKPT-15).
    writeFileSync(join(ws, 'keep.txt'), 'the user changed this later');

    const turns = suite.h.runtime.service.listTurns(conversationId);
    expect(turns.map((t) => [t.runId, t.checkpoint?.status, t.undoable])).toEqual([
      [first.runId, 'saved', true],
      [second.runId, 'saved', true],
    ]);

    const undone = await suite.h.runtime.service.undoTurn(conversationId, first.runId);
    expect(undone.undoneRunIds).toEqual([first.runId, second.runId]);
    expect(undone.folders).toEqual([
      expect.objectContaining({
        workspace: ws,
        restored: ['readme.md'],
        removed: ['docs/', 'docs/new.md', 'shell.txt'],
        changedAfter: ['keep.txt'],
      }),
    ]);
    expect(readFileSync(join(ws, 'readme.md'), 'utf8')).toBe('# original\n');
    expect(existsSync(join(ws, 'docs'))).toBe(false);
    expect(existsSync(join(ws, 'shell.txt'))).toBe(false);
    expect(readFileSync(join(ws, 'keep.txt'), 'utf8')).toBe('the user changed this later');
    expect(suite.h.runtime.service.runs.listMessages(conversationId)).toEqual([]);
    expect(suite.h.runtime.service.listTurns(conversationId)).toEqual([]);

    // The next turn's model request no longer carries the undone turns (CKPT-14).
    suite.server.enqueue(text('Fresh start.'));
    const third = suite.h.start({
      message: 'turn three',
      conversationId,
      ...headless,
      allow: [...headless.allow],
    });
    expect((await third.result).answer).toBe('Fresh start.');
    const sent = JSON.stringify(suite.server.requests.at(-1)!.body);
    expect(sent).toContain('turn three');
    expect(sent).not.toContain('turn one');
    expect(sent).not.toContain('turn two');
    expect(notices(third.events)).toEqual([]); // no change, no save
  });

  it('CKPT-16: undo is refused while the conversation still has a running turn', async () => {
    suite.h = openHarness(suite.server, 'openai-compatible');
    writeFileSync(join(suite.h.workspace, 'a.txt'), 'a0');
    suite.server.enqueue(
      toolCalls([{ name: 'write_file', args: { path: 'a.txt', content: 'a1' }, id: 'call_b1' }]),
      text('Done.'),
    );
    const first = suite.h.start({ message: 'write', attended: false, allow: ['workspace_write'] });
    await first.result;
    suite.server.enqueue({ ...text('slow'), headersDelayMs: 500 });
    const running = suite.h.start({ message: 'think', conversationId: first.conversationId });
    const refused = await suite.h.runtime.service
      .undoTurn(first.conversationId, first.runId)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UndoError);
    expect((refused as UndoError).code).toBe('busy');
    expect(readFileSync(join(suite.h.workspace, 'a.txt'), 'utf8')).toBe('a1');
    await running.result;
  });
});
