import { makeAuditEntry, verifyAuditLines, AUDIT_GENESIS, canonicalJson } from './audit-chain';

function chain(n: number): string[] {
  const lines: string[] = [];
  let prev = AUDIT_GENESIS;
  for (let i = 1; i <= n; i++) {
    const e = makeAuditEntry(i, 1_700_000_000_000 + i, prev, {
      type: 'grant.issue',
      actor: `m${i}`,
      vault: 'v',
    });
    lines.push(JSON.stringify(e));
    prev = e.hash;
  }
  return lines;
}

describe('AUD-3 unkeyed hash chain', () => {
  it('verifies an intact chain and reports its head', () => {
    const lines = chain(5);
    const v = verifyAuditLines([...lines, '']);
    expect(v).toMatchObject({ ok: true, entries: 5 });
  });

  it('detects a changed field, a removed line, a reordered line and a bad known head', () => {
    const lines = chain(5);
    const changed = [...lines];
    changed[2] = (changed[2] as string).replace('"actor":"m3"', '"actor":"mallory"');
    expect(verifyAuditLines(changed)).toMatchObject({ ok: false, line: 3 });
    expect(verifyAuditLines([...lines.slice(0, 2), ...lines.slice(3)])).toMatchObject({ ok: false, line: 3 });
    expect(verifyAuditLines([lines[1] as string, lines[0] as string])).toMatchObject({ ok: false, line: 1 });
    const head = (JSON.parse(lines[4] as string) as { hash: string }).hash;
    expect(verifyAuditLines(lines, head)).toMatchObject({ ok: true });
    // Truncation relative to a known head (AUD-3): the head is missing.
    expect(verifyAuditLines(lines.slice(0, 3), head)).toMatchObject({ ok: false });
  });

  it('canonical JSON sorts keys recursively', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}',
    );
  });
});
