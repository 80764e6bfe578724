// npm run bench:center — the Center on SQLite (the shipped bundle dist/center/center.cjs, as a
// separate process) against a bare Fastify route (another process) measured in the same run:
// grant issue (POST /v1/vaults/:vault/grants: auth, limit lock, insert, fsync'd audit append)
// and grant-authorised reads (GET /v1/vaults/:vault/whoami with a grant token), both with
// CONCURRENCY requests in flight over keep-alive connections. Prints one JSON line; record
// results in docs/benchmarks.md.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildApps } from '../build/build-apps';
import { round } from './bench-timer';

const root = join(__dirname, '..', '..');
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 3);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 1);
const MAX_ISSUES = 9_000;

function start(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /(?:ARSLAN_CENTER_PORT|BARE_PORT)=(\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
}

interface Result {
  ops_s: number;
  p50_ms: number;
  p99_ms: number;
  n: number;
}

async function load(op: () => Promise<void>, seconds: number, cap = Infinity): Promise<Result> {
  for (let i = 0; i < 50; i++) await op(); // warm-up
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  let started = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end && started < cap) {
        started++;
        const t = performance.now();
        await op();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] as number;
  return {
    ops_s: round(latencies.length / elapsed, 1),
    p50_ms: round(pct(0.5), 3),
    p99_ms: round(pct(0.99), 3),
    n: latencies.length,
  };
}

async function json(res: Response): Promise<Record<string, unknown>> {
  const body = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

async function main(): Promise<void> {
  if (!existsSync(join(root, 'dist/center/center.cjs'))) buildApps();
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-center-'));
  writeFileSync(
    join(dataDir, 'center.json'),
    JSON.stringify({ logLevel: 'warn', rateLimit: { max: 100_000_000, windowMs: 60_000 } }),
  );
  const center = await start([
    join(root, 'dist/center/center.cjs'),
    'serve',
    '--data',
    dataDir,
    '--port',
    '0',
  ]);
  const bare = await start([
    '-e',
    `const f = require('fastify')(); f.get('/bare', async () => ({ kind: 'grant', name: 'olga', scope: 'read', depth: 1 }));
     f.listen({ port: 0, host: '127.0.0.1' }).then(() => console.log('BARE_PORT=' + f.server.address().port));`,
  ]);
  try {
    const base = `http://127.0.0.1:${center.port}`;
    const admin = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const adminHeaders = { authorization: `Bearer ${admin}`, 'content-type': 'application/json' };
    const member = await json(
      await fetch(`${base}/v1/admin/members`, {
        method: 'POST',
        headers: adminHeaders,
        body: '{"name":"olga"}',
      }),
    );
    await json(
      await fetch(`${base}/v1/admin/vaults/bench/members/olga`, {
        method: 'PUT',
        headers: adminHeaders,
        body: '{"role":"owner"}',
      }),
    );
    const ownerHeaders = {
      authorization: `Bearer ${String(member.credential)}`,
      'content-type': 'application/json',
    };
    const issueBody = JSON.stringify({ to: 'olga', scope: 'read', minutes: 60 });
    const issue = await load(
      async () => {
        await json(
          await fetch(`${base}/v1/vaults/bench/grants`, {
            method: 'POST',
            headers: ownerHeaders,
            body: issueBody,
          }),
        );
      },
      SECONDS,
      MAX_ISSUES,
    );
    const grant = await json(
      await fetch(`${base}/v1/vaults/bench/grants`, {
        method: 'POST',
        headers: ownerHeaders,
        body: issueBody,
      }),
    );
    const readHeaders = { authorization: `Bearer ${String(grant.token)}` };
    const bareUrl = `http://127.0.0.1:${bare.port}/bare`;
    // Interleave read and bare slices so machine load hits both alike.
    const reads: Result[] = [];
    const bares: Result[] = [];
    for (let i = 0; i < 3; i++) {
      reads.push(
        await load(
          async () =>
            void (await json(await fetch(`${base}/v1/vaults/bench/whoami`, { headers: readHeaders }))),
          SECONDS / 3,
        ),
      );
      bares.push(await load(async () => void (await json(await fetch(bareUrl))), SECONDS / 3));
    }
    const merge = (rs: Result[]): Result => ({
      ops_s: round(rs.reduce((s, r) => s + r.ops_s, 0) / rs.length, 1),
      p50_ms: round(Math.max(...rs.map((r) => r.p50_ms)), 3),
      p99_ms: round(Math.max(...rs.map((r) => r.p99_ms)), 3),
      n: rs.reduce((s, r) => s + r.n, 0),
    });
    const read = merge(reads);
    const bareR = merge(bares);
    console.log(
      JSON.stringify({
        bench: 'center',
        db: 'sqlite',
        concurrency: CONCURRENCY,
        issue_ops_s: issue.ops_s,
        issue_p50_ms: issue.p50_ms,
        issue_p99_ms: issue.p99_ms,
        read_ops_s: read.ops_s,
        read_p50_ms: read.p50_ms,
        read_p99_ms: read.p99_ms,
        bare_ops_s: bareR.ops_s,
        bare_p99_ms: bareR.p99_ms,
        ratio_read_vs_bare: round(read.ops_s / bareR.ops_s, 3),
        ratio_issue_vs_bare: round(issue.ops_s / bareR.ops_s, 3),
        node: process.version,
      }),
    );
  } finally {
    center.child.kill('SIGTERM');
    bare.child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
