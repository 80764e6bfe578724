import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IPC_EXIT_CODES } from '@arslan/protocol';
import { fakeDaemon, run } from './testing/fake-cli';

describe('retrieval commands', () => {
  it('search sends the query, mode, kind and limit; --json prints the result', async () => {
    const daemon = fakeDaemon();
    const r = await run(daemon, [
      'search',
      'red apples',
      '--mode',
      'all',
      '--kind',
      'lexical',
      '--limit',
      '7',
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(daemon.calls.at(-1)).toEqual({
      op: 'search',
      args: { query: 'red apples', mode: 'all', kind: 'lexical', limit: 7 },
    });
    expect(JSON.parse(r.stdout)).toEqual({ vault: 'default', kind: 'lexical', hits: [] });
  });

  it('bad --mode, --kind and --limit are usage errors before any daemon contact', async () => {
    for (const argv of [
      ['search', 'q', '--mode', 'near'],
      ['retrieve', 'q', '--kind', 'fts'],
      ['rag', 'search', 'q', '--limit', '0'],
      ['rag', 'ask', 'q', '--limit', 'x'],
    ]) {
      const daemon = fakeDaemon();
      const r = await run(daemon, argv);
      expect(r.code).toBe(1);
      expect(daemon.connects).toBe(0);
    }
  });

  it('rag ask prints insufficient evidence; rag status and rag index call their ops', async () => {
    const daemon = fakeDaemon();
    const ask = await run(daemon, ['rag', 'ask', 'why?']);
    expect(ask.stdout).toContain('insufficient evidence');
    expect((await run(daemon, ['rag', 'status', '--vault', 'work'])).code).toBe(0);
    expect((await run(daemon, ['rag', 'index'])).code).toBe(0);
    expect(daemon.calls.map((c) => c.op)).toEqual(['rag_ask', 'rag_status', 'rag_index']);
  });

  it('rag model-install refuses the unpinned manifest with manifest_unpinned', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arslan-cli-model-'));
    try {
      writeFileSync(join(dir, 'x'), '');
      const r = await run(fakeDaemon(), [
        '--data',
        join(dir, 'data'),
        'rag',
        'model-install',
        '--from',
        dir,
        '--json',
      ]);
      expect(r.code).toBe(IPC_EXIT_CODES.model_failed);
      expect(JSON.parse(r.stdout)).toEqual({
        ok: false,
        error: expect.objectContaining({ code: 'manifest_unpinned' }),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
