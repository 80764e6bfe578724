import { unifiedDiff } from './text-diff';

describe('unifiedDiff (diff op)', () => {
  it('identical texts give an empty diff', () => {
    expect(unifiedDiff('a\nb', 'a\nb', 'x', 'y')).toBe('');
  });

  it('shows removed and added lines with headers and a hunk range', () => {
    expect(unifiedDiff('one\ntwo\nthree', 'one\n2\nthree\nfour', 'from', 'to')).toBe(
      ['--- from', '+++ to', '@@ -1,3 +1,4 @@', ' one', '-two', '+2', ' three', '+four', ''].join('\n'),
    );
  });

  it('splits distant changes into separate hunks with 3 context lines', () => {
    const a = Array.from({ length: 20 }, (_, i) => `l${i}`);
    const b = [...a];
    b[1] = 'X';
    b[18] = 'Y';
    const out = unifiedDiff(a.join('\n'), b.join('\n'), 'a', 'b');
    expect(out.match(/^@@/gm)).toHaveLength(2);
    expect(out).toContain('@@ -1,5 +1,5 @@');
    expect(out).toContain('@@ -16,5 +16,5 @@');
  });

  it('handles empty sides', () => {
    expect(unifiedDiff('', 'new', 'a', 'b')).toBe('--- a\n+++ b\n@@ -0,0 +1 @@\n+new\n');
  });
});
