import { createHash } from 'node:crypto';
import { promises as fsp, mkdtempSync, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ToolContext } from '../ports/tool.port';
import { createAttachFileTool } from './attach-file';
import { createMemoryPlanStore, createPlanTool } from './plan-tool';
import { createRecallTool } from './recall-tool';

let base: string;
let ws: string;
let dataDir: string;

function ctx(runId = 'run1'): ToolContext {
  return {
    workspace: ws,
    dataDir,
    runId,
    callId: 'call1',
    turn: { externalContentRead: false },
    signal: new AbortController().signal,
    remainingMs: 60_000,
    attended: true,
  };
}

beforeEach(async () => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'arslan-misc-')));
  ws = path.join(base, 'ws');
  dataDir = path.join(ws, 'appdata');
  await fsp.mkdir(ws);
  await fsp.mkdir(dataDir);
});
afterEach(async () => {
  await fsp.rm(base, { recursive: true, force: true });
});

describe('attach_file (FILE-07/08)', () => {
  it('FILE-07: attaches a readable file with its sha256; needs no card', async () => {
    await fsp.writeFile(path.join(ws, 'chart.png'), 'PNGDATA');
    const tool = createAttachFileTool();
    expect(tool.approval({ path: 'chart.png' }, ctx())).toBeNull();
    const r = await tool.execute({ path: 'chart.png' }, ctx());
    expect(r.artifacts).toEqual([
      {
        path: path.join(ws, 'chart.png'),
        sha256: createHash('sha256').update('PNGDATA').digest('hex'),
        bytes: 7,
      },
    ]);
  });

  it('FILE-08: refuses hidden/credential names, escaping links, own data, > 20 MB and beyond the per-run max', async () => {
    const tool = createAttachFileTool({ maxPerRun: 2 });
    await fsp.writeFile(path.join(ws, '.env'), 'S');
    await fsp.writeFile(path.join(ws, 'id_ed25519'), 'S');
    await fsp.writeFile(path.join(base, 'outside.txt'), 'S');
    await fsp.symlink(path.join(base, 'outside.txt'), path.join(ws, 'link.txt'));
    await fsp.writeFile(path.join(dataDir, 'db.sqlite'), 'S');
    const big = await fsp.open(path.join(ws, 'big.bin'), 'w');
    await big.truncate(20 * 1024 * 1024 + 1);
    await big.close();
    for (const p of [
      '.env',
      'id_ed25519',
      'link.txt',
      '../outside.txt',
      'appdata/db.sqlite',
      'big.bin',
      'missing.txt',
    ]) {
      const r = await tool.execute({ path: p }, ctx());
      expect([p, r.isError]).toEqual([p, true]);
      expect(r.artifacts).toBeUndefined();
    }
    await fsp.writeFile(path.join(ws, 'a.txt'), 'a');
    expect((await tool.execute({ path: 'a.txt' }, ctx())).isError).toBeUndefined();
    expect((await tool.execute({ path: 'a.txt' }, ctx())).isError).toBeUndefined();
    const third = await tool.execute({ path: 'a.txt' }, ctx());
    expect(third.isError).toBe(true);
    expect(third.content).toMatch(/at most 2/);
    expect((await tool.execute({ path: 'a.txt' }, ctx('run2'))).isError).toBeUndefined();
  });
});

describe('plan', () => {
  it('records and updates the steps of a run without a card', async () => {
    const store = createMemoryPlanStore();
    const tool = createPlanTool(store);
    expect(tool.readOnly).toBe(true);
    expect(tool.approval({ steps: [] }, ctx())).toBeNull();
    const first = await tool.execute({ steps: [{ title: 'Read', status: 'pending' }] }, ctx());
    expect(first.content).toMatch(/Plan recorded/);
    const second = await tool.execute(
      {
        steps: [
          { title: 'Read', status: 'done' },
          { title: 'Write', status: 'in_progress' },
        ],
      },
      ctx(),
    );
    expect(second.content).toContain('[x] 1. Read');
    expect(store.get('run1')).toHaveLength(2);
  });
});

describe('recall', () => {
  it('returns vault passages with citations as external data', async () => {
    const tool = createRecallTool({
      retrieve: async (query, limit) => [
        { citation: 'vault://n/1#p2', title: 'Note', text: `about ${query} (${limit})` },
      ],
    });
    const r = await tool.execute({ query: 'tax', limit: 3 }, ctx());
    expect(r.external).toBe(true);
    expect(r.content).toContain('[1] Note (vault://n/1#p2)');
    const failing = createRecallTool({ retrieve: async () => Promise.reject(new Error('locked')) });
    expect((await failing.execute({ query: 'x', limit: 1 }, ctx())).isError).toBe(true);
  });
});
