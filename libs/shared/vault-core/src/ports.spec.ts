import { systemRandom } from './ports';

describe('systemRandom (pooled small requests)', () => {
  it('returns fresh arrays of the asked length, pooled or not', () => {
    for (const n of [0, 1, 16, 24, 32, 64, 65, 1000, 5000]) {
      const a = systemRandom.randomBytes(n);
      expect(a).toBeInstanceOf(Uint8Array);
      expect(a.length).toBe(n);
      expect(a.byteOffset).toBe(0);
      expect(a.buffer.byteLength).toBe(n);
    }
  });

  it('never repeats a 32-byte value across pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) seen.add(Array.from(systemRandom.randomBytes(32)).join(','));
    expect(seen.size).toBe(1000);
  });

  it('a handed-out value is independent of the pool (mutating it changes nothing later)', () => {
    const a = systemRandom.randomBytes(24);
    a.fill(0);
    const b = systemRandom.randomBytes(24);
    expect(b.some((x) => x !== 0)).toBe(true);
  });
});
