// Cursor over a length-prefixed binary record (revision-binary.ts). Every read checks the
// bytes left, so a truncated or over-long field is `malformed`, never an out-of-range read.
import { utf8DecodeStrict } from '@arslan/util';
import { VaultFormatError } from './vault-core.errors';

export class ByteReader {
  private offset = 0;
  private readonly view: DataView;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  }

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  private need(n: number, what: string): number {
    if (n > this.remaining) throw new VaultFormatError('malformed', `${what} runs past the end`);
    const at = this.offset;
    this.offset += n;
    return at;
  }

  u8(what: string): number {
    return this.view.getUint8(this.need(1, what));
  }

  u32(what: string): number {
    return this.view.getUint32(this.need(4, what), false);
  }

  /** A u64be that must be a safe integer (timestamps). */
  u64(what: string): number {
    const value = this.view.getBigUint64(this.need(8, what), false);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new VaultFormatError('malformed', `${what} too large`);
    return Number(value);
  }

  /** A copy of the next `n` bytes (the caller may wipe the record afterwards). */
  bytesOf(n: number, what: string): Uint8Array {
    const at = this.need(n, what);
    return this.bytes.slice(at, at + n);
  }

  /** u32be length ‖ bytes. */
  lp(what: string): Uint8Array {
    return this.bytesOf(this.u32(what), what);
  }

  /** u32be length ‖ strict UTF-8. */
  lpText(what: string): string {
    const text = utf8DecodeStrict(this.lp(what));
    if (text === undefined) throw new VaultFormatError('malformed', `${what} is not UTF-8`);
    return text;
  }

  end(what: string): void {
    if (this.remaining !== 0) throw new VaultFormatError('malformed', `${what} has trailing bytes`);
  }
}

/** Writes into one buffer sized up front (no concatenation copies on the write path). */
export class ByteWriter {
  private offset = 0;
  readonly bytes: Uint8Array;
  private readonly view: DataView;

  constructor(size: number) {
    this.bytes = new Uint8Array(size);
    this.view = new DataView(this.bytes.buffer);
  }

  u8(n: number): void {
    this.view.setUint8(this.offset, n);
    this.offset += 1;
  }

  u32(n: number): void {
    this.view.setUint32(this.offset, n, false);
    this.offset += 4;
  }

  u64(n: number): void {
    this.view.setBigUint64(this.offset, BigInt(n), false);
    this.offset += 8;
  }

  raw(bytes: Uint8Array): void {
    this.bytes.set(bytes, this.offset);
    this.offset += bytes.length;
  }

  lp(bytes: Uint8Array): void {
    this.u32(bytes.length);
    this.raw(bytes);
  }

  /** The written bytes; throws if the size computed up front was wrong (a bug, not input). */
  done(): Uint8Array {
    if (this.offset !== this.bytes.length) throw new Error('ByteWriter: size mismatch');
    return this.bytes;
  }
}
