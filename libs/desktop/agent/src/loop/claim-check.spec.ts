import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tool } from '../ports';
import { createWriteFileTool } from '../tools/file-tools';
import { findUnverifiedClaims } from './claim-check';
import { FakeProvider, calls, fakeTool, makeService, reply } from './test-fakes';

const none = { artifacts: [], succeededTools: new Set<string>(), workspace: '/ws' };

describe('LOOP-11: claims need results', () => {
  it('LOOP-11: a file claimed as saved without an artifact reference is unverified', () => {
    expect(findUnverifiedClaims('I saved the report to `out/report.md`.', none)).toEqual([
      { kind: 'file', subject: 'out/report.md' },
    ]);
    expect(
      findUnverifiedClaims('I saved the report to out/report.md.', {
        ...none,
        artifacts: ['/ws/out/report.md'],
      }),
    ).toEqual([]);
  });

  it('LOOP-11: text that merely mentions files, URLs, versions or code is not a claim', () => {
    expect(findUnverifiedClaims('You could create notes.md yourself.', none)).toEqual([]);
    expect(findUnverifiedClaims('Read README.md for details.', none)).toEqual([]);
    expect(findUnverifiedClaims('It was updated in v2.3.1, see https://x.example/a.html.', none)).toEqual([]);
    expect(findUnverifiedClaims('Example:\n```\nI saved x.txt\n```', none)).toEqual([]);
  });

  it('LOOP-11: "I ran the tests" without a successful terminal call is unverified', () => {
    expect(findUnverifiedClaims('I ran the tests and they passed.', none)).toHaveLength(1);
    expect(
      findUnverifiedClaims('I ran the tests and they passed.', {
        ...none,
        succeededTools: new Set(['terminal']),
      }),
    ).toEqual([]);
  });

  describe('in the loop', () => {
    let ws: string;
    beforeEach(() => {
      ws = realpathSync(mkdtempSync(join(tmpdir(), 'claims-')));
    });
    afterEach(() => rmSync(ws, { recursive: true, force: true }));

    const write = (): Tool => ({ ...createWriteFileTool(), approval: () => null }) as unknown as Tool;

    it('LOOP-11: a file written by a successful write_file backs the claim (no correction)', async () => {
      const provider = new FakeProvider([
        calls(['c1', 'write_file', { path: 'notes/plan.md', content: '# plan' }]),
        reply('I saved the plan to notes/plan.md.'),
      ]);
      const { service } = makeService([write()]);
      const result = await service.startRun({
        workspace: ws,
        model: 'm',
        attended: true,
        message: 'x',
        provider,
      }).result;
      expect(result.steps[0]).toMatchObject({ tool: 'write_file', outcome: 'ok' });
      expect(result.answer).toBe('I saved the plan to notes/plan.md.');
      expect(result.notices.join(' ')).not.toMatch(/no evidence/);
    });

    it('LOOP-11: a promise in text (failed write, or no call at all) gets a correction after the answer', async () => {
      const failing = fakeTool('write_file', {
        readOnly: false,
        execute: () => ({ content: 'disk full', isError: true }),
      });
      const provider = new FakeProvider([
        calls(['c1', 'write_file', { value: 'summary.txt' }]),
        reply('Done: I created summary.txt and saved `data/export.csv`.'),
      ]);
      const { service } = makeService([failing]);
      const run = service.startRun({ workspace: ws, model: 'm', attended: true, message: 'x', provider });
      const result = await run.result;
      // LOOP-14: the answer itself is kept as written; the correction follows it.
      expect(result.answer).toBe('Done: I created summary.txt and saved `data/export.csv`.');
      const notice = result.notices.find((n) => n.includes('no evidence'));
      expect(notice).toContain('summary.txt');
      expect(notice).toContain('data/export.csv');
      // Persisted with the run's events (CKPT-02), so every surface sees the correction.
      const events = service.runs.loadEvents(run.runId);
      expect(events).toContainEqual(
        expect.objectContaining({
          type: 'notice',
          payload: expect.objectContaining({ code: 'unverified_claim' }),
        }),
      );
    });
  });
});
