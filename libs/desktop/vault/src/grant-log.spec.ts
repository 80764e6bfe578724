import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { storePath } from './store-schema';
import { fastTestKdf, tempDataDir } from './test-only-support';
import { type LocalVaultService, createVaultService } from './vault-service';

// The sealed grant log the MCP grant registry persists through (GRANT-11/12/16, AUD-2).
const PW = 'correct horse battery staple';
const open: LocalVaultService[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

async function fresh(dir = tempDataDir()) {
  const s = createVaultService(dir, { kdf: fastTestKdf });
  open.push(s);
  await s.init(PW);
  return { dir, s };
}

const entry = (n: number) => ({ t: 'grant', id: String(n).padStart(32, '0'), digest: 'f'.repeat(64) });

describe('grant log rows', () => {
  it('GRANT-12: entries survive lock, unlock and a restart; none of it is plaintext on disk', async () => {
    const { dir, s } = await fresh();
    s.appendGrantLog([entry(1), entry(2)], 1);
    s.appendGrantLog([entry(3)], 3);
    s.lock();
    expect(() => s.readGrantLog()).toThrow(expect.objectContaining({ code: 'locked' }));
    await s.unlock(PW);
    expect(s.readGrantLog()).toEqual([entry(1), entry(2), entry(3)]);
    s.close();
    const again = createVaultService(dir, { kdf: fastTestKdf });
    open.push(again);
    await again.unlock(PW);
    expect(again.readGrantLog()).toHaveLength(3);
    expect(fs.readFileSync(storePath(dir)).includes(Buffer.from('ffffffffffffffff'))).toBe(false);
  });

  it('rewrite replaces the whole log in one commit and the checkpoint still verifies', async () => {
    const { s } = await fresh();
    s.appendGrantLog([entry(1), entry(2), entry(3)], 1);
    s.rewriteGrantLog([entry(9)]);
    expect(s.readGrantLog()).toEqual([entry(9)]);
    s.appendGrantLog([entry(10)], 2);
    s.lock();
    await s.unlock(PW);
    expect(s.readGrantLog()).toEqual([entry(9), entry(10)]);
    expect(s.auditVerify().ok).toBe(true);
  });

  it('AUD-2: a grant row deleted without the key is detected at unlock', async () => {
    const { dir, s } = await fresh();
    s.appendGrantLog([entry(1), entry(2)], 1);
    s.close();
    const db = new Database(storePath(dir));
    db.prepare("DELETE FROM state WHERE purpose = 'grants.000000000002'").run();
    db.close();
    const again = createVaultService(dir, { kdf: fastTestKdf });
    open.push(again);
    await expect(again.unlock(PW)).rejects.toThrow(expect.objectContaining({ code: 'corrupt' }));
  });

  it('GRANT-16: grants never enter a backup', async () => {
    const { s } = await fresh();
    s.appendGrantLog([entry(1)], 1);
    const file = path.join(tempDataDir(), 'b.backup');
    await s.backup({ path: file, backup_password: 'backup password' });
    const target = tempDataDir();
    fs.rmSync(target, { recursive: true, force: true });
    const restored = createVaultService(target, { kdf: fastTestKdf });
    open.push(restored);
    await restored.restore({ path: file, backup_password: 'backup password', password: PW });
    expect(restored.readGrantLog()).toEqual([]);
  });

  it('grantContext names the vault id and its members', async () => {
    const { s } = await fresh();
    const ctx = s.grantContext('personal');
    expect(ctx).toMatchObject({
      vault: 'personal',
      local_member: 'owner',
      members: [{ name: 'owner', role: 'owner' }],
    });
    expect(ctx.vault_id).toBe(s.state().vaults[0]?.vault_id);
    expect(() => s.grantContext('nope')).toThrow(expect.objectContaining({ code: 'not_found' }));
  });
});
