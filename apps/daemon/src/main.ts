// Entry of the vault daemon (`node dist/daemon/daemon.cjs --data DIR [--config FILE]`): composition only.
import { createVaultService } from '@arslan/desktop-vault';
import { createRagService } from '@arslan/vault-rag';
import { runDaemon } from './daemon.runtime';

void runDaemon(process.argv.slice(2), {
  createService: (dataDir) => createVaultService(dataDir),
  createRag: (vault, config) => createRagService({ vault, config }),
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
}).then((code) => process.exit(code));
