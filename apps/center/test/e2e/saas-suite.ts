// Saas mode (CTR-5..8) and sealed secrets (SEAL-1..8) over real HTTP.
import {
  buildPlaintext,
  generateDeviceKeys,
  nobleCrypto,
  openEnvelope,
  sealEnvelope,
  type DeviceKeys,
} from '@arslan/envelope';
import { toBase64Url } from '@arslan/util';
import { deviceAuthorizationBytes } from '@arslan/center-domain';
import { seedMembers, type Harness, type Reply } from '../support/center-harness';

let seq = 0;
const code = (r: Reply): string | undefined => r.body?.error?.code;

function b64(b: Uint8Array): string {
  return toBase64Url(b);
}

export function saasSuite(get: () => Harness): void {
  async function setup(h: Harness) {
    seq += 1;
    const vault = `saas-${process.pid}-${seq}`;
    const sfx = `${seq}${Math.random().toString(36).slice(2, 6)}`;
    const c = await seedMembers(h, vault, {
      [`own${sfx}`]: 'owner',
      [`adm${sfx}`]: 'admin',
      [`ed${sfx}`]: 'editor',
      [`rd${sfx}`]: 'reader',
    });
    const tok = {
      owner: c[`own${sfx}`] as string,
      admin: c[`adm${sfx}`] as string,
      editor: c[`ed${sfx}`] as string,
      reader: c[`rd${sfx}`] as string,
    };
    const names = { owner: `own${sfx}`, admin: `adm${sfx}`, editor: `ed${sfx}`, reader: `rd${sfx}` };
    const rpc = (token: string, op: string, params: object = {}) =>
      h.call('POST', '/v1/rpc', { token, body: { vault, op, params } });
    return { vault, tok, names, rpc };
  }

  function authorize(vault: string, member: string, newDevice: DeviceKeys, signer: DeviceKeys) {
    const ed = b64(newDevice.signingPublicKey);
    const x = b64(newDevice.exchangePublicKey);
    const sig = nobleCrypto.ed25519Sign(
      signer.signingSeed,
      deviceAuthorizationBytes(vault, member, newDevice.fingerprint, ed, x),
    );
    return { ed25519: ed, x25519: x, signature: b64(sig) };
  }

  function seal(from: DeviceKeys, to: DeviceKeys, card: string, revision: number, secret: string) {
    const header = [card, String(revision), from.fingerprint, to.fingerprint, String(Date.now())];
    return sealEnvelope(nobleCrypto, {
      profile: 'sealed',
      header,
      plaintext: buildPlaintext('sealed', header, { secret }),
      senderSigningSeed: from.signingSeed,
      recipientExchangePublicKey: to.exchangePublicKey,
    });
  }

  describe('saas mode', () => {
    it('CTR-5: cards live in the server-encrypted store; CTR-8: unknown operations fail directly', async () => {
      const h = get();
      const { vault, tok, rpc } = await setup(h);
      const put = await rpc(tok.editor, 'card.put', {
        id: 'c1',
        title: 'wifi',
        body: 'office',
        secret: 'hunter2-plain',
      });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({ id: 'c1', revision: 1, e2e: false });
      const got = await rpc(tok.reader, 'card.get', { id: 'c1' });
      expect(got.body).toMatchObject({ title: 'wifi', body: 'office', secret: 'hunter2-plain' });
      const row = await h.center.context.store.read((r) => r.findCard(vault, 'c1'));
      expect(row?.data).not.toMatch(/wifi|office|hunter2/);
      const unknown = await rpc(tok.owner, 'memory.search', {});
      expect([unknown.status, code(unknown)]).toEqual([501, 'unsupported_operation']);
      const badParams = await rpc(tok.editor, 'card.put', { title: 't', extra: 1 });
      expect([badParams.status, code(badParams)]).toEqual([400, 'bad_request']);
    });

    it('CTR-9/GRANT-1: the admin bearer gets 401 on /v1/rpc; readers and read grants cannot write', async () => {
      const h = get();
      const { vault, tok, names, rpc } = await setup(h);
      const admin = await h.call('POST', '/v1/rpc', {
        token: h.center.adminToken,
        body: { vault, op: 'card.list', params: {} },
      });
      expect([admin.status, code(admin)]).toEqual([401, 'admin_bearer_not_allowed']);
      const reader = await rpc(tok.reader, 'card.put', { title: 't' });
      expect([reader.status, code(reader)]).toEqual([403, 'insufficient_scope']);
      const g = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: tok.owner,
        body: { to: names.editor, minutes: 5 },
      });
      const viaGrant = await rpc(g.body.token, 'card.put', { title: 't' });
      expect([viaGrant.status, code(viaGrant)]).toEqual([403, 'insufficient_scope']);
      expect((await rpc(g.body.token, 'card.list')).status).toBe(200);
      const other = await h.call('POST', '/v1/rpc', {
        token: g.body.token,
        body: { vault: `${vault}x`, op: 'card.list', params: {} },
      });
      expect([other.status, code(other)]).toEqual([403, 'insufficient_scope']);
    });

    it('SEAL-5/CTR-10: devices are authorised by device signatures, never by the Center or a grant', async () => {
      const h = get();
      const { vault, tok, names, rpc } = await setup(h);
      const a = generateDeviceKeys(nobleCrypto);
      const b = generateDeviceKeys(nobleCrypto);
      const notOwner = await rpc(tok.admin, 'device.add', {
        ...authorize(vault, names.admin, a, a),
        authorizedBy: 'self',
      });
      expect([notOwner.status, code(notOwner)]).toEqual([403, 'device_authorization_invalid']);
      const g = await h.call('POST', `/v1/vaults/${vault}/grants`, {
        token: tok.owner,
        body: { to: names.owner, scope: 'allow_all', minutes: 5 },
      });
      const viaGrant = await rpc(g.body.token, 'device.add', {
        ...authorize(vault, names.owner, a, a),
        authorizedBy: 'self',
      });
      expect([viaGrant.status, code(viaGrant)]).toEqual([403, 'forbidden']);
      const first = await rpc(tok.owner, 'device.add', {
        ...authorize(vault, names.owner, a, a),
        authorizedBy: 'self',
      });
      expect(first.status).toBe(200);
      expect(first.body.id).toBe(a.fingerprint);
      const selfAgain = await rpc(tok.editor, 'device.add', {
        ...authorize(vault, names.editor, b, b),
        authorizedBy: 'self',
      });
      expect([selfAgain.status, code(selfAgain)]).toEqual([403, 'device_authorization_invalid']);
      const forged = await rpc(tok.editor, 'device.add', {
        ...authorize(vault, names.editor, b, b),
        authorizedBy: a.fingerprint,
      });
      expect([forged.status, code(forged)]).toEqual([403, 'device_authorization_invalid']);
      const ok = await rpc(tok.editor, 'device.add', {
        ...authorize(vault, names.editor, b, a),
        authorizedBy: a.fingerprint,
      });
      expect(ok.status).toBe(200);
      const list = await rpc(tok.reader, 'device.list');
      expect(list.body.devices.map((d: { id: string }) => d.id).sort()).toEqual(
        [a.fingerprint, b.fingerprint].sort(),
      );
      expect(JSON.stringify(list.body)).not.toMatch(/seed|private/i);
    });

    it('SEAL-1/SEAL-2/SEAL-3/SEAL-6/SEAL-8: e2e cards hold envelopes only; revocation and e2e removal delete them', async () => {
      const h = get();
      const { vault, tok, names, rpc } = await setup(h);
      const a = generateDeviceKeys(nobleCrypto);
      const b = generateDeviceKeys(nobleCrypto);
      await rpc(tok.owner, 'device.add', { ...authorize(vault, names.owner, a, a), authorizedBy: 'self' });
      await rpc(tok.editor, 'device.add', {
        ...authorize(vault, names.editor, b, a),
        authorizedBy: a.fingerprint,
      });
      const plain = await rpc(tok.editor, 'card.put', {
        id: 'k',
        title: 'bank',
        e2e: true,
        secret: 'pin-4321',
      });
      expect([plain.status, code(plain)]).toEqual([400, 'plaintext_secret_rejected']);
      expect(await h.center.context.store.read((r) => r.findCard(vault, 'k'))).toBeNull();

      const tampered = seal(a, b, 'k', 1, 'pin-4321');
      const flipped = { ...tampered, c: tampered.c.slice(0, -2) + (tampered.c.endsWith('A') ? 'BA' : 'AA') };
      const badSig = await rpc(tok.editor, 'card.put', {
        id: 'k',
        title: 'bank',
        e2e: true,
        envelopes: [{ wire: flipped }],
      });
      expect([badSig.status, code(badSig)]).toEqual([400, 'bad_envelope']);
      const stranger = generateDeviceKeys(nobleCrypto);
      const unknownSender = await rpc(tok.editor, 'card.put', {
        id: 'k',
        title: 'bank',
        e2e: true,
        envelopes: [{ wire: seal(stranger, b, 'k', 1, 'x') }],
      });
      expect([unknownSender.status, code(unknownSender)]).toEqual([400, 'bad_envelope']);
      const wrongRev = await rpc(tok.editor, 'card.put', {
        id: 'k',
        title: 'bank',
        e2e: true,
        envelopes: [{ wire: seal(a, b, 'k', 7, 'x') }],
      });
      expect([wrongRev.status, code(wrongRev)]).toEqual([400, 'bad_envelope']);

      const put = await rpc(tok.editor, 'card.put', {
        id: 'k',
        title: 'bank',
        e2e: true,
        envelopes: [{ wire: seal(a, a, 'k', 1, 'pin-4321') }, { wire: seal(a, b, 'k', 1, 'pin-4321') }],
      });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({ e2e: true, revision: 1 });
      const forB = await rpc(tok.editor, 'card.get', { id: 'k', device: b.fingerprint });
      expect(forB.body.secret).toBeUndefined();
      const opened = openEnvelope(nobleCrypto, forB.body.envelope, {
        recipientExchangePrivateKey: b.exchangePrivateKey,
        acceptedSenders: [a.signingPublicKey],
      });
      expect(opened.message.secret).toBe('pin-4321');
      const notMine = await rpc(tok.editor, 'card.get', { id: 'k', device: a.fingerprint });
      expect([notMine.status, code(notMine)]).toEqual([403, 'forbidden']);
      // SEAL-3: nothing the Center stores holds the secret in plaintext.
      const stored = await h.center.context.store.read(async (r) => [
        await r.findCard(vault, 'k'),
        await r.findEnvelope(vault, 'k', b.fingerprint),
      ]);
      expect(JSON.stringify(stored)).not.toContain('pin-4321');

      const adminRevoke = await rpc(tok.admin, 'device.revoke', { id: b.fingerprint });
      expect([adminRevoke.status, code(adminRevoke)]).toEqual([403, 'forbidden']);
      const revoke = await rpc(tok.owner, 'device.revoke', { id: b.fingerprint });
      expect(revoke.body).toEqual({ envelopesDeleted: 1 });
      expect(await h.center.context.store.read((r) => r.findEnvelope(vault, 'k', b.fingerprint))).toBeNull();

      const withSecret = await rpc(tok.owner, 'card.set_e2e', { id: 'k', e2e: false, secret: 'x' });
      expect([withSecret.status, code(withSecret)]).toEqual([400, 'bad_request']);
      const byAdmin = await rpc(tok.admin, 'card.set_e2e', { id: 'k', e2e: false });
      expect([byAdmin.status, code(byAdmin)]).toEqual([403, 'forbidden']);
      const byPut = await rpc(tok.admin, 'card.put', { id: 'k', title: 'bank', e2e: false });
      expect([byPut.status, code(byPut)]).toEqual([403, 'forbidden']);
      const off = await rpc(tok.owner, 'card.set_e2e', { id: 'k', e2e: false });
      expect(off.body).toMatchObject({ e2e: false, revision: 2 });
      expect(await h.center.context.store.read((r) => r.findEnvelope(vault, 'k', a.fingerprint))).toBeNull();
    });
  });
}
