// A small line-based unified diff (LCS), no dependency. Used by the `diff` op.

interface Op {
  kind: ' ' | '-' | '+';
  line: string;
}

/** Longest-common-subsequence edit script from `a` to `b` (O(n·m); bodies are bounded by IPC limits). */
function editScript(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    const row = lcs[i] as Uint32Array;
    const below = lcs[i + 1] as Uint32Array;
    for (let j = m - 1; j >= 0; j--)
      row[j] =
        a[i] === b[j] ? (below[j + 1] as number) + 1 : Math.max(below[j] as number, row[j + 1] as number);
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push({ kind: ' ', line: a[i] as string });
      i++;
      j++;
    } else if (((lcs[i + 1] as Uint32Array)[j] as number) >= ((lcs[i] as Uint32Array)[j + 1] as number)) {
      ops.push({ kind: '-', line: a[i++] as string });
    } else {
      ops.push({ kind: '+', line: b[j++] as string });
    }
  }
  while (i < n) ops.push({ kind: '-', line: a[i++] as string });
  while (j < m) ops.push({ kind: '+', line: b[j++] as string });
  return ops;
}

function splitLines(text: string): string[] {
  return text === '' ? [] : text.split('\n');
}

function range(start: number, count: number): string {
  return count === 1 ? `${start}` : `${count === 0 ? start - 1 : start},${count}`;
}

/**
 * Unified diff of two texts with `context` lines around each change, `---`/`+++`
 * headers and `@@ -a,b +c,d @@` hunks. Identical texts give an empty string.
 */
export function unifiedDiff(
  fromText: string,
  toText: string,
  fromLabel: string,
  toLabel: string,
  context = 3,
): string {
  const ops = editScript(splitLines(fromText), splitLines(toText));
  const changed = ops.map((op, k) => (op.kind !== ' ' ? k : -1)).filter((k) => k >= 0);
  if (changed.length === 0) return '';
  const out = [`--- ${fromLabel}`, `+++ ${toLabel}`];
  let k = 0;
  while (k < changed.length) {
    const start = Math.max(0, (changed[k] as number) - context);
    let end = Math.min(ops.length, (changed[k] as number) + context + 1);
    while (k + 1 < changed.length && (changed[k + 1] as number) - context <= end) {
      k++;
      end = Math.min(ops.length, (changed[k] as number) + context + 1);
    }
    k++;
    let aLine = 1;
    let bLine = 1;
    for (let x = 0; x < start; x++) {
      if ((ops[x] as Op).kind !== '+') aLine++;
      if ((ops[x] as Op).kind !== '-') bLine++;
    }
    const hunk = ops.slice(start, end);
    const aCount = hunk.filter((op) => op.kind !== '+').length;
    const bCount = hunk.filter((op) => op.kind !== '-').length;
    out.push(`@@ -${range(aLine, aCount)} +${range(bLine, bCount)} @@`);
    for (const op of hunk) out.push(`${op.kind}${op.line}`);
  }
  return `${out.join('\n')}\n`;
}

/** The text the `diff` op compares: the title line, a blank line, then the body. */
export function assetText(title: string, body: string): string {
  return `${title}\n\n${body}`;
}
