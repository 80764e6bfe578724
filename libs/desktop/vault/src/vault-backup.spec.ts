import fs from 'node:fs';
import path from 'node:path';
import { fastTestKdf, tempDataDir } from './test-only-support';
import { type LocalVaultService, createVaultService } from './vault-service';

const PW = 'store password';
const BPW = 'backup password';
const open: LocalVaultService[] = [];
const code = (c: string) => expect.objectContaining({ code: c });

function service(dir = tempDataDir()): LocalVaultService {
  let t = 1_700_000_000_000;
  const s = createVaultService(dir, { kdf: fastTestKdf, now: () => (t += 1000) });
  open.push(s);
  return s;
}

afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

async function populated() {
  const s = service();
  const init = await s.init(PW);
  const live = s.write({ title: 'MARKER-TITLE-live', body: 'MARKER-BODY-live' });
  s.write({ asset_id: live.asset_id, title: 'MARKER-TITLE-live', body: 'MARKER-BODY-live-v2' });
  const base = s.write({ title: 'Conflict', body: 'base' });
  s.writeWithParents({
    asset_id: base.asset_id,
    parents: [base.revision_id],
    title: 'Conflict',
    body: 'MARKER-A',
  });
  s.writeWithParents({
    asset_id: base.asset_id,
    parents: [base.revision_id],
    title: 'Conflict',
    body: 'MARKER-B',
  });
  const gone = s.write({ title: 'Deleted', body: 'MARKER-deleted' });
  s.delete({ asset_id: gone.asset_id });
  s.vaultCreate({ name: 'local', device_only: true });
  s.write({ vault: 'local', title: 'MARKER-device-only', body: 'MARKER-device-only' });
  s.vaultCreate({ name: 'work' });
  const work = s.write({ vault: 'work', title: 'Work note', body: 'MARKER-work' });
  const file = path.join(tempDataDir(), 'arslan.backup');
  return { s, init, live, base, gone, work, file };
}

describe('backup / restore (BAK-1..6)', () => {
  it('BAK-1/6: backup is an encrypted envelope, mode 0600, no plaintext, no device-only vault', async () => {
    const { s, file } = await populated();
    const res = await s.backup({ path: file, backup_password: BPW });
    expect(res).toMatchObject({ path: file, vaults: 2, assets: 4 });
    const bytes = fs.readFileSync(file);
    expect(res.bytes).toBe(bytes.length);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const header = JSON.parse(bytes.subarray(0, bytes.indexOf(0x0a)).toString('utf8'));
    expect(header).toMatchObject({ format: 'arslan-backup', version: 1, kdf: { algorithm: 'argon2id' } });
    expect(header.salt).toMatch(/^[0-9a-f]{32}$/);
    expect(bytes.includes(Buffer.from('MARKER'))).toBe(false);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['arslan.backup']);
    expect(s.auditVerify()).toMatchObject({ ok: true });
  });

  it('BAK-1: backup refuses to overwrite an existing file (bad_request)', async () => {
    const { s, file } = await populated();
    fs.writeFileSync(file, 'keep me');
    await expect(s.backup({ path: file, backup_password: BPW })).rejects.toThrow(code('bad_request'));
    expect(fs.readFileSync(file, 'utf8')).toBe('keep me');
  });

  it('BAK-2..5: restore into a new dir: same content and conflict heads, new vault ids and device, no device-only vault', async () => {
    const { s, init, live, base, gone, file } = await populated();
    await s.backup({ path: file, backup_password: BPW });
    const oldFingerprint = s.state().deviceFingerprint;
    const oldWorkId = s.state().vaults.find((v) => v.name === 'work')?.vault_id;

    const r = service();
    const res = await r.restore({ path: file, backup_password: BPW, password: PW });
    expect(res.vaults.map((v) => v.name)).toEqual(['personal', 'work']);
    expect(res.assets).toBe(3);
    expect(res.device_fingerprint).not.toBe(oldFingerprint);
    expect(res.vaults.find((v) => v.name === 'personal')?.vault_id).not.toBe(init.vault_id);
    expect(res.vaults.find((v) => v.name === 'work')?.vault_id).not.toBe(oldWorkId);
    expect(r.state()).toMatchObject({ unlocked: true, deviceFingerprint: res.device_fingerprint });

    expect(r.read({ asset_id: live.asset_id })).toMatchObject({
      title: 'MARKER-TITLE-live',
      body: 'MARKER-BODY-live-v2',
      state: 'live',
    });
    const conflict = r.read({ asset_id: base.asset_id });
    expect(conflict.state).toBe('conflicted');
    expect(conflict.heads).toHaveLength(2);
    const bodies = conflict.heads.map((h) => r.read({ asset_id: base.asset_id, revision_id: h }).body).sort();
    expect(bodies).toEqual(['MARKER-A', 'MARKER-B']);
    expect(() => r.read({ asset_id: gone.asset_id })).toThrow(code('not_found'));
    const history = r.history({ asset_id: live.asset_id }).revisions;
    expect(history).toHaveLength(1);
    expect(history[0]?.device_fingerprint).toBe(res.device_fingerprint);
    expect(r.list({ vault: 'work' }).assets.map((a) => a.title)).toEqual(['Work note']);
    expect(() => r.list({ vault: 'local' })).toThrow(code('not_found'));

    // BAK-4: the original signed history is kept as a sealed read-only archive row.
    const state = r.serviceState();
    const archive = state.vaults['personal']?.archive as string;
    expect(archive).toMatch(/^archive\.[0-9a-f]{32}$/);
    const archived = r.requireStore().readRow(archive) as { vault_id: string; revisions: unknown[] };
    expect(archived.vault_id).toBe(init.vault_id);
    expect(archived.revisions).toHaveLength(7);
    // BAK-5: a fresh single-owner policy listing only the new device.
    const policy = state.vaults['personal']?.policy ?? [];
    expect(policy).toHaveLength(1);
    expect(policy[0]?.members).toHaveLength(1);
    expect(policy[0]?.members[0]?.devices).toEqual([res.device_fingerprint]);

    // The restored store is a normal store: write and reopen.
    r.write({ asset_id: live.asset_id, title: 'after', body: 'restore' });
    r.lock();
    await r.unlock(PW);
    expect(r.read({ asset_id: live.asset_id }).body).toBe('restore');
  });

  it('BAK-1: wrong backup password → bad_password; a flipped ciphertext byte → bad_password; nothing created', async () => {
    const { s, file } = await populated();
    await s.backup({ path: file, backup_password: BPW });
    const dir = tempDataDir();
    const r = service(dir);
    await expect(r.restore({ path: file, backup_password: 'wrong', password: PW })).rejects.toThrow(
      code('bad_password'),
    );
    const bytes = fs.readFileSync(file);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 5) ^ 1, bytes.length - 5);
    const tampered = `${file}.tampered`;
    fs.writeFileSync(tampered, bytes);
    await expect(r.restore({ path: tampered, backup_password: BPW, password: PW })).rejects.toThrow(
      code('bad_password'),
    );
    fs.writeFileSync(`${file}.junk`, 'not a backup\n0123456789012345678901234567890123456789');
    await expect(r.restore({ path: `${file}.junk`, backup_password: BPW, password: PW })).rejects.toThrow(
      code('corrupt'),
    );
    expect(r.state().initialized).toBe(false);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('restore refuses when a store exists (already_initialized)', async () => {
    const { s, file } = await populated();
    await s.backup({ path: file, backup_password: BPW });
    await expect(s.restore({ path: file, backup_password: BPW, password: PW })).rejects.toThrow(
      code('already_initialized'),
    );
  });
});
