// Outbound guard (WEB-07..10, SEC-010/011). The policy is applied to the addresses the connection
// itself uses: names are resolved once, every address is checked, and the socket is pinned to the
// checked addresses (no second lookup, no DNS rebinding). Redirects are re-checked hop by hop.
import { promises as dns } from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import * as zlib from 'node:zlib';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const all = await dns.lookup(hostname, { all: true, verbatim: true });
  return all.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export class EgressRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EgressRefusal';
  }
}

export type AddressClass = 'public' | 'fake-ip' | 'blocked';

function parseV4(ip: string): number | null {
  const parts = ip.split('.');
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null;
    n = n * 256 + Number(p);
  }
  return n;
}

function parseV6(input: string): bigint | null {
  let ip = input.toLowerCase();
  const zone = ip.indexOf('%');
  if (zone !== -1) ip = ip.slice(0, zone);
  let tailV4: number[] = [];
  const lastColon = ip.lastIndexOf(':');
  if (ip.slice(lastColon + 1).includes('.')) {
    const v4 = parseV4(ip.slice(lastColon + 1));
    if (v4 === null) return null;
    tailV4 = [(v4 >>> 16) & 0xffff, v4 & 0xffff];
    ip = ip.slice(0, lastColon + 1) + '0:0';
  }
  const halves = ip.split('::');
  if (halves.length > 2) return null;
  const left = halves[0] ? halves[0].split(':') : [];
  const right = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const fill = 8 - left.length - right.length;
  if (halves.length === 1 ? fill !== 0 : fill < 0) return null;
  const groups = [...left, ...Array<string>(halves.length === 2 ? fill : 0).fill('0'), ...right];
  if (tailV4.length === 2) groups.splice(6, 2, tailV4[0]!.toString(16), tailV4[1]!.toString(16));
  let n = 0n;
  for (const g of groups) {
    if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
    n = (n << 16n) | BigInt(parseInt(g, 16));
  }
  return n;
}

const V4_BLOCKED: Array<[string, number]> = [
  ['0.0.0.0', 8], // unspecified / "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local (cloud metadata)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved + broadcast
];
const V4_FAKE_IP: [string, number] = ['198.18.0.0', 15];

function inV4(n: number, [base, bits]: [string, number]): boolean {
  const b = parseV4(base)!;
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return (n & mask) >>> 0 === (b & mask) >>> 0;
}

function classifyV4(n: number): AddressClass {
  if (inV4(n, V4_FAKE_IP)) return 'fake-ip';
  return V4_BLOCKED.some((r) => inV4(n, r)) ? 'blocked' : 'public';
}

function v6Prefix(n: bigint, bits: number): bigint {
  return n >> BigInt(128 - bits);
}

/** Classifies an IP literal: public, the fake-IP block 198.18.0.0/15, or blocked. */
export function classifyAddress(ip: string): AddressClass {
  const kind = isIP(ip.split('%')[0] ?? '');
  if (kind === 4) return classifyV4(parseV4(ip)!);
  if (kind !== 6) return 'blocked';
  const n = parseV6(ip);
  if (n === null) return 'blocked';
  if (n === 0n || n === 1n) return 'blocked'; // :: and ::1
  if (v6Prefix(n, 96) === 0xffffn) return classifyV4(Number(n & 0xffffffffn)); // ::ffff:a.b.c.d
  if (v6Prefix(n, 96) === 0n) return 'blocked'; // IPv4-compatible (deprecated)
  if (v6Prefix(n, 96) === 0x0064ff9b0000000000000000n) return classifyV4(Number(n & 0xffffffffn)); // NAT64
  if (v6Prefix(n, 16) === 0x2002n) return classifyV4(Number((n >> 80n) & 0xffffffffn)); // 6to4
  if (v6Prefix(n, 7) === 0x7en) return 'blocked'; // fc00::/7 unique-local
  if (v6Prefix(n, 10) === 0x3fan || v6Prefix(n, 10) === 0x3fbn) return 'blocked'; // fe80::/10, fec0::/10
  if (v6Prefix(n, 8) === 0xffn) return 'blocked'; // multicast
  if (v6Prefix(n, 32) === 0x20010db8n) return 'blocked'; // documentation
  if (v6Prefix(n, 64) === 0x0100000000000000n) return 'blocked'; // discard-only
  return 'public';
}

const LOCAL_SUFFIXES = [
  '.localhost',
  '.local',
  '.internal',
  '.lan',
  '.home',
  '.home.arpa',
  '.intranet',
  '.corp',
  '.private',
  '.localdomain',
];

/** Refusal reason for a host name (before any resolution), or null. */
export function hostnameRefusal(rawHost: string): string | null {
  if (/[\0-\x20\x7f-\x9f]/.test(rawHost)) return 'the host name contains control characters';
  if (rawHost.includes('%')) return 'the host name contains percent-encoded characters';
  const host = rawHost
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === '') return 'empty host name';
  if (isIP(host)) return null;
  if (host === 'localhost' || LOCAL_SUFFIXES.some((s) => host.endsWith(s))) return `${host} is a local name`;
  if (!host.includes('.')) return `${host} is a single-label (local) name`;
  return null;
}

export interface EgressOptions {
  /** Name resolution (default: the system resolver, all addresses). */
  resolve?: Resolver;
  /**
   * TEST ONLY: where the socket really goes after the policy accepted an address. Production never
   * sets it; the policy decision is made on the resolved addresses and the URL's own port either way.
   */
  dial?: (accepted: { hostname: string; address: string; port: number }) => { address: string; port: number };
  /** Extra CA certificates (tests with a local TLS server). TLS is always verified against the name. */
  ca?: string | Buffer;
  maxRedirects?: number;
  maxBytes?: number;
  timeoutMs?: number;
  userAgent?: string;
}

export interface CheckedTarget {
  url: URL;
  hostname: string;
  port: number;
  addresses: ResolvedAddress[];
}

/** WEB-08/09, SEC-010/011: the whole pre-connection check for one URL. */
export async function checkUrl(rawUrl: string, resolve: Resolver = systemResolver): Promise<CheckedTarget> {
  if (/[\0-\x1f\x7f-\x9f]/.test(rawUrl)) throw new EgressRefusal('the URL contains control characters');
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new EgressRefusal(`not a valid URL: ${rawUrl.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new EgressRefusal(`${url.protocol} URLs are not allowed`);
  if (url.username || url.password) throw new EgressRefusal('URLs with credentials are not allowed');
  const reason = hostnameRefusal(url.hostname);
  if (reason) throw new EgressRefusal(`refused: ${reason}`);
  const hostname = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  let addresses: ResolvedAddress[];
  if (isIP(hostname)) {
    addresses = [{ address: hostname, family: isIP(hostname) === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await resolve(hostname);
    } catch (error) {
      throw new EgressRefusal(
        `could not resolve ${hostname}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
  }
  if (addresses.length === 0) throw new EgressRefusal(`${hostname} has no addresses`);
  const classes = addresses.map((a) => classifyAddress(a.address));
  const blocked = addresses.find((_, i) => classes[i] === 'blocked');
  if (blocked)
    throw new EgressRefusal(
      `refused: ${hostname} resolves to a private or local address (${blocked.address})`,
    );
  if (classes.includes('fake-ip')) {
    if (!classes.every((c) => c === 'fake-ip')) {
      throw new EgressRefusal(`refused: ${hostname} mixes proxy fake-IP and other addresses`);
    }
    if (url.protocol !== 'https:' || port !== 443) {
      throw new EgressRefusal(
        `refused: ${hostname} resolves to proxy fake-IP addresses; only https on port 443 is allowed`,
      );
    }
  }
  return { url, hostname, port, addresses };
}

export interface GuardedRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

export interface GuardedResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The URL after redirects. */
  url: string;
  /** The body was cut at maxBytes. */
  truncated: boolean;
}

function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return ((_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (opts && opts.all)
      cb(
        null,
        addresses.map((a) => ({ address: a.address, family: a.family })),
      );
    else cb(null, addresses[0]!.address, addresses[0]!.family);
  }) as unknown as LookupFunction;
}

function oneRequest(
  target: CheckedTarget,
  req: GuardedRequest,
  options: EgressOptions,
  deadline: number,
): Promise<GuardedResponse> {
  const maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
  let addresses = target.addresses;
  let port = target.port;
  if (options.dial) {
    const d = options.dial({ hostname: target.hostname, address: addresses[0]!.address, port });
    addresses = [{ address: d.address, family: isIP(d.address) === 6 ? 6 : 4 }];
    port = d.port;
  }
  const isHttps = target.url.protocol === 'https:';
  const headers: Record<string, string> = {
    'user-agent': options.userAgent ?? 'Mozilla/5.0 (compatible; Arslan/0.1)',
    accept: 'text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8,*/*;q=0.5',
    'accept-encoding': 'gzip, deflate, br',
    ...req.headers,
    host: target.url.host,
  };
  if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
  return new Promise((resolve, reject) => {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return reject(new EgressRefusal('the request timed out'));
    const requestOptions: https.RequestOptions = {
      method: req.method ?? 'GET',
      host: target.hostname,
      port,
      path: `${target.url.pathname}${target.url.search}`,
      headers,
      lookup: pinnedLookup(addresses),
      agent: false,
      ...(isHttps
        ? { servername: isIP(target.hostname) ? undefined : target.hostname, rejectUnauthorized: true }
        : {}),
      ...(isHttps && options.ca ? { ca: options.ca } : {}),
    };
    const request = (isHttps ? https : http).request(requestOptions, (res) => {
      const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase();
      let stream: NodeJS.ReadableStream = res;
      if (encoding === 'gzip' || encoding === 'x-gzip') stream = res.pipe(zlib.createGunzip());
      else if (encoding === 'deflate') stream = res.pipe(zlib.createInflate());
      else if (encoding === 'br') stream = res.pipe(zlib.createBrotliDecompress());
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const done = () => {
        clearTimeout(timer);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          url: target.url.href,
          truncated,
        });
      };
      stream.on('data', (c: Buffer) => {
        if (truncated) return;
        const room = maxBytes - size;
        chunks.push(c.subarray(0, room));
        size += Math.min(room, c.length);
        if (c.length > room) {
          truncated = true;
          done();
          request.destroy();
        }
      });
      stream.on('end', () => !truncated && done());
      stream.on('error', (e: Error) => !truncated && fail(e));
    });
    const fail = (e: Error) => {
      clearTimeout(timer);
      reject(e instanceof EgressRefusal ? e : new EgressRefusal(`request failed: ${e.message}`));
    };
    const timer = setTimeout(() => {
      request.destroy(new EgressRefusal('the request timed out'));
    }, remaining);
    const onAbort = () => request.destroy(new EgressRefusal('the request was cancelled'));
    req.signal?.addEventListener('abort', onAbort, { once: true });
    request.on('error', fail);
    request.on('close', () => req.signal?.removeEventListener('abort', onAbort));
    if (req.body !== undefined) request.write(req.body);
    request.end();
  });
}

/**
 * Fetch through the guard: every hop (the first URL and each redirect) is checked and connected to
 * its checked addresses only. Throws EgressRefusal with a reason the model can read.
 */
export async function guardedFetch(
  rawUrl: string,
  req: GuardedRequest = {},
  options: EgressOptions = {},
): Promise<GuardedResponse> {
  const resolve = options.resolve ?? systemResolver;
  const maxRedirects = options.maxRedirects ?? 5;
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  let url = rawUrl;
  let current = req;
  for (let hop = 0; ; hop += 1) {
    if (req.signal?.aborted) throw new EgressRefusal('the request was cancelled');
    const target = await checkUrl(url, resolve);
    const res = await oneRequest(target, current, options, deadline);
    const location = res.headers.location;
    if (res.status >= 300 && res.status < 400 && res.status !== 304 && location) {
      if (hop >= maxRedirects) throw new EgressRefusal(`too many redirects (more than ${maxRedirects})`);
      const nextUrl = new URL(location, target.url);
      url = nextUrl.href;
      if (nextUrl.origin !== target.url.origin && current.headers) {
        // Credentials (e.g. an API key header) never follow a redirect to another origin.
        const { authorization: _a, cookie: _c, ...rest } = current.headers;
        current = { ...current, headers: rest };
      }
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && current.method === 'POST')) {
        current = { headers: current.headers, signal: req.signal, method: 'GET' };
      }
      continue;
    }
    return res;
  }
}
