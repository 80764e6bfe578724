import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleEntry } from '../../support/bundle-entry';

// VAULT-11/12, AUD-2: SIGKILL a writer at random moments, at least 200 times, and check
// after every kill that the store opens, the audit chain and every signature verify, and
// every acknowledged revision is present and intact. `npm run crash:vault -- <n>` runs longer.

// ~14 min on a slow day before the verification cache grew (2026-11-30): keep a wide margin.
jest.setTimeout(25 * 60_000);

describe('vault crash safety', () => {
  it('VAULT-11: 200 random SIGKILLs lose no acknowledged revision and leave nothing half-written', () => {
    const bundle = bundleEntry('tests/e2e/vault-crash/crash-loop.ts', 'crash-loop');
    const dir = mkdtempSync(join(tmpdir(), 'arslan-crash-'));
    try {
      const out = execFileSync(process.execPath, [bundle, 'drive', join(dir, 'store'), '200', '7'], {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      const summary = JSON.parse(out.trim().split('\n').at(-1) as string) as {
        kills: number;
        kills_after_ack: number;
        acknowledged: number;
        problems: string[];
      };
      expect(summary.problems).toEqual([]);
      expect(summary.kills).toBe(200);
      // The kills really interrupted a writing loop, not an idle process.
      expect(summary.kills_after_ack).toBe(200);
      expect(summary.acknowledged).toBeGreaterThanOrEqual(400);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
