// npm run conformance -- <folder>: every vector file in the folder against both
// backends; one line per failing case, then 'N passed, N failed'.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { nobleCrypto } from '@arslan/envelope';
import { nodeCrypto } from '@arslan/envelope-node';
import { runConformance } from './conformance-runner';

const folder = process.argv[2];
if (!folder || !existsSync(folder) || !statSync(folder).isDirectory()) {
  console.error('usage: npm run conformance -- <folder of vector files>');
  process.exit(2);
}
const report = runConformance(resolve(folder), [nobleCrypto, nodeCrypto]);
for (const line of report.failures) console.log(line);
if (report.passed + report.failed === 0) console.log('no vector cases found');
console.log(`${report.passed} passed, ${report.failed} failed`);
process.exit(report.failed > 0 || report.passed === 0 ? 1 : 0);
