// IPC-2 framing: u32 big-endian byte length || that many bytes of UTF-8 JSON.
// Limits: a declared length of 0 or above MAX_FRAME_BYTES is refused from the 4-byte
// prefix alone, before any of the body is buffered.
import { IpcError, MAX_FRAME_BYTES } from '@arslan/protocol';

const HEADER_BYTES = 4;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Encodes one frame. Throws `frame_too_large` if the JSON exceeds `maxFrameBytes`. */
export function encodeFrame(value: unknown, maxFrameBytes: number = MAX_FRAME_BYTES): Buffer {
  const json = JSON.stringify(value);
  if (json === undefined) throw new IpcError('bad_request', 'value is not JSON-serialisable');
  const length = Buffer.byteLength(json, 'utf8');
  if (length > maxFrameBytes)
    throw new IpcError('frame_too_large', `frame of ${length} bytes exceeds ${maxFrameBytes}`);
  const frame = Buffer.allocUnsafe(HEADER_BYTES + length);
  frame.writeUInt32BE(length, 0);
  frame.write(json, HEADER_BYTES, 'utf8');
  return frame;
}

/** Parses a frame body as strict UTF-8 JSON; anything else is `bad_request` (the bytes are not echoed). */
export function parseFrameJson(body: Uint8Array): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new IpcError('bad_request', 'frame is not valid UTF-8');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new IpcError('bad_request', 'frame is not valid JSON');
  }
}

/**
 * Streaming decoder: feed it socket chunks in any split; it returns each complete frame body.
 * After it throws (`frame_too_large`, or `bad_request` for a zero length) it is poisoned:
 * the stream cannot be resynchronised, so the connection must be closed.
 */
export class FrameDecoder {
  private readonly header = Buffer.alloc(HEADER_BYTES);
  private headerFill = 0;
  private body: Buffer | null = null;
  private bodyFill = 0;
  private failed: IpcError | null = null;

  constructor(private readonly maxFrameBytes: number = MAX_FRAME_BYTES) {}

  /** True while part of a frame (even one byte of its prefix) has arrived but not all of it. */
  get inFrame(): boolean {
    return this.headerFill > 0 || this.body !== null;
  }

  push(chunk: Uint8Array): Buffer[] {
    if (this.failed) throw this.failed;
    const frames: Buffer[] = [];
    let offset = 0;
    while (offset < chunk.length) {
      if (this.body === null) {
        const take = Math.min(HEADER_BYTES - this.headerFill, chunk.length - offset);
        this.header.set(chunk.subarray(offset, offset + take), this.headerFill);
        this.headerFill += take;
        offset += take;
        if (this.headerFill < HEADER_BYTES) break;
        const length = this.header.readUInt32BE(0);
        if (length === 0) this.fail(new IpcError('bad_request', 'zero-length frame'));
        if (length > this.maxFrameBytes)
          this.fail(
            new IpcError(
              'frame_too_large',
              `declared frame of ${length} bytes exceeds ${this.maxFrameBytes}`,
            ),
          );
        this.body = Buffer.allocUnsafe(length);
        this.bodyFill = 0;
        this.headerFill = 0;
      }
      const take = Math.min(this.body.length - this.bodyFill, chunk.length - offset);
      this.body.set(chunk.subarray(offset, offset + take), this.bodyFill);
      this.bodyFill += take;
      offset += take;
      if (this.bodyFill === this.body.length) {
        frames.push(this.body);
        this.body = null;
      }
    }
    return frames;
  }

  private fail(error: IpcError): never {
    this.failed = error;
    this.body = null;
    this.headerFill = 0;
    throw error;
  }
}
