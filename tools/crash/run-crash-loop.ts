// npm run crash:vault -- [iterations] [seed]: the vault crash-safety loop of
// tests/e2e/vault-crash (200 kills in CI); use a larger count for a long run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleCjs } from '../build/build-apps';

const iterations = process.argv[2] ?? '1000';
const seed = process.argv[3] ?? String(Date.now() % 100_000);
const root = join(__dirname, '..', '..');
const out = 'node_modules/.cache/arslan-e2e/crash-loop.cjs';
bundleCjs('tests/e2e/vault-crash/crash-loop.ts', out);
const dir = mkdtempSync(join(tmpdir(), 'arslan-crash-'));
try {
  execFileSync(process.execPath, [join(root, out), 'drive', join(dir, 'store'), iterations, seed], {
    stdio: 'inherit',
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
