// For spec files only: one HTTP call to a running local API over a real socket.
import { request } from 'node:http';
import type { LocalApi } from './local-api.server';

export interface ApiReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The raw response bytes (artifact downloads). */
  bytes: Buffer;
  /** The parsed JSON body; {} when the response is not JSON. */
  body: Record<string, unknown>;
}

export interface CallOptions {
  body?: unknown;
  /** A request body sent verbatim instead of JSON-encoding `body` (malformed-JSON cases). */
  raw?: string;
  /** Extra request headers; they override the defaults (e.g. a wrong content-type, host or origin). */
  headers?: Record<string, string>;
  /** Defaults to the API's own token; null sends none. */
  token?: string | null;
}

export function callApi(
  api: LocalApi,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<ApiReply> {
  const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const token = options.token === undefined ? api.token : options.token;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: api.port,
        method,
        path,
        headers: {
          ...(token !== null ? { authorization: `Bearer ${token}` } : {}),
          ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          const json = String(res.headers['content-type']).startsWith('application/json');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            bytes,
            body:
              json && bytes.length > 0 ? (JSON.parse(bytes.toString('utf8')) as Record<string, unknown>) : {},
          });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Polls GET /api/runs/:id until the run has a result. */
export async function runFinished(
  api: LocalApi,
  runId: string,
  timeoutMs = 10_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await callApi(api, 'GET', `/api/runs/${runId}`);
    if (run.body['result']) return run.body;
    if (Date.now() > deadline) throw new Error('the run did not finish');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
