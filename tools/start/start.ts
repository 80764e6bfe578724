// npm start: brings up the main job on embedded defaults. Today that is the Mac client's
// daemon (vault + retrieval over a Unix socket) on the per-user data directory; the
// Center and the phone client are not built yet, and this says so. Stop with Ctrl-C.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { defaultDataDir } from '@arslan/daemon-client';
import { buildApps } from '../build/build-apps';

const root = join(__dirname, '..', '..');

for (const part of ['Center (apps/center)', 'phone client (apps/phone)']) {
  console.log(`arslan: the ${part} is not built yet; nothing to start for it.`);
}
const daemon = join(root, 'dist', 'daemon', 'daemon.cjs');
if (!existsSync(daemon)) buildApps();
const dataDir =
  process.argv[2] ?? defaultDataDir({ platform: process.platform, homedir: homedir(), env: process.env });
console.log(`arslan: starting the vault daemon on ${dataDir} (Ctrl-C stops it).`);
console.log('arslan: in another terminal: npx memories init, then npx memories write --title … --body …');
const child = spawn(process.execPath, [daemon, '--data', dataDir], { stdio: ['pipe', 'inherit', 'inherit'] });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill('SIGTERM'));
child.on('exit', (code) => process.exit(code ?? 0));
