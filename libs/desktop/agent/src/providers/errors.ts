// Mapping of HTTP / network / stream failures to ProviderError kinds, and secret redaction:
// no error message ever carries an API key.
import { ProviderError, type ProviderErrorKind, type ToolSpec } from '../ports/model.port';

const TRANSIENT_STATUS = new Set([408, 425, 429, 500, 502, 503, 504, 529]);
const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

export function statusKind(status: number): ProviderErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (TRANSIENT_STATUS.has(status)) return 'transient';
  if (status >= 400 && status < 500) return 'bad_request';
  return 'bad_response';
}

/** Replaces the key and anything that looks like a credential. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  return out
    .replace(/\bsk-[A-Za-z0-9_-]{8,}/g, '[redacted]')
    .replace(/\bAIza[0-9A-Za-z_-]{20,}/g, '[redacted]')
    .replace(/(Bearer\s+)[^\s"']+/gi, '$1[redacted]')
    .replace(/((?:x-api-key|x-goog-api-key|api[_-]?key)["']?\s*[:=]\s*["']?)[^\s"',}]+/gi, '$1[redacted]');
}

/** Extracts the human message from a provider error body (all three formats), else the raw text. */
export function errorMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as unknown;
    const candidates: unknown[] = [];
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) {
        for (const item of value) visit(item);
        return;
      }
      if (!value || typeof value !== 'object') return;
      const record = value as Record<string, unknown>;
      if (typeof record['message'] === 'string') candidates.push(record['message']);
      if (record['error'] !== undefined) visit(record['error']);
      if (typeof record['error'] === 'string') candidates.push(record['error']);
      if (typeof record['detail'] === 'string') candidates.push(record['detail']);
    };
    visit(parsed);
    const first = candidates.find((c): c is string => typeof c === 'string' && c.length > 0);
    if (first) return first;
  } catch {
    // not JSON: the raw body is the message
  }
  return body;
}

export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function isTransientNetworkError(error: unknown): boolean {
  const code = errorCode(error);
  if (code && TRANSIENT_CODES.has(code)) return true;
  // undici: TypeError('fetch failed') / TypeError('terminated') around a socket error
  return (
    error instanceof TypeError && /fetch failed|terminated|socket|other side closed/i.test(error.message)
  );
}

const TOOL_CONTEXT =
  /\btools?\s*(?:\.|\[)\s*\d+|function_declarations|functionDeclarations|input_schema|invalid schema|json schema|\bschemas?\b|\bparameters\b/i;

function nameAt(message: string, name: string): number {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`(^|[^A-Za-z0-9_.-])${escaped}(?![A-Za-z0-9_-])`).exec(message);
  return match ? match.index : -1;
}

/**
 * PROV-11: decides whether a 400 is a tool rejection and which tool it names (by name, or by the
 * index of `tools[i]` / `function_declarations[i]`). Undefined: not about tools.
 */
export function detectRejectedTool(
  message: string,
  tools: readonly ToolSpec[],
): { tool: string | undefined } | undefined {
  if (tools.length === 0 || !TOOL_CONTEXT.test(message)) return undefined;
  let named: string | undefined;
  for (const tool of tools) {
    if (nameAt(message, tool.name) !== -1 && (!named || tool.name.length > named.length)) named = tool.name;
  }
  if (named) return { tool: named };
  // Gemini's `tools[0]` is the one declarations container: its declaration index comes first.
  const index =
    /function_?declarations\s*\[\s*(\d+)\s*\]/i.exec(message)?.[1] ??
    /\btools\s*(?:\.|\[)\s*(\d+)/i.exec(message)?.[1];
  if (index !== undefined) {
    const byIndex = tools[Number(index)];
    if (byIndex) return { tool: byIndex.name };
  }
  return { tool: undefined };
}

export function providerError(
  kind: ProviderErrorKind,
  message: string,
  secrets: readonly (string | undefined)[],
  details: ProviderError['details'] = {},
): ProviderError {
  return new ProviderError(kind, redact(message, secrets), details);
}
