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
});
