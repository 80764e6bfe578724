import { fromBase64UrlStrict, toBase64Url, hexToBytes, bytesToHex, utf8DecodeStrict, constantTimeEqual, u32be } from './bytes';

describe('bytes', () => {
  it('round-trips base64url and refuses non-canonical spellings', () => {
    const bytes = new Uint8Array([0xff, 0xfe]);
    const text = toBase64Url(bytes);
    expect(text).toBe('__4');
    expect(fromBase64UrlStrict(text)).toEqual(bytes);
    expect(fromBase64UrlStrict('__7')).toBeUndefined(); // non-zero trailing bits
    expect(fromBase64UrlStrict('__4=')).toBeUndefined(); // padding
    expect(fromBase64UrlStrict('__+')).toBeUndefined(); // base64 (not url) alphabet
    expect(fromBase64UrlStrict(' __4')).toBeUndefined();
    expect(fromBase64UrlStrict('A')).toBeUndefined();
    expect(fromBase64UrlStrict('')).toEqual(new Uint8Array(0));
  });

  it('parses only lowercase hex pairs', () => {
    expect(bytesToHex(hexToBytes('00ff10'))).toBe('00ff10');
    expect(() => hexToBytes('0')).toThrow(TypeError);
    expect(() => hexToBytes('FF')).toThrow(TypeError);
  });

  it('refuses invalid UTF-8 instead of substituting', () => {
    expect(utf8DecodeStrict(new Uint8Array([0xe6, 0x97, 0xa5]))).toBe('日');
    expect(utf8DecodeStrict(new Uint8Array([0xe6, 0x97]))).toBeUndefined();
  });

  it('compares equal-length buffers', () => {
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(constantTimeEqual(new Uint8Array([1]), new Uint8Array([1, 3]))).toBe(false);
  });

  it('encodes u32 big-endian and rejects out-of-range values', () => {
    expect(Array.from(u32be(0x01020304))).toEqual([1, 2, 3, 4]);
    expect(() => u32be(-1)).toThrow(RangeError);
    expect(() => u32be(2 ** 32)).toThrow(RangeError);
  });
});
