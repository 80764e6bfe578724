import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { serialiseVectorFile } from '../scripts/generate-vectors';
import { buildVaultVectorCatalogue } from '../scripts/vector-catalogue';
import { testOnlyKdf } from './test-only-support';
import { checkVaultVectorCase, parseVaultVectorFile, type VaultVectorCase } from './vector-case';

const dir = join(__dirname, '..', 'vectors');
const files = readdirSync(dir).filter((name) => name.endsWith('.json'));
const all: VaultVectorCase[] = files.flatMap((name) =>
  parseVaultVectorFile(readFileSync(join(dir, name), 'utf8')),
);

describe('shipped vault-core vectors (vectors/README.md)', () => {
  it('covers every case type and the format error codes they can reach', () => {
    expect(new Set(all.map((c) => c.type))).toEqual(
      new Set(['keyring', 'sealed_state', 'epoch_key', 'revision', 'revision_row']),
    );
    expect(new Set(all.map((c) => c.result))).toEqual(
      new Set([
        'ok',
        'unsupported_version',
        'bad_password',
        'malformed',
        'tampered',
        'bad_signature',
        'bad_certificate',
        'device_not_allowed',
        'id_mismatch',
      ]),
    );
    expect(all.length).toBeGreaterThanOrEqual(60);
  });

  it('passes every case (VAULT-1/4/5/6/7/8/9/10, DEV-1/2, HIST-1, AUD-2)', async () => {
    const outcomes = await Promise.all(all.map((c) => checkVaultVectorCase(testOnlyKdf, c)));
    expect(outcomes.filter((o) => !o.passed)).toEqual([]);
  });

  it('is exactly what the generator makes', async () => {
    const catalogue = await buildVaultVectorCatalogue();
    expect(Object.keys(catalogue).sort()).toEqual([...files].sort());
    for (const [name, cases] of Object.entries(catalogue))
      expect(serialiseVectorFile(cases) === readFileSync(join(dir, name), 'utf8')).toBe(true);
  });

  it('a case with the wrong expected result or output is reported as failed', async () => {
    const ok = all.find((c) => c.type === 'revision' && c.result === 'ok')!;
    expect((await checkVaultVectorCase(testOnlyKdf, { ...ok, result: 'bad_signature' })).passed).toBe(false);
    expect(
      (await checkVaultVectorCase(testOnlyKdf, { ...ok, content: 'AAAA' } as VaultVectorCase)).passed,
    ).toBe(false);
    const bad = all.find((c) => c.result === 'bad_password')!;
    expect((await checkVaultVectorCase(testOnlyKdf, { ...bad, result: 'tampered' })).passed).toBe(false);
  });
});
