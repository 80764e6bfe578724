// `arslan-center serve` and `arslan-center audit verify` as real processes, from an esbuild
// bundle made the way `npm run build` makes dist/center/center.cjs (npm packages external).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';

jest.setTimeout(60_000);

const root = join(__dirname, '..', '..', '..', '..');
const NODE_ENV = process.env;

function bundle(outDir: string): string {
  const { compilerOptions } = JSON.parse(readFileSync(join(root, 'tsconfig.base.json'), 'utf8')) as {
    compilerOptions: { paths: Record<string, string[]> };
  };
  const alias = Object.fromEntries(
    Object.entries(compilerOptions.paths).map(([k, [v]]) => [k, join(root, v as string)]),
  );
  const out = join(outDir, 'center.cjs');
  buildSync({
    entryPoints: [join(root, 'apps/center/src/main.ts')],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    alias,
    logLevel: 'error',
    absWorkingDir: root,
  });
  return out;
}

function serve(
  bin: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ port: number; output: () => string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [bin, 'serve', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /ARSLAN_CENTER_PORT=(\d+)/.exec(out);
      if (m) {
        resolve({
          port: Number(m[1]),
          output: () => out + err,
          stop: () =>
            new Promise((done) => {
              child.once('exit', (code) => done(code));
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}${out}`)));
  });
}

describe('arslan-center CLI', () => {
  let dir: string;
  let binDir: string;
  let bin: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'center-cli-'));
    mkdirSync(join(root, 'dist'), { recursive: true });
    // Inside the repo (dist/ is ignored) so the bundle resolves node_modules like dist/center does;
    // Prisma's runtime import()s its wasm compiler relative to the bundle, so NODE_PATH would not do.
    binDir = mkdtempSync(join(root, 'dist', 'center-e2e-'));
    bin = bundle(binDir);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(binDir, { recursive: true, force: true });
  });

  it('serve --data DIR --port 0 starts on SQLite with no setup; audit verify detects one tampered line (AUD-3)', async () => {
    const data = join(dir, 'data');
    const center = await serve(bin, ['--data', data, '--port', '0']);
    try {
      const base = `http://127.0.0.1:${center.port}`;
      expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: 'ok', database: 'sqlite' });
      const admin = readFileSync(join(data, 'admin-token'), 'utf8').trim();
      const credentials: string[] = [];
      for (const name of ['ann', 'bob', 'cy']) {
        const res = await fetch(`${base}/v1/admin/members`, {
          method: 'POST',
          headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name }),
        });
        expect(res.status).toBe(201);
        credentials.push(((await res.json()) as { credential: string }).credential);
      }
      // pino JSON logs (info level) never carry the bearer or the credentials.
      const logged = center.output();
      expect(logged).toMatch(/"level":30/);
      for (const secret of [admin, ...credentials]) expect(logged).not.toContain(secret);
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toMatch(
        /arslan_center_http_requests_total\{method="POST",route="\/v1\/admin\/members",status="201"\} 3/,
      );
    } finally {
      expect(await center.stop()).toBe(0);
    }
    const ok = spawnSync(process.execPath, [bin, 'audit', 'verify', '--data', data], {
      encoding: 'utf8',
      env: NODE_ENV,
    });
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/audit ok: 3 entries/);
    const file = join(data, 'audit.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[1] = (lines[1] as string).replace('"member":"bob"', '"member":"eve"');
    writeFileSync(file, lines.join('\n'));
    const bad = spawnSync(process.execPath, [bin, 'audit', 'verify', '--data', data], {
      encoding: 'utf8',
      env: NODE_ENV,
    });
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(/audit FAILED at line 2/);
  }, 30_000);

  it('refuses a bad configuration at start with a clear error (exit 2)', () => {
    const data = join(dir, 'bad');
    spawnSync('mkdir', ['-p', data]);
    writeFileSync(join(data, 'center.json'), JSON.stringify({ mode: 'cloud', port: 1 }));
    const res = spawnSync(process.execPath, [bin, 'serve', '--data', data], {
      encoding: 'utf8',
      env: NODE_ENV,
    });
    expect(res.status).toBe(2);
    expect(res.stderr).toMatch(/invalid Center configuration/);
    expect(res.stderr).toMatch(/mode/);
    const flag = spawnSync(process.execPath, [bin, 'serve', '--data', data, '--bogus', '1'], {
      encoding: 'utf8',
      env: NODE_ENV,
    });
    expect(flag.status).toBe(2);
    expect(flag.stderr).toMatch(/unknown flag --bogus/);
  });
});
