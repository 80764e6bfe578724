import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IPC_EXIT_CODES } from '@arslan/protocol';
import { repoRoot } from '../../support/bundle-entry';

// End to end: the built `memories` CLI against a real daemon started with a config file
// (`embedder = "none"`, generation on a loopback fake OpenAI-compatible server run by this test).

jest.setTimeout(120_000);

const launcher = join(repoRoot, 'apps/cli/bin/memories.cjs');
const PASSWORD = 'e2e rag password';

interface Run {
  status: number;
  stdout: string;
  stderr: string;
  json: Record<string, unknown>;
}

// Async (not spawnSync): the fake model server runs in this process and must keep answering.
function memories(work: string, args: string[], stdin = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [launcher, '--data', join(work, 'data'), '--config', join(work, 'memories.toml'), ...args],
      { env: { ...process.env, XDG_CONFIG_HOME: join(work, 'config') } },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status) => {
      let json: Record<string, unknown> = {};
      if (args.includes('--json') && stdout.trim() !== '')
        json = JSON.parse(stdout) as Record<string, unknown>;
      resolve({ status: status ?? -1, stdout, stderr, json });
    });
    child.stdin.end(stdin);
  });
}

describe('retrieval through the CLI and a real daemon', () => {
  let work: string;
  let server: Server;
  const requests: string[] = [];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'arslan-rag-e2e-'));
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      req.on('end', () => {
        requests.push(raw);
        const body = JSON.parse(raw) as { messages: { role: string; content: string }[] };
        const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
        const id = /<<<SOURCE (S\d+) /.exec(user)?.[1] ?? 'S1';
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            choices: [
              { message: { content: JSON.stringify({ answer: `Room 42 [${id}].`, citations: [id] }) } },
            ],
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    writeFileSync(
      join(work, 'memories.toml'),
      [
        '[rag]',
        'embedder = "none"',
        '[rag.generation]',
        `base_url = "http://127.0.0.1:${port}/v1"`,
        'model = "fake-model"',
        '',
      ].join('\n'),
    );
    const start = await memories(work, ['daemon', 'start', '--json']);
    expect(start.status).toBe(0);
    expect((await memories(work, ['init', '--password-stdin', '--json'], `${PASSWORD}\n`)).status).toBe(0);
  });

  afterAll(async () => {
    await memories(work, ['daemon', 'stop']);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(work, { recursive: true, force: true });
  });

  it('CFG-2: the daemon refuses a config with an unknown key before opening the store', async () => {
    const bad = join(work, 'bad.toml');
    writeFileSync(bad, '[rag]\nembedder = "none"\nsecret_key = "x"\n');
    const daemon = spawnSync(
      process.execPath,
      [join(repoRoot, 'dist/daemon/daemon.cjs'), '--data', join(work, 'other'), '--config', bad],
      { encoding: 'utf8', timeout: 20_000 },
    );
    expect(daemon.status).toBe(1);
    expect(daemon.stderr).toContain('unknown key rag.secret_key');
    expect(existsSync(join(work, 'other'))).toBe(false);
  });

  it('search, retrieve, rag status, rag ask, and locked after lock', async () => {
    const note = await memories(work, [
      'write',
      '--title',
      'Meeting room',
      '--body',
      'The quarterly review is in room 42 on the third floor.',
      '--json',
    ]);
    expect(note.status).toBe(0);
    const id = note.json['asset_id'] as string;
    expect(
      (await memories(work, ['write', '--title', 'Shopping', '--body', 'milk and bread', '--json'])).status,
    ).toBe(0);

    const search = await memories(work, ['search', 'quarterly review', '--json']);
    expect(search.status).toBe(0);
    expect(search.json['kind']).toBe('lexical');
    const hits = search.json['hits'] as { asset_id: string; matching_chunks: number }[];
    expect(hits.map((h) => h.asset_id)).toEqual([id]);

    const retrieve = await memories(work, ['retrieve', 'room', '--mode', 'all', '--limit', '3', '--json']);
    expect(retrieve.status).toBe(0);
    const chunk = (retrieve.json['chunks'] as Record<string, unknown>[])[0]!;
    expect(chunk).toEqual(
      expect.objectContaining({
        asset_id: id,
        revision_id: note.json['revision_id'],
        citation: '[S1]',
        byte_start: 0,
        byte_end: Buffer.byteLength('The quarterly review is in room 42 on the third floor.'),
      }),
    );
    expect(chunk['chunk_id']).toMatch(/^[0-9a-f]{64}$/);

    const status = await memories(work, ['rag', 'status', '--json']);
    expect(status.json).toEqual(
      expect.objectContaining({ vault: 'personal', indexed: true, chunks: 2, embedder: null }),
    );

    const ask = await memories(work, ['rag', 'ask', 'where is the quarterly review', '--json']);
    expect(ask.status).toBe(0);
    expect(ask.json['status']).toBe('answered');
    expect(ask.json['answer']).toContain('Room 42');
    expect((ask.json['citations'] as { asset_id: string }[]).map((c) => c.asset_id)).toEqual([id]);
    expect(requests).toHaveLength(1);
    expect(requests[0]).not.toContain('milk and bread');

    const none = await memories(work, ['rag', 'ask', 'volcanic eruptions', '--json']);
    expect(none.status).toBe(0);
    expect(none.json).toEqual({
      vault: 'personal',
      status: 'insufficient_evidence',
      answer: null,
      citations: [],
    });
    expect(requests).toHaveLength(1);

    expect((await memories(work, ['lock', '--json'])).status).toBe(0);
    const locked = await memories(work, ['search', 'room', '--json']);
    expect(locked.status).toBe(IPC_EXIT_CODES.locked);
    expect(locked.json).toEqual({ ok: false, error: expect.objectContaining({ code: 'locked' }) });
  });

  it('rag model-install refuses the unpinned shipped manifest', async () => {
    const run = await memories(work, ['rag', 'model-install', '--from', work, '--json']);
    expect(run.status).toBe(IPC_EXIT_CODES.model_failed);
    expect(run.json).toEqual({ ok: false, error: expect.objectContaining({ code: 'manifest_unpinned' }) });
  });
});
