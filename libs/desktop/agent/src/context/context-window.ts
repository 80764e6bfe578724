// PROV-13 / CTX-02: what the runtime knows about a model's context window. Known models come
// from the provider table (`contextWindowOf`); a model served from this machine or the local
// network is "local"; anything else is "unknown".
import { contextWindowOf } from '../providers/pricing';

export type ContextWindowInfo =
  | { kind: 'known'; tokens: number }
  | { kind: 'unknown' }
  /** A model served locally (Ollama, LM Studio, llama.cpp…): windows are small and configurable. */
  | { kind: 'local' };

/** CTX-02: the window assumed for an unknown model and for a local model. */
export const UNKNOWN_MODEL_WINDOW = 32_000;
export const LOCAL_MODEL_WINDOW = 8_192;

/** True for loopback, private-range and `.local` hosts — endpoints served on the user's side. */
export function isLocalEndpoint(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local')) return true;
  if (host === '::1' || host.startsWith('fc') || host.startsWith('fd')) return host.includes(':');
  const octets = host.split('.').map(Number);
  if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255)) return false;
  const [a, b] = octets as [number, number, number, number];
  return a === 127 || a === 10 || (a === 192 && b === 168) || (a === 172 && b >= 16 && b <= 31);
}

/**
 * PROV-13: a model's context window. A known model keeps its table value even on a local
 * endpoint (a router may serve it); an unlisted model on a local endpoint is "local".
 */
export function describeContextWindow(model: string, baseUrl?: string): ContextWindowInfo {
  const tokens = contextWindowOf(model);
  if (tokens !== undefined) return { kind: 'known', tokens };
  if (baseUrl !== undefined && isLocalEndpoint(baseUrl)) return { kind: 'local' };
  return { kind: 'unknown' };
}

/** The window size the budgets are computed from (CTX-02). */
export function effectiveWindow(info: ContextWindowInfo): number {
  switch (info.kind) {
    case 'known':
      return info.tokens;
    case 'unknown':
      return UNKNOWN_MODEL_WINDOW;
    case 'local':
      return LOCAL_MODEL_WINDOW;
  }
}
