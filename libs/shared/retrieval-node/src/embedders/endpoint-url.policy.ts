// EGRESS-3/4/9/11: which model endpoint URLs may be contacted. Decided from the parsed URL's
// literal host only, never from DNS: `localhost`, 127.0.0.0/8 and ::1 are loopback; everything
// else must use HTTPS. Messages never echo the raw URL (it could carry credentials).
import { isIPv4 } from 'node:net';
import { EmbedderError } from './embedder.errors';

export interface CheckedEndpoint {
  url: URL;
  /** The literal host is loopback (plain HTTP allowed, no proxy, counts as local). */
  loopback: boolean;
}

/** True for `localhost`, any 127.0.0.0/8 literal and `::1` (WHATWG-normalised hostnames). */
export function isLoopbackHostname(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost') return true;
  if (host === '[::1]' || host === '::1') return true;
  return isIPv4(host) && host.startsWith('127.');
}

export interface EndpointPolicyOptions {
  /** Allow a query string (download mirrors); model APIs refuse one (keys never in URLs). */
  allowQuery?: boolean;
}

export function checkEndpointUrl(raw: string, options: EndpointPolicyOptions = {}): CheckedEndpoint {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new EmbedderError('invalid_config', 'endpoint is not a valid absolute URL');
  }
  if (url.username !== '' || url.password !== '') {
    throw new EmbedderError('egress_refused', 'endpoint URLs must not carry credentials');
  }
  if (url.hash !== '' || (!options.allowQuery && url.search !== '')) {
    throw new EmbedderError('egress_refused', 'endpoint URLs must not carry a query or fragment');
  }
  const loopback = isLoopbackHostname(url.hostname);
  if (url.protocol === 'https:') return { url, loopback };
  if (url.protocol === 'http:') {
    if (loopback) return { url, loopback };
    throw new EmbedderError(
      'egress_refused',
      `plain HTTP is allowed only for loopback hosts (got ${url.host})`,
    );
  }
  throw new EmbedderError('egress_refused', `unsupported URL scheme ${url.protocol}`);
}

/** EGRESS-8: TLS verification can't be turned off through this lib; refuse if the process did it. */
export function assertTlsVerificationOn(
  endpoint: CheckedEndpoint,
  env: Readonly<Record<string, string | undefined>> = process.env,
): void {
  if (endpoint.url.protocol === 'https:' && env['NODE_TLS_REJECT_UNAUTHORIZED'] === '0') {
    throw new EmbedderError('egress_refused', 'TLS certificate verification is disabled in this process');
  }
}
