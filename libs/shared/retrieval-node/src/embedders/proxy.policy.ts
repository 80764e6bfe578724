// EGRESS-5: which proxy (if any) a model API request uses.
// - A loopback target (decided from the URL's literal host, never DNS) NEVER uses a proxy,
//   whatever the environment or configuration says.
// - Otherwise an explicit proxy URL (configuration) wins over the environment; from the
//   environment, HTTPS targets use `https_proxy`/`HTTPS_PROXY`, then `all_proxy`/`ALL_PROXY`
//   (lower case first, as curl does). `http_proxy`/`HTTP_PROXY` only apply to plain-HTTP
//   targets, which EGRESS-3 allows only on loopback, so in practice they never apply.
// - `no_proxy`/`NO_PROXY` (comma or space separated): `*`, host names (matching the host and its
//   subdomains; a leading `.` or `*.` is ignored), IP literals, IPv4/IPv6 CIDR blocks, each
//   optionally with `:port`. It applies to explicit proxies too.
// - Supported proxy schemes: http, https (TLS to the proxy, verified), socks5 (the client resolves
//   the target name) and socks5h (the proxy resolves it). A URL without a scheme is http.
// Proxy URLs may carry credentials: `describeProxy` is the only form that reaches messages.
import { BlockList, isIP } from 'node:net';
import { EmbedderError } from './embedder.errors';
import { isLoopbackHostname } from './endpoint-url.policy';

export const PROXY_SCHEMES = ['http:', 'https:', 'socks5:', 'socks5h:'] as const;
export type ProxyScheme = (typeof PROXY_SCHEMES)[number];

export interface ProxyRoute {
  url: URL;
  scheme: ProxyScheme;
  /** Where the proxy URL came from (an env var name or `config`), for messages. */
  source: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/** `scheme://host:port` of a proxy: never its credentials, path or query. */
export function describeProxy(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

function envValue(env: Env, name: string): { value: string; source: string } | undefined {
  for (const key of [name.toLowerCase(), name.toUpperCase()]) {
    const value = env[key]?.trim();
    if (value) return { value, source: key };
  }
  return undefined;
}

export function parseProxyUrl(raw: string, source: string): ProxyRoute {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    throw new EmbedderError('invalid_config', `proxy URL from ${source} is not a valid URL`);
  }
  const scheme = PROXY_SCHEMES.find((s) => s === url.protocol);
  if (scheme === undefined || url.hostname === '') {
    throw new EmbedderError(
      'invalid_config',
      `proxy URL from ${source} must use http, https, socks5 or socks5h (got ${url.protocol})`,
    );
  }
  return { url, scheme, source };
}

function defaultPort(target: URL): string {
  return target.port || (target.protocol === 'https:' ? '443' : '80');
}

function splitHostPort(entry: string): { host: string; port?: string } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { host: bracketed[1] ?? '', ...(bracketed[2] ? { port: bracketed[2] } : {}) };
  const colons = entry.split(':').length - 1;
  if (colons === 1) {
    const [host = '', port = ''] = entry.split(':');
    if (/^\d+$/.test(port)) return { host, port };
  }
  return { host: entry };
}

function matchesCidr(host: string, cidr: string): boolean {
  const [base = '', bitsText = ''] = cidr.split('/');
  const family = isIP(base);
  const hostFamily = isIP(host);
  const bits = Number(bitsText);
  if (family === 0 || hostFamily !== family || !Number.isInteger(bits)) return false;
  const list = new BlockList();
  try {
    list.addSubnet(base, bits, family === 6 ? 'ipv6' : 'ipv4');
  } catch {
    return false;
  }
  return list.check(host, family === 6 ? 'ipv6' : 'ipv4');
}

/** True when `no_proxy` says `target` must be reached directly. */
export function bypassesProxy(target: URL, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  const host = target.hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  const port = defaultPort(target);
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    if (entry.includes('/')) {
      if (matchesCidr(host, entry)) return true;
      continue;
    }
    const parsed = splitHostPort(entry);
    if (parsed.port !== undefined && parsed.port !== port) continue;
    const name = parsed.host.replace(/^\*?\./, '').replace(/\.$/, '');
    if (name === '') continue;
    if (host === name || (isIP(host) === 0 && host.endsWith(`.${name}`))) return true;
  }
  return false;
}

export interface ProxyChoiceOptions {
  /** An explicit proxy URL from configuration; wins over the environment (not over loopback). */
  proxy?: string;
  env?: Env;
}

/** The proxy route for `target`, or undefined for a direct connection. */
export function chooseProxy(target: URL, options: ProxyChoiceOptions = {}): ProxyRoute | undefined {
  if (isLoopbackHostname(target.hostname)) return undefined;
  const env = options.env ?? process.env;
  if (bypassesProxy(target, envValue(env, 'no_proxy')?.value)) return undefined;
  if (options.proxy !== undefined) return parseProxyUrl(options.proxy, 'config');
  const names = target.protocol === 'https:' ? ['https_proxy', 'all_proxy'] : ['http_proxy', 'all_proxy'];
  for (const name of names) {
    const found = envValue(env, name);
    if (found) return parseProxyUrl(found.value, found.source);
  }
  return undefined;
}

/** `[rag] proxy` / `proxy_env` (EGRESS-5): a configured proxy URL or the env var holding one. */
export interface ConfiguredProxy {
  /** Inline proxy URL: the config schema forbids credentials in it. */
  proxy?: string;
  /** Name of an environment variable holding the proxy URL (credentials allowed there). */
  proxyEnv?: string;
}

/**
 * The explicit proxy URL to hand to the egress clients, or undefined to fall back to the proxy
 * environment variables. A named but unset variable is an error, never a silent direct connection.
 */
export function resolveConfiguredProxy(
  configured: ConfiguredProxy,
  env: Env = process.env,
): string | undefined {
  if (configured.proxy !== undefined && configured.proxyEnv !== undefined)
    throw new EmbedderError('invalid_config', 'give proxy or proxy_env, not both');
  if (configured.proxy !== undefined) {
    const route = parseProxyUrl(configured.proxy, 'config');
    if (route.url.username !== '' || route.url.password !== '')
      throw new EmbedderError(
        'invalid_config',
        'proxy credentials belong in the variable named by proxy_env',
      );
    return configured.proxy;
  }
  if (configured.proxyEnv === undefined) return undefined;
  const value = env[configured.proxyEnv]?.trim();
  if (!value)
    throw new EmbedderError('invalid_config', `environment variable ${configured.proxyEnv} is not set`);
  parseProxyUrl(value, configured.proxyEnv);
  return value;
}
