// BUD-07: detect repeated calls that make no progress — the same tool with the same arguments
// returning the same failing result — and stop retrying that path.
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

export interface NoProgressOptions {
  /** Identical failures after which the path is blocked (default 2). */
  repeatLimit?: number;
}

export class NoProgressDetector {
  private readonly failures = new Map<string, { result: string; count: number }>();
  private readonly repeatLimit: number;
  private blockedHits = 0;

  constructor(options: NoProgressOptions = {}) {
    this.repeatLimit = options.repeatLimit ?? 2;
  }

  static key(tool: string, args: unknown): string {
    return `${tool}\u0000${canonical(args)}`;
  }

  /** True when this exact call already failed the same way `repeatLimit` times. */
  isBlocked(tool: string, args: unknown): boolean {
    const entry = this.failures.get(NoProgressDetector.key(tool, args));
    const blocked = entry !== undefined && entry.count >= this.repeatLimit;
    if (blocked) this.blockedHits += 1;
    return blocked;
  }

  /** Records an outcome; a success or a different failure resets the path. */
  record(tool: string, args: unknown, result: { content: string; isError: boolean }): void {
    const key = NoProgressDetector.key(tool, args);
    if (!result.isError) {
      this.failures.delete(key);
      return;
    }
    const entry = this.failures.get(key);
    if (entry && entry.result === result.content) entry.count += 1;
    else this.failures.set(key, { result: result.content, count: 1 });
  }

  /** How many blocked calls the model attempted; the loop wraps up when it keeps insisting. */
  get blockedAttempts(): number {
    return this.blockedHits;
  }
}
