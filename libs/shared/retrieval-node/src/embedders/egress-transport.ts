// EGRESS-4/5/8: one HTTP(S) exchange for the egress client, on node:http/https so that the
// connection can go direct or through a proxy agent (Node 20's global fetch has no proxy support).
// - Redirects are never followed (node:http doesn't); the caller refuses any 3xx.
// - TLS to the target is always verified: `rejectUnauthorized` is never set, so Node's default
//   (verify chain and host name) applies, through a proxy tunnel too. `ca` only replaces the
//   trusted roots (a private CA), it cannot turn verification off.
// - HTTP(S) proxies are used through CONNECT tunnels (https-proxy-agent), SOCKS5 through
//   socks-proxy-agent: the proxy sees the target host and port, never the request itself.
import {
  type Agent as HttpAgent,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request as httpRequest,
} from 'node:http';
import { type Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { SocksProxyAgent } from 'socks-proxy-agent';
import { type ProxyRoute } from './proxy.policy';

export type TrustedCa = string | Buffer | ReadonlyArray<string | Buffer>;

export interface EgressResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** Undefined when the body was larger than the cap (and was not read further). */
  text: string | undefined;
}

export interface EgressRequest {
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
  /** Stop reading (text undefined) past this many bytes, or when Content-Length says more. */
  maxBytes: number;
}

/** A streamed GET (model downloads): the caller reads or destroys `body`. */
export interface EgressStream {
  status: number;
  headers: IncomingHttpHeaders;
  body: IncomingMessage;
}

export interface EgressTransport {
  readonly proxied: boolean;
  send(url: URL, request: EgressRequest): Promise<EgressResponse>;
  /** GET `url` and hand back the unread response; redirects are not followed. */
  get(url: URL, signal: AbortSignal): Promise<EgressStream>;
  close(): void;
}

type AnyAgent = HttpAgent | HttpsAgent;

function agentFor(route: ProxyRoute | undefined, ca: TrustedCa | undefined): AnyAgent | undefined {
  const caOption = ca === undefined ? {} : { ca: ca as string | Buffer | Array<string | Buffer> };
  if (route === undefined) return undefined;
  if (route.scheme === 'http:' || route.scheme === 'https:') {
    // Credentials go in as a header on a credential-free URL: the agent's DEBUG tracing prints
    // the proxy URL. `ca` is for a TLS connection to an https proxy; the target's TLS gets it
    // per request.
    const bare = new URL(`${route.url.protocol}//${route.url.host}`);
    const headers: Record<string, string> = {};
    if (route.url.username !== '' || route.url.password !== '') {
      const user = decodeURIComponent(route.url.username);
      const password = decodeURIComponent(route.url.password);
      headers['Proxy-Authorization'] = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    }
    return new HttpsProxyAgent(bare, { ...caOption, headers, keepAlive: false });
  }
  // SOCKS5 username/password come from the URL (RFC 1929). Caveat: socks-proxy-agent's own
  // DEBUG=socks-proxy-agent tracing prints them; nothing of this library logs them.
  return new SocksProxyAgent(route.url);
}

export function createEgressTransport(route: ProxyRoute | undefined, ca?: TrustedCa): EgressTransport {
  const agent = agentFor(route, ca);
  return {
    proxied: agent !== undefined,
    send(url, request) {
      const secure = url.protocol === 'https:';
      const send = secure ? httpsRequest : httpRequest;
      return new Promise<EgressResponse>((resolve, reject) => {
        const req = send(url, {
          method: request.method,
          headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
          signal: request.signal,
          ...(agent === undefined ? {} : { agent }),
          ...(secure && ca !== undefined ? { ca: ca as string | Buffer | Array<string | Buffer> } : {}),
        });
        req.on('error', reject);
        req.on('response', (res) => {
          const status = res.statusCode ?? 0;
          const declared = Number(res.headers['content-length'] ?? '0');
          if (declared > request.maxBytes) {
            res.destroy();
            resolve({ status, headers: res.headers, text: undefined });
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > request.maxBytes) {
              res.destroy();
              resolve({ status, headers: res.headers, text: undefined });
              return;
            }
            chunks.push(chunk);
          });
          res.on('error', reject);
          res.on('close', () => {
            if (!res.complete) reject(Object.assign(new Error('response cut off'), { code: 'ECONNRESET' }));
          });
          res.on('end', () =>
            resolve({ status, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
          );
        });
        req.end(request.body);
      });
    },
    get(url, signal) {
      const secure = url.protocol === 'https:';
      const send = secure ? httpsRequest : httpRequest;
      return new Promise<EgressStream>((resolve, reject) => {
        const req = send(url, {
          method: 'GET',
          signal,
          ...(agent === undefined ? {} : { agent }),
          ...(secure && ca !== undefined ? { ca: ca as string | Buffer | Array<string | Buffer> } : {}),
        });
        req.on('error', reject);
        req.on('response', (res) =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: res }),
        );
        req.end();
      });
    },
    close() {
      agent?.destroy();
    },
  };
}
