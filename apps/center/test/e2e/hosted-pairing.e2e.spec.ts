// SEAL-9 over real HTTP: hosted device pairing by scanning a QR payload, on SQLite and PostgreSQL.
// The Center issues a single-use code bound to the new device's keys; a paired device authorises
// (SEAL-5: the Center never does); local vault device addition (DEV-8..11) never comes here.
import { generateDeviceKeys, nobleCrypto, type DeviceKeys } from '@arslan/envelope';
import { toBase64Url } from '@arslan/util';
import { deviceAuthorizationBytes, encodePairingPayload, parsePairingPayload } from '@arslan/center-domain';
import { seedMembers, startHarness, type DbKind, type Harness, type Reply } from '../support/center-harness';

const code = (r: Reply): string | undefined => r.body?.error?.code;
const keysOf = (d: DeviceKeys) => ({
  ed25519: toBase64Url(d.signingPublicKey),
  x25519: toBase64Url(d.exchangePublicKey),
});
const sign = (signer: DeviceKeys, vault: string, member: string, d: DeviceKeys) =>
  toBase64Url(
    nobleCrypto.ed25519Sign(
      signer.signingSeed,
      deviceAuthorizationBytes(vault, member, d.fingerprint, keysOf(d).ed25519, keysOf(d).x25519),
    ),
  );

describe.each<DbKind>(['sqlite', 'postgresql'])('SEAL-9 hosted device pairing (%s)', (db) => {
  let h: Harness;
  let ticketMode: Harness;
  beforeAll(async () => {
    h = await startHarness(db, {
      overrides: { mode: 'saas', storePassword: 'correct horse battery staple' },
    });
    ticketMode = await startHarness('sqlite');
  });
  afterAll(async () => {
    await h?.stop();
    await ticketMode?.stop();
  });

  async function setup() {
    const vault = `pair-${Math.random().toString(36).slice(2, 8)}`;
    const sfx = Math.random().toString(36).slice(2, 6);
    const names = { owner: `own${sfx}`, editor: `ed${sfx}`, reader: `rd${sfx}` };
    const c = await seedMembers(h, vault, {
      [names.owner]: 'owner',
      [names.editor]: 'editor',
      [names.reader]: 'reader',
    });
    const tok = { owner: c[names.owner]!, editor: c[names.editor]!, reader: c[names.reader]! };
    const first = generateDeviceKeys(nobleCrypto);
    const added = await h.call('POST', '/v1/rpc', {
      token: tok.owner,
      body: {
        vault,
        op: 'device.add',
        params: { ...keysOf(first), authorizedBy: 'self', signature: sign(first, vault, names.owner, first) },
      },
    });
    expect(added.status).toBe(200);
    const offer = (token: string, d: DeviceKeys) =>
      h.call('POST', `/v1/vaults/${vault}/devices/pairing-offer`, { token, body: keysOf(d) });
    const scan = (token: string, body: object) =>
      h.call('POST', `/v1/vaults/${vault}/devices/pairing-scan`, { token, body });
    return { vault, names, tok, first, offer, scan };
  }

  it('SEAL-9/SEAL-5: new device shows a QR payload; a paired device scans and authorises it; the code is single-use', async () => {
    const { vault, names, tok, first, offer, scan } = await setup();
    const phone = generateDeviceKeys(nobleCrypto);
    const o = await offer(tok.owner, phone);
    expect(o.status).toBe(201);
    expect(o.body.fingerprint).toBe(phone.fingerprint);
    expect(o.body.payload).toMatch(/^arslan-pair:1:[A-Za-z0-9_-]+$/);
    const parsed = parsePairingPayload(o.body.payload);
    expect(parsed).toMatchObject({ vault, member: names.owner, ...keysOf(phone) });

    // Without a valid device signature the Center does not pair (it cannot authorise, SEAL-5).
    const unsigned = await scan(tok.owner, {
      payload: o.body.payload,
      authorizedBy: first.fingerprint,
      signature: sign(phone, vault, names.owner, phone),
    });
    expect([unsigned.status, code(unsigned)]).toEqual([403, 'device_authorization_invalid']);

    // A refused attempt changes nothing (the transaction rolls back); the same code then pairs, once.
    const ok = await scan(tok.owner, {
      payload: o.body.payload,
      authorizedBy: first.fingerprint,
      signature: sign(first, vault, names.owner, phone),
    });
    expect([ok.status, ok.body]).toEqual([201, { id: phone.fingerprint, member: names.owner }]);
    const again = await scan(tok.owner, {
      payload: o.body.payload,
      authorizedBy: first.fingerprint,
      signature: sign(first, vault, names.owner, phone),
    });
    expect([again.status, code(again)]).toEqual([409, 'ticket_used']);
    const devices = await h.call('POST', '/v1/rpc', {
      token: tok.reader,
      body: { vault, op: 'device.list' },
    });
    expect(devices.body.devices.map((d: { id: string }) => d.id).sort()).toEqual(
      [first.fingerprint, phone.fingerprint].sort(),
    );
  });

  it("SEAL-9: an Owner's device pairs another member's device; a tampered payload or another device's keys are refused", async () => {
    const { vault, names, tok, first, offer, scan } = await setup();
    const laptop = generateDeviceKeys(nobleCrypto);
    const o = await offer(tok.editor, laptop);
    expect(o.status).toBe(201);
    // Swapping in other keys (a QR swapped on the way) breaks the code's binding to the fingerprint.
    const intruder = generateDeviceKeys(nobleCrypto);
    const p = parsePairingPayload(o.body.payload);
    const swapped = encodePairingPayload({ ...p, ...keysOf(intruder) });
    const bad = await scan(tok.owner, {
      payload: swapped,
      authorizedBy: first.fingerprint,
      signature: sign(first, vault, names.editor, intruder),
    });
    expect([bad.status, code(bad)]).toEqual([403, 'device_authorization_invalid']);
    const garbage = await scan(tok.owner, {
      payload: 'otpauth://totp/x?secret=ABC',
      authorizedBy: first.fingerprint,
      signature: sign(first, vault, names.editor, laptop),
    });
    expect([garbage.status, code(garbage)]).toEqual([400, 'bad_request']);
    // The scanning device must be the caller's own paired device.
    const notMine = await scan(tok.editor, {
      payload: o.body.payload,
      authorizedBy: first.fingerprint,
      signature: sign(first, vault, names.editor, laptop),
    });
    expect([notMine.status, code(notMine)]).toEqual([403, 'device_authorization_invalid']);
    const o2 = await offer(tok.editor, laptop);
    const ok = await scan(tok.owner, {
      payload: o2.body.payload,
      authorizedBy: first.fingerprint,
      signature: sign(first, vault, names.editor, laptop),
    });
    expect([ok.status, ok.body]).toEqual([201, { id: laptop.fingerprint, member: names.editor }]);
  });

  it('SEAL-9/CTR-10: pairing needs a member credential; codes expire; they are not tickets; ticket mode has no hosted pairing', async () => {
    const { vault, names, tok, first, offer, scan } = await setup();
    const tablet = generateDeviceKeys(nobleCrypto);
    const g = await h.call('POST', `/v1/vaults/${vault}/grants`, {
      token: tok.owner,
      body: { to: names.owner, scope: 'allow_all', minutes: 5 },
    });
    const viaGrant = await offer(g.body.token, tablet);
    expect([viaGrant.status, code(viaGrant)]).toEqual([403, 'forbidden']);
    const admin = await offer(h.center.adminToken, tablet);
    expect(admin.status).toBe(401);
    const o = await offer(tok.owner, tablet);
    // The embedded code is not a redeemable ticket (and trying does not spend it).
    const redeem = await h.call('POST', '/v1/tickets/redeem', {
      body: { ticket: parsePairingPayload(o.body.payload).code },
    });
    expect([redeem.status, code(redeem)]).toEqual([401, 'invalid_credential']);
    h.clock.offset = 11 * 60_000;
    try {
      const late = await scan(tok.owner, {
        payload: o.body.payload,
        authorizedBy: first.fingerprint,
        signature: sign(first, vault, names.owner, tablet),
      });
      expect([late.status, code(late)]).toEqual([410, 'ticket_expired']);
    } finally {
      h.clock.offset = 0;
    }
    const members = await seedMembers(ticketMode, vault, { [names.owner]: 'owner' });
    const noSaas = await ticketMode.call('POST', `/v1/vaults/${vault}/devices/pairing-offer`, {
      token: members[names.owner]!,
      body: keysOf(tablet),
    });
    expect([noSaas.status, code(noSaas)]).toEqual([501, 'unsupported_operation']);
  });
});
