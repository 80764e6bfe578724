import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { nobleCrypto } from '@arslan/envelope';
import { nodeCrypto } from '@arslan/envelope-node';
import { runConformance } from './conformance-runner';

const root = join(__dirname, '..', '..');
const shipped = join(root, 'libs/shared/envelope/vectors');

describe('conformance runner', () => {
  let work: string;
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'arslan-conformance-'));
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  it('passes the shipped envelope vectors on both backends', () => {
    for (const name of ['bridge.json', 'transfer.json', 'sealed.json', 'attachments.json']) {
      cpSync(join(shipped, name), join(work, name));
    }
    const report = runConformance(work, [nobleCrypto, nodeCrypto]);
    expect(report.failures).toEqual([]);
    expect(report.passed).toBeGreaterThanOrEqual(2 * 50);
  });

  it('prints one line per failing case and counts an unreadable file as a failure', () => {
    const cases = JSON.parse(readFileSync(join(shipped, 'sealed.json'), 'utf8'));
    cases[0].result = 'decrypt_failed';
    writeFileSync(join(work, 'tampered.json'), JSON.stringify(cases));
    writeFileSync(join(work, 'broken.json'), '[{"description": 1}]');
    const report = runConformance(work, [nobleCrypto, nodeCrypto]);
    expect(report.failed).toBe(4);
    expect(report.failures.filter((l) => l.includes('tampered.json'))).toHaveLength(2);
    expect(report.failures.filter((l) => l.includes('unreadable vector file'))).toHaveLength(2);
  });

  it('the CLI closes with "N passed, N failed" and exits non-zero on failure', () => {
    const cases = JSON.parse(readFileSync(join(shipped, 'transfer.json'), 'utf8'));
    writeFileSync(join(work, 'ok.json'), JSON.stringify(cases.slice(0, 2)));
    const tsx = join(root, 'node_modules/.bin/tsx');
    const script = join(root, 'tools/conformance/run-conformance.ts');
    const out = execFileSync(tsx, [script, work], { cwd: root, encoding: 'utf8' });
    expect(out.trim().split('\n').at(-1)).toBe('4 passed, 0 failed');
    cases[1].result = 'malformed';
    writeFileSync(join(work, 'ok.json'), JSON.stringify(cases.slice(0, 2)));
    let status = 0;
    let stdout = '';
    try {
      execFileSync(tsx, [script, work], { cwd: root, encoding: 'utf8' });
    } catch (error) {
      status = (error as { status: number }).status;
      stdout = (error as { stdout: string }).stdout;
    }
    expect(status).toBe(1);
    expect(stdout.trim().split('\n').at(-1)).toBe('2 passed, 2 failed');
    expect(stdout).toContain('FAIL');
  });
});
