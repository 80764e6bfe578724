// npm run bench:mcp — p50/p95 of a `memory_search` round trip over stdio: the official MCP SDK
// Client → the real `memories mcp serve` process → the real daemon (local socket) → a vault of
// 10,000 chunks (State of the Union passages, one chunk each) — against the same search sent
// straight over the daemon's IPC socket in the same run (the peer; the ratio is the MCP cost).
// Queries: keyword queries (up to 4 content words of each hand-written paraphrase query of
// bench:retrieval), as agents send them; the full paraphrases are reported too. Lexical search.
// Needs `npm run build` (the script runs it). Prints one JSON line; record in docs/benchmarks.md.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { DaemonClient } from '@arslan/daemon-client';
import { round } from './bench-timer';
import { sotuEvalSet } from './retrieval/retrieval-corpus';

const root = join(__dirname, '..', '..');
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
const STOP = new Set(
  'a an and are as at be by for from in into is it its of on or our the their to was we were with that this by new'.split(
    ' ',
  ),
);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

function keywords(query: string): string {
  return query
    .toLowerCase()
    .split(/[^a-z']+/)
    .filter((w) => w.length > 2 && !STOP.has(w))
    .slice(0, 4)
    .join(' ');
}

async function startDaemon(dataDir: string, config: string): Promise<() => Promise<void>> {
  const child = spawn(
    process.execPath,
    [join(root, 'dist/daemon/daemon.cjs'), '--data', dataDir, '--config', config],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: child.stdout });
  await new Promise<void>((resolve, reject) => {
    lines.on('line', (line) => line.startsWith('ARSLAN_VAULT_SOCKET=') && resolve());
    child.once('exit', (code) => reject(new Error(`daemon exited with ${code}`)));
  });
  return async () => {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  };
}

async function timeEach(
  queries: readonly string[],
  run: (q: string) => Promise<void>,
  rounds: number,
): Promise<number[]> {
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const query of queries) {
      const t0 = performance.now();
      await run(query);
      times.push(performance.now() - t0);
    }
  }
  return times;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'arslan-bench-mcp-'));
  const dataDir = join(work, 'data');
  const config = join(work, 'memories.toml');
  writeFileSync(config, '[rag]\nembedder = "none"\n');
  const stop = await startDaemon(dataDir, config);
  let client: Client | undefined;
  try {
    const ipc = await DaemonClient.connect(dataDir, { timeoutMs: 600_000 });
    await ipc.call('init', { password: 'bench password' });
    const { documents, queries } = sotuEvalSet(join(__dirname, 'retrieval', 'sotu-queries.jsonl'), 10_000);
    const t0 = performance.now();
    for (let i = 0; i < documents.length; i += 1000) {
      const items = documents.slice(i, i + 1000).map((d) => ({ title: d.title, body: d.body }));
      await ipc.call('import', { vault: 'personal', items });
    }
    const importMs = performance.now() - t0;
    const t1 = performance.now();
    const status = await ipc.call('rag_index', { vault: 'personal' });
    const indexMs = performance.now() - t1;
    const grant = await ipc.call('mcp_grant_issue', { vault: 'personal', minutes: 60 });
    const grantFile = join(work, 'bench.grant');
    writeFileSync(
      grantFile,
      JSON.stringify({
        v: 1,
        kind: 'arslan.mcp-grant',
        token: grant.token,
        grant_id: grant.grant_id,
        vault: grant.vault,
        scope: grant.scope,
        expires_at: grant.expires_at,
        data_dir: dataDir,
      }),
      { mode: 0o600 },
    );
    client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(root, 'dist/cli/memories.cjs'), 'mcp', 'serve', '--grant-file', grantFile],
      }),
    );
    const mcp = client;
    const keywordQueries = queries.map((q) => keywords(q.query));
    const paraphrases = queries.map((q) => q.query);
    const viaMcp = async (query: string) => {
      const result = await mcp.callTool({
        name: 'memory_search',
        arguments: { vault: 'personal', query, kind: 'lexical' },
      });
      if (result.isError) throw new Error(`memory_search failed: ${JSON.stringify(result.content)}`);
    };
    const viaIpc = async (query: string) => {
      await ipc.call('search', { vault: 'personal', query, kind: 'lexical' });
    };
    // Warm both paths (JIT, statement caches), then measure them interleaved by round.
    for (const q of keywordQueries.slice(0, 5)) {
      await viaMcp(q);
      await viaIpc(q);
    }
    const mcpTimes: number[] = [];
    const ipcTimes: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      mcpTimes.push(...(await timeEach(keywordQueries, viaMcp, 1)));
      ipcTimes.push(...(await timeEach(keywordQueries, viaIpc, 1)));
    }
    const longMcp = await timeEach(paraphrases, viaMcp, ROUNDS);
    ipc.close();
    const line = {
      bench: 'mcp',
      chunks: status.chunks,
      queries: keywordQueries.length,
      rounds: ROUNDS,
      import_ms: round(importMs, 0),
      index_ms: round(indexMs, 0),
      mcp_search_p50_ms: round(percentile(mcpTimes, 50), 3),
      mcp_search_p95_ms: round(percentile(mcpTimes, 95), 3),
      ipc_search_p50_ms: round(percentile(ipcTimes, 50), 3),
      ipc_search_p95_ms: round(percentile(ipcTimes, 95), 3),
      mcp_paraphrase_p50_ms: round(percentile(longMcp, 50), 3),
      mcp_paraphrase_p95_ms: round(percentile(longMcp, 95), 3),
      ratio_mcp_vs_ipc_p95: round(percentile(mcpTimes, 95) / percentile(ipcTimes, 95), 3),
      target_p95_ms: 15,
      node: process.version,
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  } finally {
    await client?.close().catch(() => undefined);
    await stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
