// A typed client for the Center's HTTP API, driven by the generated operation table.
// platform:any: plain fetch, no Node builtins.
import { CENTER_OPERATIONS, type CenterOperationId, type CenterOperations } from './generated/center-api';

export class CenterApiError extends Error {
  override readonly name = 'CenterApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(`${status} ${code}: ${message}`);
  }
}

export interface CenterClientOptions {
  readonly baseUrl: string;
  /** Member credential or grant token for content routes. */
  readonly token?: string;
  /** The admin bearer for /v1/admin routes. */
  readonly adminToken?: string;
  readonly fetch?: typeof fetch;
  /** Per-request deadline (connect + answer); default 10000 ms. */
  readonly timeoutMs?: number;
}

export const DEFAULT_CENTER_TIMEOUT_MS = 10_000;

type Args<K extends CenterOperationId> = (keyof CenterOperations[K]['params'] extends never
  ? { params?: Record<string, never> }
  : { params: CenterOperations[K]['params'] }) &
  (CenterOperations[K]['body'] extends undefined
    ? { body?: undefined }
    : { body: CenterOperations[K]['body'] });

export class CenterClient {
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: CenterClientOptions) {
    this.fetchImpl = options.fetch ?? fetch;
  }

  /** Calls one operation; non-2xx answers throw CenterApiError with the typed error code. */
  async call<K extends CenterOperationId>(op: K, args: Args<K>): Promise<CenterOperations[K]['response']> {
    const spec = CENTER_OPERATIONS[op];
    const params = (args.params ?? {}) as Record<string, string>;
    const path = spec.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
      const value = params[name];
      if (value === undefined) throw new TypeError(`missing path parameter ${name}`);
      return encodeURIComponent(value);
    });
    const headers: Record<string, string> = {};
    const token =
      spec.auth === 'admin'
        ? this.options.adminToken
        : spec.auth === 'content'
          ? this.options.token
          : undefined;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (args.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(args.body);
    }
    // Redirects are refused (a redirect could carry the bearer elsewhere); every request has a deadline.
    const signal = AbortSignal.timeout(this.options.timeoutMs ?? DEFAULT_CENTER_TIMEOUT_MS);
    const res = await this.fetchImpl(this.options.baseUrl.replace(/\/$/, '') + path, {
      method: spec.method,
      headers,
      redirect: 'error',
      signal,
      ...(body !== undefined ? { body } : {}),
    });
    const text = await res.text();
    if (!res.ok) {
      let error: { code?: string; message?: string; details?: unknown } = {};
      try {
        error = (JSON.parse(text) as { error?: typeof error }).error ?? {};
      } catch {
        /* not JSON */
      }
      throw new CenterApiError(res.status, error.code ?? 'http_error', error.message ?? text, error.details);
    }
    return (spec.text ? text : JSON.parse(text)) as CenterOperations[K]['response'];
  }
}
