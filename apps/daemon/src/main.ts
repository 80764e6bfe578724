// Entry of the vault daemon (`node dist/daemon/daemon.cjs --data DIR`): composition only.
import { createVaultService } from '@arslan/desktop-vault';
import { runDaemon } from './daemon.runtime';

void runDaemon(process.argv.slice(2), {
  createService: (dataDir) => createVaultService(dataDir),
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
}).then((code) => process.exit(code));
