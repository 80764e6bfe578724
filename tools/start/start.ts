// npm start: brings up the main job on embedded defaults: the Mac client's daemon (vault +
// retrieval over a Unix socket) on the per-user data directory, and the Center (ticket mode,
// SQLite under its own data directory, 127.0.0.1:8787). The phone client is not built yet,
// and this says so. Stop with Ctrl-C.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { defaultDataDir } from '@arslan/daemon-client';
import { buildApps } from '../build/build-apps';

const root = join(__dirname, '..', '..');

for (const part of ['phone client (apps/phone)']) {
  console.log(`arslan: the ${part} is not built yet; nothing to start for it.`);
}
const daemon = join(root, 'dist', 'daemon', 'daemon.cjs');
const center = join(root, 'dist', 'center', 'center.cjs');
if (!existsSync(daemon) || !existsSync(center)) buildApps();
const dataDir =
  process.argv[2] ?? defaultDataDir({ platform: process.platform, homedir: homedir(), env: process.env });
console.log(`arslan: starting the vault daemon on ${dataDir} (Ctrl-C stops it).`);
console.log('arslan: in another terminal: npx memories init, then npx memories write --title … --body …');
const child = spawn(process.execPath, [daemon, '--data', dataDir], { stdio: ['pipe', 'inherit', 'inherit'] });
const centerDir =
  process.env['ARSLAN_CENTER_DATA'] ??
  join(process.env['XDG_DATA_HOME'] ?? join(homedir(), '.local', 'share'), 'arslan-center');
console.log(
  `arslan: starting the Center on ${centerDir} (admin bearer in ${join(centerDir, 'admin-token')}).`,
);
const centerChild = spawn(process.execPath, [center, 'serve', '--data', centerDir], {
  stdio: ['ignore', 'inherit', 'inherit'],
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    child.kill('SIGTERM');
    centerChild.kill('SIGTERM');
  });
}
child.on('exit', (code) => {
  centerChild.kill('SIGTERM');
  process.exit(code ?? 0);
});
