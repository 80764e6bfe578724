// A stdio transport for the MCP server with the bounds the SDK's own one lacks: a maximum
// message size, and JSON-RPC error replies (instead of silence) for lines that are not JSON
// (-32700) or not JSON-RPC (-32600). Keeps stdout for protocol traffic only (MCP TS mapping).
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** Largest accepted message line, in bytes (bodies are at most 8 MiB, JSON escaping included). */
export const MAX_MCP_MESSAGE_BYTES = 16 * 1024 * 1024;

type ErrorReply = { jsonrpc: '2.0'; id: string | number | null; error: { code: number; message: string } };

export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private chunks: Buffer[] = [];
  private size = 0;
  /** True while the rest of an oversized line is being skipped. */
  private discarding = false;
  private closed = false;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    private readonly maxBytes = MAX_MCP_MESSAGE_BYTES,
  ) {}

  private readonly onData = (chunk: Buffer | string): void => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    while (data.length > 0) {
      const newline = data.indexOf(0x0a);
      const part = newline === -1 ? data : data.subarray(0, newline);
      if (!this.discarding) {
        this.size += part.length;
        if (this.size > this.maxBytes) {
          this.chunks = [];
          this.size = 0;
          this.discarding = true;
          this.reply({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'message too large' } });
        } else {
          this.chunks.push(part);
        }
      }
      if (newline === -1) return;
      if (!this.discarding) this.handleLine(Buffer.concat(this.chunks).toString('utf8'));
      this.chunks = [];
      this.size = 0;
      this.discarding = false;
      data = data.subarray(newline + 1);
    }
  };

  private readonly onEnd = (): void => void this.close();
  private readonly onInputError = (error: Error): void => this.onerror?.(error);

  private handleLine(line: string): void {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.reply({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = (value as { id?: unknown } | null)?.id;
      const usable = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
      this.reply({
        jsonrpc: '2.0',
        id: usable,
        error: { code: -32600, message: 'invalid JSON-RPC message' },
      });
      return;
    }
    this.onmessage?.(parsed.data);
  }

  private reply(message: ErrorReply): void {
    if (!this.closed) this.output.write(`${JSON.stringify(message)}\n`);
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onInputError);
    this.input.resume();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed || this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onInputError);
    this.input.pause();
    this.chunks = [];
    this.onclose?.();
  }
}
