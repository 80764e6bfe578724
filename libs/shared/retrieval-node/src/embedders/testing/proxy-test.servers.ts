// Test support for EGRESS-5: real servers on real sockets.
// - `makeTestPki`: a throw-away CA and certificates made with the openssl CLI (node:crypto can't
//   issue X.509), trusted by the client through its `tlsCa` option, never by disabling checks.
// - `startTlsTarget`: an HTTPS JSON server (the "model API").
// - `startConnectProxy`: an HTTP CONNECT proxy that tunnels every CONNECT to the target, or, in
//   `mitm` mode, terminates TLS itself with the certificate it was given.
// - `startSocks5Proxy`: a SOCKS5 (no-auth, CONNECT) server that tunnels to the target.
// The proxies route every destination to the local target port and record what they were asked.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import {
  type AddressInfo,
  connect,
  createServer as createNetServer,
  type Server,
  type Socket,
} from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';

export interface KeyAndCert {
  key: string;
  cert: string;
}

export interface TestPki {
  ca: string;
  /** For `models.test`, `localhost`, 127.0.0.1 and `altIp`, signed by `ca`. */
  target: KeyAndCert;
  /** Signed by `ca`, but only for `evil.test`. */
  wrongName: KeyAndCert;
  /** Self-signed for `models.test` (not trusted). */
  untrusted: KeyAndCert;
}

/** A local, non-loopback address to reach the target directly (NO_PROXY tests). */
export function nonLoopbackAddress(): string {
  const all = Object.values(networkInterfaces()).flat();
  const v4 = all.find((i) => i !== undefined && i.family === 'IPv4' && !i.internal);
  // Linux routes 0.0.0.0 to the local host; it isn't a loopback literal for the policy.
  return v4?.address ?? '0.0.0.0';
}

export function makeTestPki(altIp: string): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'egress-pki-'));
  const run = (args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  };
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  try {
    run([
      'req',
      '-x509',
      ...ecKey,
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      '1',
      '-subj',
      '/CN=egress test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign',
    ]);
    const issue = (name: string, san: string): KeyAndCert => {
      writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${san}\n`);
      run(['req', ...ecKey, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
      run([
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${name}.crt`,
        '-days',
        '1',
        '-extfile',
        `${name}.ext`,
      ]);
      return {
        key: readFileSync(join(dir, `${name}.key`), 'utf8'),
        cert: readFileSync(join(dir, `${name}.crt`), 'utf8'),
      };
    };
    const target = issue('target', `DNS:models.test,DNS:localhost,IP:127.0.0.1,IP:${altIp}`);
    const wrongName = issue('wrong', 'DNS:evil.test');
    run([
      'req',
      '-x509',
      ...ecKey,
      '-keyout',
      'self.key',
      '-out',
      'self.crt',
      '-days',
      '1',
      '-subj',
      '/CN=models.test',
      '-addext',
      'subjectAltName=DNS:models.test',
    ]);
    return {
      ca: readFileSync(join(dir, 'ca.crt'), 'utf8'),
      target,
      wrongName,
      untrusted: {
        key: readFileSync(join(dir, 'self.key'), 'utf8'),
        cert: readFileSync(join(dir, 'self.crt'), 'utf8'),
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function closeServer(server: Server, sockets: Set<Socket>): Promise<void> {
  for (const s of sockets) s.destroy();
  return new Promise((resolve) => server.close(() => resolve()));
}

function track(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return sockets;
}

export interface TargetRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface TlsTarget {
  port: number;
  requests: TargetRequest[];
  close(): Promise<void>;
}

/** HTTPS on 0.0.0.0 (so the non-loopback address reaches it too), answering `{ ok: true }`. */
export async function startTlsTarget(keyAndCert: KeyAndCert): Promise<TlsTarget> {
  const requests: TargetRequest[] = [];
  const server = createHttpsServer(keyAndCert, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  const sockets = track(server);
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () => closeServer(server, sockets),
  };
}

export interface ConnectRecord {
  /** The CONNECT authority, e.g. `models.test:443`. */
  authority: string;
  proxyAuthorization: string | undefined;
}

export interface TestProxy {
  port: number;
  /** What the proxy was asked to reach. */
  connects: ConnectRecord[];
  /** Plaintext bytes a MITM proxy managed to read (must stay 0). */
  interceptedBytes: number;
  close(): Promise<void>;
}

export type ConnectProxyMode =
  | { kind: 'tunnel'; targetPort: number }
  | { kind: 'mitm'; keyAndCert: KeyAndCert }
  | { kind: 'refuse'; status: number };

export async function startConnectProxy(mode: ConnectProxyMode): Promise<TestProxy> {
  const state: TestProxy = { port: 0, connects: [], interceptedBytes: 0, close: async () => undefined };
  const server = createHttpServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, client: Socket, head: Buffer) => {
    state.connects.push({
      authority: req.url ?? '',
      proxyAuthorization: req.headers['proxy-authorization'],
    });
    if (mode.kind === 'refuse') {
      client.end(`HTTP/1.1 ${mode.status} Refused\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    if (mode.kind === 'mitm') {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      const tls = new TLSSocket(client, { isServer: true, ...mode.keyAndCert });
      tls.on('data', (d: Buffer) => (state.interceptedBytes += d.length));
      tls.on('error', () => client.destroy());
      return;
    }
    const upstream = connect(mode.targetPort, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  const sockets = track(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  state.close = () => closeServer(server, sockets);
  return state;
}

export interface SocksRecord {
  addressType: 'ipv4' | 'domain' | 'ipv6';
  host: string;
  port: number;
}

export interface TestSocksProxy {
  port: number;
  connects: SocksRecord[];
  close(): Promise<void>;
}

/** SOCKS5, no authentication, CONNECT only (RFC 1928). */
export async function startSocks5Proxy(targetPort: number): Promise<TestSocksProxy> {
  const connects: SocksRecord[] = [];
  const server = createNetServer((client) => {
    let buffer = Buffer.alloc(0);
    let stage: 'greeting' | 'request' | 'piped' = 'greeting';
    client.on('error', () => client.destroy());
    client.on('data', (chunk: Buffer) => {
      if (stage === 'piped') return;
      buffer = Buffer.concat([buffer, chunk]);
      if (stage === 'greeting') {
        if (buffer.length < 2 || buffer.length < 2 + (buffer[1] ?? 0)) return;
        if (buffer[0] !== 5) return void client.destroy();
        buffer = buffer.subarray(2 + (buffer[1] ?? 0));
        client.write(Buffer.from([5, 0]));
        stage = 'request';
      }
      if (buffer.length < 5) return;
      const atyp = buffer[3];
      const hostLength = atyp === 1 ? 4 : atyp === 4 ? 16 : 1 + (buffer[4] ?? 0);
      if (buffer.length < 4 + hostLength + 2) return;
      const raw = buffer.subarray(4, 4 + hostLength);
      const host =
        atyp === 1
          ? [...raw].join('.')
          : atyp === 4
            ? raw.toString('hex').replace(/(.{4})(?!$)/g, '$1:')
            : raw.subarray(1).toString('utf8');
      const port = buffer.readUInt16BE(4 + hostLength);
      connects.push({ addressType: atyp === 1 ? 'ipv4' : atyp === 4 ? 'ipv6' : 'domain', host, port });
      const rest = buffer.subarray(4 + hostLength + 2);
      stage = 'piped';
      const upstream = connect(targetPort, '127.0.0.1', () => {
        client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
        if (rest.length > 0) upstream.write(rest);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
    });
  });
  const sockets = track(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connects,
    close: () => closeServer(server, sockets),
  };
}
