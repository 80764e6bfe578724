/**
 * Reads a non-TTY stdin incrementally: whole lines (one per password with --password-stdin)
 * or everything that is left (a write body). One instance per process run.
 */
export class StdinReader {
  private buffer = '';
  private ended = false;
  private waiting: (() => void) | null = null;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private failure: Error | null = null;

  constructor(private readonly stream: NodeJS.ReadableStream) {}

  private started = false;

  private start(): void {
    if (this.started) return;
    this.started = true;
    this.stream.on('data', (chunk: Buffer | string) => {
      try {
        this.buffer += typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
      } catch {
        this.failure = new Error('stdin is not valid UTF-8');
      }
      this.wake();
    });
    this.stream.on('end', () => {
      this.ended = true;
      this.wake();
    });
    this.stream.on('error', (error: Error) => {
      this.failure = error;
      this.ended = true;
      this.wake();
    });
    this.stream.resume();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
  }

  private async next(): Promise<void> {
    await new Promise<void>((resolve) => (this.waiting = resolve));
  }

  /** The next line without its terminator, or null at end of input. */
  async readLine(): Promise<string | null> {
    this.start();
    for (;;) {
      if (this.failure) throw this.failure;
      const newline = this.buffer.indexOf('\n');
      if (newline !== -1) {
        const line = this.buffer.slice(0, newline).replace(/\r$/, '');
        this.buffer = this.buffer.slice(newline + 1);
        return line;
      }
      if (this.ended) {
        if (this.buffer === '') return null;
        const line = this.buffer;
        this.buffer = '';
        return line;
      }
      await this.next();
    }
  }

  async readAll(): Promise<string> {
    this.start();
    while (!this.ended) await this.next();
    if (this.failure) throw this.failure;
    const all = this.buffer;
    this.buffer = '';
    return all;
  }

  /** Stop reading so the process can exit even if stdin stays open. */
  release(): void {
    if (this.started) this.stream.pause();
  }
}
