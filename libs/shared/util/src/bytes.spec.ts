import fc from 'fast-check';
import type * as BytesApi from './bytes';
import {
  fromBase64UrlStrict,
  toBase64Url,
  hexToBytes,
  bytesToHex,
  utf8DecodeStrict,
  constantTimeEqual,
  u32be,
} from './bytes';

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

type BytesModule = typeof BytesApi;

describe('base64url: the native (Buffer) and pure (@scure/base) paths agree', () => {
  function loadPure(): BytesModule {
    const saved = globalThis.Buffer;
    let mod: BytesModule | undefined;
    try {
      (globalThis as { Buffer?: unknown }).Buffer = undefined;
      jest.isolateModules(() => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        mod = require('./bytes');
      });
    } finally {
      globalThis.Buffer = saved;
    }
    return mod!;
  }
  const pure = loadPure();

  it('encodes identically and decodes identically on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const text = toBase64Url(bytes);
        expect(pure.toBase64Url(bytes)).toBe(text);
        expect(fromBase64UrlStrict(text)).toEqual(bytes);
        expect(pure.fromBase64UrlStrict(text)).toEqual(bytes);
      }),
      { numRuns: 500 },
    );
  });

  it('accepts and refuses the same strings', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'AQgw_-=+/ Z9a'.split('')), maxLength: 12 }),
        (text) => {
          const a = fromBase64UrlStrict(text);
          const b = pure.fromBase64UrlStrict(text);
          expect(a === undefined).toBe(b === undefined);
          if (a && b) {
            expect(a).toEqual(b);
            expect(toBase64Url(a)).toBe(text);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
