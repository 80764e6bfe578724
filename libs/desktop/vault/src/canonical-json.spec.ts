import { canonicalJson } from './canonical-json';

describe('canonicalJson (AUD-1 entry hashing)', () => {
  it('sorts keys at every level and has no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [true, null, 'x'], c: 2.5 } })).toBe(
      '{"a":{"c":2.5,"d":[true,null,"x"]},"b":1}',
    );
  });

  it.each([[{ a: undefined }], [{ a: Number.NaN }], [{ a: new Date(0) }], [{ a: () => 1 }], [{ a: 1n }]])(
    'rejects non-JSON values: %p',
    (value) => {
      expect(() => canonicalJson(value)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    },
  );

  it('names the path of the offending value and refuses array holes', () => {
    expect(() => canonicalJson({ a: [1, { b: [0, Number.POSITIVE_INFINITY] }] })).toThrow('$.a[1].b[1]');
    expect(() => canonicalJson([1, , 2])).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('encodes large scalar arrays like JSON.stringify (snapshot fast path)', () => {
    const rows = Array.from({ length: 1000 }, (_, i) => [
      `id-${i}`,
      i,
      i * 1.5,
      [[`h${i}`, 0, i, 't"\\n', 'memory']],
    ]);
    expect(canonicalJson(rows)).toBe(JSON.stringify(rows));
  });
});
