// Small helpers shared by the adapters' renderers and decoders.
import { ProviderError } from '../ports/model.port';

export type Obj = Record<string, unknown>;

export const isObj = (value: unknown): value is Obj =>
  !!value && typeof value === 'object' && !Array.isArray(value);

/** Tool-call arguments as an object for wire formats that need one (invalid JSON → `{}`). */
export function argsObject(argumentsJson: string): Obj {
  try {
    const parsed = JSON.parse(argumentsJson) as unknown;
    return isObj(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

export function parseData(label: string, data: string): Obj {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw new ProviderError('bad_response', `${label}: stream event is not JSON`);
  }
  if (!isObj(parsed)) throw new ProviderError('bad_response', `${label}: stream event is not an object`);
  return parsed;
}

export const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** A provider error reported inside the stream: overload / server errors are transient. */
export function streamError(label: string, error: unknown, hasOutput: boolean): ProviderError {
  const record = isObj(error) ? error : {};
  const type = str(record['type']) ?? str(record['status']) ?? String(record['code'] ?? 'error');
  const message = str(record['message']) ?? 'error event';
  const transient =
    /overloaded|api_error|rate_limit|unavailable|internal|resource_exhausted|server_error|5\d\d|429/i.test(
      type,
    );
  const kind = hasOutput ? 'stream_broken' : transient ? 'transient' : 'bad_response';
  return new ProviderError(kind, `${label}: ${type}: ${message}`);
}
