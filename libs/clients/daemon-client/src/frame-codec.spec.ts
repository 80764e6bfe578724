import { IpcError, MAX_FRAME_BYTES } from '@arslan/protocol';
import { FrameDecoder, encodeFrame, parseFrameJson } from './frame-codec';

const json = (frames: Buffer[]) => frames.map((body) => parseFrameJson(body));

describe('IPC-2 framing', () => {
  it('encodes u32 big-endian length || UTF-8 JSON', () => {
    const frame = encodeFrame({ v: 1, op: 'status', s: 'ü' });
    const body = '{"v":1,"op":"status","s":"ü"}';
    expect(frame.readUInt32BE(0)).toBe(Buffer.byteLength(body));
    expect(frame.subarray(4).toString('utf8')).toBe(body);
  });

  it('decodes frames split at every byte boundary', () => {
    const a = encodeFrame({ id: 1 });
    const b = encodeFrame({ id: 2, text: 'x'.repeat(300) });
    const stream = Buffer.concat([a, b]);
    for (let cut = 1; cut < stream.length; cut++) {
      const decoder = new FrameDecoder();
      const out = [...decoder.push(stream.subarray(0, cut)), ...decoder.push(stream.subarray(cut))];
      expect(json(out)).toEqual([{ id: 1 }, { id: 2, text: 'x'.repeat(300) }]);
      expect(decoder.inFrame).toBe(false);
    }
  });

  it('decodes byte-by-byte and several frames merged in one chunk', () => {
    const stream = Buffer.concat([encodeFrame([1]), encodeFrame([2]), encodeFrame([3])]);
    const decoder = new FrameDecoder();
    const out: Buffer[] = [];
    for (const byte of stream) out.push(...decoder.push(Uint8Array.of(byte)));
    expect(json(out)).toEqual([[1], [2], [3]]);
    expect(json(new FrameDecoder().push(stream))).toEqual([[1], [2], [3]]);
  });

  it('reports a partial frame (even a partial prefix) as inFrame', () => {
    const decoder = new FrameDecoder();
    decoder.push(Uint8Array.of(0, 0));
    expect(decoder.inFrame).toBe(true);
  });

  it('rejects a declared length above MAX_FRAME_BYTES from the prefix alone, then stays failed', () => {
    const decoder = new FrameDecoder();
    const prefix = Buffer.alloc(4);
    prefix.writeUInt32BE(MAX_FRAME_BYTES + 1, 0);
    expect(() => decoder.push(prefix)).toThrow(expect.objectContaining({ code: 'frame_too_large' }));
    expect(() => decoder.push(encodeFrame({}))).toThrow(IpcError);
    const exact = new FrameDecoder(8);
    expect(json(exact.push(encodeFrame('123456')))).toEqual(['123456']);
    expect(() => new FrameDecoder(8).push(encodeFrame('1234567'))).toThrow(/exceeds 8/);
  });

  it('rejects a zero-length frame', () => {
    expect(() => new FrameDecoder().push(Buffer.alloc(4))).toThrow(
      expect.objectContaining({ code: 'bad_request', message: 'zero-length frame' }),
    );
  });

  it('refuses to encode a frame above the limit', () => {
    expect(() => encodeFrame('x'.repeat(20), 10)).toThrow(
      expect.objectContaining({ code: 'frame_too_large' }),
    );
  });

  it('parseFrameJson: malformed JSON and invalid UTF-8 are bad_request without echoing the bytes', () => {
    expect(() => parseFrameJson(Buffer.from('{"password":"hunter2"'))).toThrow(
      expect.objectContaining({ code: 'bad_request', message: 'frame is not valid JSON' }),
    );
    expect(() => parseFrameJson(Uint8Array.of(0x22, 0xff, 0x22))).toThrow(
      expect.objectContaining({ code: 'bad_request', message: 'frame is not valid UTF-8' }),
    );
  });
});
