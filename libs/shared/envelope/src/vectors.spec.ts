import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { serialiseVectorFile } from '../scripts/generate-vectors';
import { buildVectorCatalogue } from '../scripts/vector-catalogue';
import { ENVELOPE_ERROR_CODES } from './envelope.errors';
import { nobleCrypto } from './noble-crypto';
import { checkVectorCase, type EnvelopeVectorCase, parseVectorFile, type VectorCase } from './vector-case';

const dir = join(__dirname, '..', 'vectors');
const files = readdirSync(dir).filter((name) => name.endsWith('.json'));
const all: VectorCase[] = files.flatMap((name) => parseVectorFile(readFileSync(join(dir, name), 'utf8')));

describe('shipped envelope vectors', () => {
  it('has at least 30 cases over the three profiles and every error code', () => {
    const envelopeCases = all.filter((c) => !('type' in c));
    expect(envelopeCases.length).toBeGreaterThanOrEqual(30);
    const profiles = new Set(envelopeCases.map((c) => ('profile' in c ? c.profile : '')));
    expect([...profiles].sort()).toEqual(['bridge', 'sealed', 'transfer']);
    expect(new Set(all.map((c) => c.result))).toEqual(new Set(['ok', ...ENVELOPE_ERROR_CODES]));
  });

  it('passes every case on the noble backend', () => {
    const failures = all.map((c) => checkVectorCase(nobleCrypto, c)).filter((o) => !o.passed);
    expect(failures).toEqual([]);
  });

  it('is exactly what the generator makes (provenance: vectors/README.md)', () => {
    const catalogue = buildVectorCatalogue(nobleCrypto);
    expect(Object.keys(catalogue).sort()).toEqual([...files].sort());
    for (const [name, cases] of Object.entries(catalogue)) {
      expect(serialiseVectorFile(cases) === readFileSync(join(dir, name), 'utf8')).toBe(true);
    }
  });

  it('a tampered vector is reported as a failure, not passed', () => {
    const okCase = all.find((c): c is EnvelopeVectorCase => c.result === 'ok' && !('type' in c))!;
    const flipped = { ...okCase, result: 'bad_signature' } as VectorCase;
    expect(checkVectorCase(nobleCrypto, flipped).passed).toBe(false);
    const wrongPlain = { ...okCase, plaintext: okCase.plaintext.replace('}', ',"x":1}') } as VectorCase;
    expect(checkVectorCase(nobleCrypto, wrongPlain).passed).toBe(false);
  });
});
