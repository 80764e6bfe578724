import { ed25519 } from '@noble/curves/ed25519.js';
import { AUDIT_GENESIS_HASH, type AuditRecord, signAuditRecord, verifyAuditRecords } from './audit-chain';

const seed = new Uint8Array(32).fill(9);
const publicKey = ed25519.getPublicKey(seed);

function chain(n: number): AuditRecord[] {
  const out: AuditRecord[] = [];
  let prev = AUDIT_GENESIS_HASH;
  for (let seq = 1; seq <= n; seq++) {
    const r = signAuditRecord(
      prev,
      { seq, at: 1000 + seq, type: 'intent', kind: 'memory.read', details: { n: seq } },
      seed,
    );
    out.push(r);
    prev = r.hash;
  }
  return out;
}

describe('audit hash chain (AUD-1, AUD-2)', () => {
  it('AUD-1: a signed chain verifies and reports its head', () => {
    const c = chain(4);
    expect(verifyAuditRecords(c, publicKey, { count: 4, head: c[3]!.hash })).toEqual({
      ok: true,
      count: 4,
      head: c[3]!.hash,
    });
    expect(verifyAuditRecords([], publicKey, { count: 0, head: AUDIT_GENESIS_HASH })).toMatchObject({
      ok: true,
    });
  });

  it('AUD-2: a removed entry in the middle is detected', () => {
    const c = chain(4);
    expect(verifyAuditRecords([c[0], c[2], c[3]], publicKey)).toEqual({
      ok: false,
      problem: 'out_of_order',
      seq: 2,
    });
    // even if the attacker renumbers the entry, the hash link breaks
    const renumbered = { ...c[2]!, entry: { ...c[2]!.entry, seq: 2 } };
    expect(verifyAuditRecords([c[0], renumbered], publicKey)).toEqual({
      ok: false,
      problem: 'broken_link',
      seq: 2,
    });
  });

  it('AUD-2: reordered entries are detected', () => {
    const c = chain(3);
    expect(verifyAuditRecords([c[1], c[0], c[2]], publicKey)).toMatchObject({ ok: false, seq: 1 });
  });

  it('AUD-2: a modified entry is detected, and a re-hashed one fails the device signature', () => {
    const c = chain(3);
    const changed = { ...c[1]!, entry: { ...c[1]!.entry, details: { n: 99 } } };
    expect(verifyAuditRecords([c[0], changed, c[2]], publicKey)).toEqual({
      ok: false,
      problem: 'modified',
      seq: 2,
    });
    const rehashed = signAuditRecord(c[0]!.hash, changed.entry, new Uint8Array(32).fill(1));
    expect(verifyAuditRecords([c[0], { ...rehashed, sig: c[1]!.sig }], publicKey)).toEqual({
      ok: false,
      problem: 'bad_signature',
      seq: 2,
    });
    expect(verifyAuditRecords([c[0], rehashed], publicKey)).toEqual({
      ok: false,
      problem: 'bad_signature',
      seq: 2,
    });
  });

  it('AUD-2: entries removed from the end are detected against the checkpoint head', () => {
    const c = chain(3);
    expect(verifyAuditRecords(c.slice(0, 2), publicKey, { count: 3, head: c[2]!.hash })).toEqual({
      ok: false,
      problem: 'checkpoint_mismatch',
      seq: 3,
    });
  });

  it('AUD-1: records with a wrong shape are malformed, not accepted', () => {
    expect(verifyAuditRecords([{ entry: {} }], publicKey)).toEqual({
      ok: false,
      problem: 'malformed',
      seq: 1,
    });
  });
});
