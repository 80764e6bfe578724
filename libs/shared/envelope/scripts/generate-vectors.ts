// Writes vectors/*.json from the catalogue (npm run vectors:generate). Deterministic:
// running it again must leave the files unchanged (a spec checks this).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nobleCrypto } from '../src/noble-crypto';
import { buildVectorCatalogue } from './vector-catalogue';

export function serialiseVectorFile(cases: unknown[]): string {
  return `${JSON.stringify(cases, null, 2)}\n`;
}

if (require.main === module) {
  const dir = join(__dirname, '..', 'vectors');
  for (const [name, cases] of Object.entries(buildVectorCatalogue(nobleCrypto))) {
    writeFileSync(join(dir, name), serialiseVectorFile(cases));
    console.log(`${name}: ${cases.length} cases`);
  }
}
