// Writes vectors/*.json from the catalogue:
//   npx tsx libs/shared/vault-core/scripts/generate-vectors.ts
// Deterministic: running it again must leave the files unchanged (vectors.spec.ts checks this).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildVaultVectorCatalogue } from './vector-catalogue';

export function serialiseVectorFile(cases: unknown[]): string {
  return `${JSON.stringify(cases, null, 2)}\n`;
}

async function main(): Promise<void> {
  const dir = join(__dirname, '..', 'vectors');
  for (const [name, cases] of Object.entries(await buildVaultVectorCatalogue())) {
    writeFileSync(join(dir, name), serialiseVectorFile(cases));
    console.log(`${name}: ${cases.length} cases`);
  }
}

if (require.main === module) void main();
