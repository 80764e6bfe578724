// npm run openapi:center (2/2): regenerates src/generated/center-api.ts from apps/center/openapi.json.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateClientModule } from '../src/openapi-to-ts';

const root = join(__dirname, '..', '..', '..', '..');
const doc = JSON.parse(readFileSync(join(root, 'apps/center/openapi.json'), 'utf8')) as Parameters<
  typeof generateClientModule
>[0];
writeFileSync(join(__dirname, '..', 'src/generated/center-api.ts'), generateClientModule(doc));
console.log('wrote libs/clients/center-client/src/generated/center-api.ts');
