// Spec-only stand-in for dist/daemon/daemon.cjs: speaks IPC-2 framing on <data>/run/vault.sock,
// answers status/shutdown, refuses unlock with bad_password, and behaves like the daemon's
// process contract (prints ARSLAN_VAULT_SOCKET=, writes daemon.pid, exits on shutdown/SIGTERM).
'use strict';
const net = require('node:net');
const fs = require('node:fs');
const path = require('node:path');

const dataDir = process.argv[process.argv.indexOf('--data') + 1];
const socketPath = path.join(dataDir, 'run', 'vault.sock');
fs.mkdirSync(path.dirname(socketPath), { recursive: true, mode: 0o700 });
fs.rmSync(socketPath, { force: true });

function answer(req) {
  if (req.op === 'status') {
    const result = {
      initialized: false,
      unlocked: false,
      unlock_idle_expires_at: null,
      sudo: false,
      device_fingerprint: null,
      vaults: [],
      data_dir: dataDir,
      pid: process.pid,
    };
    return { v: 1, id: req.id, ok: true, result };
  }
  if (req.op === 'unlock') {
    const message = req.args.password === 'right' ? 'unexpected' : 'wrong password';
    return { v: 1, id: req.id, ok: false, error: { code: 'bad_password', message } };
  }
  return { v: 1, id: req.id, ok: true, result: {} };
}

const server = net.createServer((conn) => {
  let buffer = Buffer.alloc(0);
  conn.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    while (buffer.length >= 4) {
      const length = buffer.readUInt32BE(0);
      if (buffer.length < 4 + length) break;
      const req = JSON.parse(buffer.subarray(4, 4 + length).toString('utf8'));
      buffer = buffer.subarray(4 + length);
      const body = Buffer.from(JSON.stringify(answer(req)));
      const header = Buffer.alloc(4);
      header.writeUInt32BE(body.length);
      conn.write(Buffer.concat([header, body]));
      if (req.op === 'shutdown') setTimeout(() => process.exit(0), 50);
    }
  });
});
server.listen(socketPath, () => {
  fs.writeFileSync(path.join(dataDir, 'daemon.pid'), String(process.pid));
  process.stdout.write(`ARSLAN_VAULT_SOCKET=${socketPath}\n`);
});
process.on('SIGTERM', () => process.exit(0));
