// Entry of the daemon (`node dist/daemon/daemon.cjs --data DIR [--config FILE] [--stdin-lifeline]
// [--desktop]`): composition only.
import { createVaultService } from '@arslan/desktop-vault';
import { createRagService } from '@arslan/vault-rag';
import { createDaemonAgent } from './daemon-agent';
import { runDaemon } from './daemon.runtime';
import { scrubInheritedEnv } from './desktop-env';

// ARCH-11: a copy for the one lookup the app's config names (its API key variable); in desktop
// mode the live environment is cut down before anything else runs.
const env = { ...process.env };
if (process.argv.includes('--desktop')) scrubInheritedEnv(process.env);

void runDaemon(process.argv.slice(2), {
  createService: (dataDir) => createVaultService(dataDir),
  createRag: (vault, config) => createRagService({ vault, config }),
  createAgent: (dataDir, config, _mode, vault) =>
    createDaemonAgent(dataDir, config.agent, (name) => env[name], vault),
  readEnv: (name) => env[name],
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
}).then((code) => process.exit(code));
