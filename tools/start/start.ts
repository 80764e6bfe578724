// npm start: brings up the main job. The Center (apps/center) and the daemon
// (apps/daemon) are not built yet, so this says so, then runs what exists: a
// self-check of the shared trust libs (envelope vectors on both backends).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { nobleCrypto } from '@arslan/envelope';
import { nodeCrypto } from '@arslan/envelope-node';
import { runConformance } from '../conformance/conformance-runner';

const root = join(__dirname, '..', '..');
const parts = [
  { name: 'Center (apps/center)', path: 'apps/center' },
  { name: 'Mac daemon (apps/daemon)', path: 'apps/daemon' },
  { name: 'phone client (apps/phone)', path: 'apps/phone' },
];

const missing = parts.filter((part) => !existsSync(join(root, part.path)));
for (const part of missing) console.log(`arslan: ${part.name} does not exist yet; nothing to start for it.`);
if (missing.length === parts.length) {
  console.log('arslan: running what exists: the envelope self-check over the shipped vectors.');
  const report = runConformance(join(root, 'libs/shared/envelope/vectors'), [nobleCrypto, nodeCrypto]);
  for (const line of report.failures) console.log(line);
  console.log(
    `arslan: envelope self-check ${report.failed === 0 ? 'ok' : 'FAILED'}: ${report.passed} passed, ${report.failed} failed`,
  );
  process.exit(report.failed === 0 ? 0 : 1);
}
