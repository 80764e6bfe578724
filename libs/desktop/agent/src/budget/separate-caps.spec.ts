import { existsSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tool } from '../ports';
import { FakeProvider, calls, makeService, reply } from '../loop/test-fakes';
import { createWriteFileTool } from '../tools/file-tools';

// BUD-08: the per-response output limit and the artifact size limit are their own caps: no tier
// raises or lowers them, and hitting them is not a budget stop.
describe('BUD-08: separate caps', () => {
  let ws: string;
  beforeEach(() => {
    ws = realpathSync(mkdtempSync(join(tmpdir(), 'bud08-')));
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));

  const writer = (maxWriteBytes: number): Tool =>
    ({ ...createWriteFileTool({ maxWriteBytes }), approval: () => null }) as unknown as Tool;

  it.each(['light', 'standard', 'deep'] as const)(
    'BUD-08: every request of a %s run carries the same per-response output limit',
    async (tier) => {
      const provider = new FakeProvider([
        calls(['c1', 'write_file', { path: 'a.txt', content: 'a' }]),
        reply('ok'),
      ]);
      const { service } = makeService([writer(100)], { maxOutputTokens: 1234 });
      const result = await service.startRun({
        workspace: ws,
        model: 'm',
        attended: true,
        message: 'x',
        provider,
        tier,
      }).result;
      expect(result.status).toBe('succeeded');
      expect(provider.requests.map((r) => r.maxOutputTokens)).toEqual([1234, 1234]);
    },
  );

  it('BUD-08: the artifact size limit refuses a too-large file even with a deep budget untouched', async () => {
    const provider = new FakeProvider([
      calls(['big', 'write_file', { path: 'big.txt', content: 'x'.repeat(101) }]),
      calls(['fits', 'write_file', { path: 'fits.txt', content: 'x'.repeat(100) }]),
      reply('done'),
    ]);
    const { service } = makeService([writer(100)]);
    const result = await service.startRun({
      workspace: ws,
      model: 'm',
      attended: true,
      message: 'x',
      provider,
      tier: 'deep',
    }).result;
    expect(result.steps.map((s) => [s.callId, s.outcome])).toEqual([
      ['big', 'error'],
      ['fits', 'ok'],
    ]);
    expect(result.steps[0]!.detail).toMatch(/larger than 100 bytes/);
    expect(existsSync(join(ws, 'big.txt'))).toBe(false);
    expect(statSync(join(ws, 'fits.txt')).size).toBe(100);
    // Not a budget event: the run went on and finished normally.
    expect(result.status).toBe('succeeded');
    expect(result.notices.join(' ')).not.toMatch(/budget|Wrapping up/i);
  });

  it('BUD-08: hitting the output limit is reported as truncation, not as a budget limit', async () => {
    const provider = new FakeProvider([{ ...reply('partial answ'), stopReason: 'max_tokens' }]);
    const { service } = makeService([], { maxOutputTokens: 10 });
    const result = await service.startRun({
      workspace: ws,
      model: 'm',
      attended: true,
      message: 'x',
      provider,
    }).result;
    expect(result.status).toBe('succeeded');
    expect(result.notices).toContain('The answer was cut off by the output limit.');
    expect(result.notices.join(' ')).not.toMatch(/budget/i);
  });
});
