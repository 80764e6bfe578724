import { fastTestKdf, tempDataDir } from './test-only-support';
import { type LocalVaultService, createVaultService } from './vault-service';

const PW = 'index sources password';
let s: LocalVaultService;

beforeEach(async () => {
  s = createVaultService(tempDataDir(), { kdf: fastTestKdf });
  await s.init(PW);
});
afterEach(() => s.close());

describe('index sources for retrieval (RAG-3, RAG-6, RAG-21)', () => {
  it('returns only live heads; the content stamp changes with writes, not with intents', () => {
    const live = s.write({ title: 'Live', body: 'alpha' });
    const gone = s.write({ title: 'Gone', body: 'beta' });
    s.delete({ asset_id: gone.asset_id });
    const base = s.write({ title: 'C', body: 'c' });
    s.writeWithParents({ asset_id: base.asset_id, parents: [base.revision_id], title: 'C1', body: 'c1' });
    s.writeWithParents({ asset_id: base.asset_id, parents: [base.revision_id], title: 'C2', body: 'c2' });
    const src = s.indexSources();
    expect(src.sources).toEqual([
      { asset_id: live.asset_id, revision_id: live.revision_id, title: 'Live', body: 'alpha' },
    ]);
    expect(src.excluded).toBe(2);
    expect(src.device_only).toBe(false);
    const stamp = s.indexStamp();
    s.recordIntent('read', { op: 'search', sources: [] });
    s.recordEvent('rag.result', { outcome: 'delivered' });
    expect(s.indexStamp()).toEqual(stamp);
    s.write({ asset_id: live.asset_id, title: 'Live', body: 'alpha 2' });
    expect(s.indexStamp().content_stamp).not.toBe(stamp.content_stamp);
    const kinds = s.auditEntries().map((e) => `${e.type}:${e.kind}`);
    expect(kinds).toEqual(expect.arrayContaining(['intent:read', 'event:rag.result']));
  });

  it('lock and unlock bump the unlock generation; a locked service answers locked', async () => {
    const g0 = s.unlockGeneration();
    s.lock();
    expect(s.unlockGeneration()).toBeGreaterThan(g0);
    expect(() => s.indexSources()).toThrow(expect.objectContaining({ code: 'locked' }));
    expect(() => s.recordIntent('read', {})).toThrow(expect.objectContaining({ code: 'locked' }));
    const g1 = s.unlockGeneration();
    await s.unlock(PW);
    expect(s.unlockGeneration()).toBeGreaterThan(g1);
    expect(s.indexStamp().unlock_generation).toBe(s.unlockGeneration());
  });
});
