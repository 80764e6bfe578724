import { decodeContent, encodeContent } from './asset-content';
import { canonicalJson } from './canonical-json';
import { fastTestKdf, tempDataDir } from './test-only-support';
import { type LocalVaultService, createVaultService } from './vault-service';
import { utf8Encode } from '@arslan/util';

const PW = 'asset kinds password';
let s: LocalVaultService;
let dir: string;

beforeEach(async () => {
  dir = tempDataDir();
  s = createVaultService(dir, { kdf: fastTestKdf });
  await s.init(PW);
});
afterEach(() => s.close());

const code = (c: string) => expect.objectContaining({ code: c });

describe('asset content encoding', () => {
  it('content without kind (stores from before kinds) decodes as memory; memories keep that format', () => {
    const old = utf8Encode(canonicalJson({ title: 'T', body: 'B' }));
    expect(decodeContent(old)).toEqual({ kind: 'memory', title: 'T', body: 'B' });
    expect(encodeContent({ kind: 'memory', title: 'T', body: 'B' })).toEqual(old);
    const priv = encodeContent({ kind: 'private', title: 'T', body: 'B' });
    expect(decodeContent(priv)).toEqual({ kind: 'private', title: 'T', body: 'B' });
  });

  it('fails closed on an unknown kind or a field of another kind', () => {
    const bad = (v: unknown) => () => decodeContent(utf8Encode(JSON.stringify(v)));
    expect(bad({ kind: 'file', title: 'T', body: 'B' })).toThrow(code('corrupt'));
    expect(bad({ title: 'T', body: 'B', secrets: {} })).toThrow(code('corrupt'));
    expect(bad({ kind: 'card', title: 'T', body: 'B', fields: {}, links: [] })).toThrow(code('corrupt'));
    expect(bad({ kind: 'card', title: 'T', body: 'B', fields: { a: 1 }, links: [], secrets: {} })).toThrow(
      code('corrupt'),
    );
  });
});

describe('asset kinds (CRED-1, RAG-3)', () => {
  it('write defaults to memory; private and credential kinds persist across lock/unlock', async () => {
    const mem = s.write({ title: 'Mem', body: 'm' });
    const priv = s.write({ title: 'Diary', body: 'p', kind: 'private' });
    const cred = s.write({ title: 'API key', body: 'sk-123', kind: 'credential' });
    s.lock();
    await s.unlock(PW);
    expect(s.assetKind(undefined, mem.asset_id)).toBe('memory');
    expect(s.assetKind('personal', priv.asset_id)).toBe('private');
    expect(s.assetKind(undefined, cred.asset_id)).toBe('credential');
    const kinds = Object.fromEntries(s.list({}).assets.map((a) => [a.title, a.kind]));
    expect(kinds).toEqual({ Mem: 'memory', Diary: 'private', 'API key': 'credential' });
    expect(s.read({ asset_id: priv.asset_id })).toMatchObject({ kind: 'private', body: 'p' });
    expect(s.read({ asset_id: mem.asset_id }).kind).toBe('memory');
  });

  it('assetKind: not_found for an unknown asset or vault; a deleted asset keeps its kind', () => {
    const cred = s.write({ title: 'k', body: 'v', kind: 'credential' });
    expect(() => s.assetKind(undefined, 'f'.repeat(32))).toThrow(code('not_found'));
    expect(() => s.assetKind('nope', cred.asset_id)).toThrow(code('not_found'));
    s.delete({ asset_id: cred.asset_id });
    expect(s.assetKind(undefined, cred.asset_id)).toBe('credential');
    expect(s.list({ include_deleted: true }).assets[0]).toMatchObject({
      kind: 'credential',
      state: 'deleted',
    });
  });

  it('CRED-1: reading or diffing a credential is forbidden; list shows only title and kind', () => {
    const w1 = s.write({ title: 'DB password', body: 'hunter2', kind: 'credential' });
    const w2 = s.write({ asset_id: w1.asset_id, title: 'DB password', body: 'hunter3' });
    expect(() => s.read({ asset_id: w1.asset_id })).toThrow(code('forbidden'));
    expect(() => s.read({ asset_id: w1.asset_id, revision_id: w1.revision_id })).toThrow(code('forbidden'));
    expect(() => s.diff({ asset_id: w1.asset_id, from: w1.revision_id, to: w2.revision_id })).toThrow(
      code('forbidden'),
    );
    const listed = s.list({}).assets[0];
    expect(listed).toMatchObject({ title: 'DB password', kind: 'credential' });
    expect(JSON.stringify(s.list({}))).not.toContain('hunter');
    expect(JSON.stringify(s.history({ asset_id: w1.asset_id }))).not.toContain('hunter');
    // no read intent was committed for the refused reads
    expect(s.auditEntries().filter((e) => e.type === 'intent' && e.kind === 'read')).toHaveLength(0);
  });

  it('a write keeps the kind of an existing asset; changing it is bad_request', () => {
    const priv = s.write({ title: 'p', body: '1', kind: 'private' });
    const again = s.write({ asset_id: priv.asset_id, title: 'p', body: '2' });
    expect(s.read({ asset_id: again.asset_id }).kind).toBe('private');
    expect(() => s.write({ asset_id: priv.asset_id, title: 'p', body: '3', kind: 'memory' })).toThrow(
      code('bad_request'),
    );
    expect(() => s.write({ asset_id: priv.asset_id, title: 'p', body: '3', kind: 'credential' })).toThrow(
      code('bad_request'),
    );
    expect(s.write({ asset_id: priv.asset_id, title: 'p', body: '4', kind: 'private' }).asset_id).toBe(
      priv.asset_id,
    );
  });

  it('resolve and writeWithParents keep the kind of the asset', () => {
    const base = s.write({ title: 'c', body: 'c', kind: 'private' });
    s.writeWithParents({ asset_id: base.asset_id, parents: [base.revision_id], title: 'c1', body: 'c1' });
    s.writeWithParents({ asset_id: base.asset_id, parents: [base.revision_id], title: 'c2', body: 'c2' });
    expect(s.list({}).assets[0]).toMatchObject({ kind: 'private', state: 'conflicted' });
    s.resolve({ asset_id: base.asset_id, title: 'c', body: 'merged' });
    expect(s.read({ asset_id: base.asset_id })).toMatchObject({ kind: 'private', body: 'merged' });
  });

  it('RAG-3: private memories and credentials are not index sources', () => {
    const mem = s.write({ title: 'Mem', body: 'alpha' });
    s.write({ title: 'Diary', body: 'secret diary', kind: 'private' });
    s.write({ title: 'Key', body: 'sk-live-123', kind: 'credential' });
    const src = s.indexSources();
    expect(src.sources.map((x) => x.asset_id)).toEqual([mem.asset_id]);
    expect(src.excluded).toBe(2);
    expect(JSON.stringify(src)).not.toMatch(/secret diary|sk-live/);
  });

  it('kinds survive a backup and restore', async () => {
    const cred = s.write({ title: 'Key', body: 'sk', kind: 'credential' });
    const priv = s.write({ title: 'Diary', body: 'd', kind: 'private' });
    const file = `${dir}/kinds.backup`;
    await s.backup({ path: file, backup_password: 'backup pw' });
    const r = createVaultService(tempDataDir(), { kdf: fastTestKdf });
    try {
      await r.restore({ path: file, backup_password: 'backup pw', password: PW });
      expect(r.assetKind(undefined, cred.asset_id)).toBe('credential');
      expect(r.assetKind(undefined, priv.asset_id)).toBe('private');
    } finally {
      r.close();
    }
  });
});
