// SEAL-9: hosted device pairing has its own scan path. The new device asks the Center for a
// single-use pairing code (10 minutes, bound to its member and its public keys' fingerprint) and
// shows everything as one QR payload; an already-paired device scans it, shows the fingerprint,
// signs the device authorisation and submits it. The Center only checks the code and verifies the
// signature: it still cannot authorise a device itself (SEAL-5). Local vault device addition never
// comes here: it stays DEV-8..11 (signed request + full fingerprint comparison, no camera).
import { roleAtMost } from '@arslan/policy';
import { CenterError } from './center.errors';
import { requireRole } from './grant.service';
import { type AuditSink, type CenterRepos, type CenterStore, type Clock } from './ports';
import { type ContentPrincipal } from './principal';
import { deviceAuthorizationBytes, fingerprintOf, verifyDeviceAuthorization } from './sealed-envelope';
import { digestsEqual, newId, newToken, sha256Hex } from './tokens';

export const PAIRING_PAYLOAD_PREFIX = 'arslan-pair:1:';
export const PAIRING_CODE_MINUTES = 10;
const MAX_PAYLOAD_CHARS = 1024;

/** What the QR carries: public keys and a single-use code; nothing that authorises by itself. */
export interface PairingPayload {
  readonly vault: string;
  readonly member: string;
  readonly ed25519: string;
  readonly x25519: string;
  readonly code: string;
}

export interface PairingOffer {
  readonly payload: string;
  readonly fingerprint: string;
  readonly expiresAt: string;
}

export interface PairingScan {
  /** The scanned QR text, exactly as shown by the new device. */
  readonly payload: string;
  /** The scanning device (already paired in this vault, one of the caller's). */
  readonly authorizedBy: string;
  /** Its Ed25519 signature over the device authorisation of the new device. */
  readonly signature: string;
}

const PAYLOAD_KEYS = ['v', 'm', 'e', 'x', 'k'] as const;

export function encodePairingPayload(p: PairingPayload): string {
  const json = JSON.stringify({ v: p.vault, m: p.member, e: p.ed25519, x: p.x25519, k: p.code });
  return PAIRING_PAYLOAD_PREFIX + Buffer.from(json, 'utf8').toString('base64url');
}

/** Strict: the prefix, base64url JSON with exactly the five string members. */
export function parsePairingPayload(text: string): PairingPayload {
  const bad = () => new CenterError('bad_request', 'not an Arslan hosted pairing payload (SEAL-9)');
  if (text.length > MAX_PAYLOAD_CHARS || !text.startsWith(PAIRING_PAYLOAD_PREFIX)) throw bad();
  const b64 = text.slice(PAIRING_PAYLOAD_PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(b64)) throw bad();
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(b64, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad();
  const obj = raw as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  if (keys.join() !== [...PAYLOAD_KEYS].sort().join()) throw bad();
  if (!PAYLOAD_KEYS.every((k) => typeof obj[k] === 'string' && (obj[k] as string).length <= 256)) throw bad();
  return {
    vault: obj.v as string,
    member: obj.m as string,
    ed25519: obj.e as string,
    x25519: obj.x as string,
    code: obj.k as string,
  };
}

const devicesLock = (vault: string) => `devices:${vault}`;

export class HostedPairingService {
  constructor(
    private readonly store: CenterStore,
    private readonly audit: AuditSink,
    private readonly clock: Clock,
  ) {}

  /** The new device's side: a member credential (device management, CTR-10) and its public keys. */
  offer(
    caller: ContentPrincipal,
    vault: string,
    keys: { ed25519: string; x25519: string },
  ): Promise<PairingOffer> {
    const member = memberOf(caller);
    const now = this.clock.now();
    return this.store.write([devicesLock(vault)], async (repos) => {
      await requireRole(repos, vault, member);
      const fingerprint = fingerprintOf(keys.ed25519, keys.x25519);
      if (fingerprint === null)
        throw new CenterError('bad_request', 'device keys must be 32 bytes of base64url each');
      if (await repos.findDevice(vault, fingerprint))
        throw new CenterError('conflict', 'device already paired');
      const code = newToken('ticket');
      const expiresAt = now + PAIRING_CODE_MINUTES * 60_000;
      await repos.insertTicket({
        id: newId(),
        kind: 'device_pairing',
        // Bound to the keys: the code only pairs the device whose fingerprint it was issued for.
        tokenHash: sha256Hex(`${fingerprint}\n${code}`),
        vault,
        member,
        reusable: false,
        scope: null,
        grantMinutes: null,
        expiresAt,
        usedAt: null,
        createdAt: now,
      });
      await this.audit.append({ type: 'device.pairing_offer', actor: member, vault, device: fingerprint });
      return {
        payload: encodePairingPayload({ vault, member, ...keys, code }),
        fingerprint,
        expiresAt: new Date(expiresAt).toISOString(),
      };
    });
  }

  /** The scanning device's side: it authorises; the Center checks the code and the signature. */
  scan(caller: ContentPrincipal, vault: string, scan: PairingScan): Promise<{ id: string; member: string }> {
    const scanner = memberOf(caller);
    const p = parsePairingPayload(scan.payload);
    if (p.vault !== vault)
      throw new CenterError('device_authorization_invalid', 'the payload is for another vault');
    const now = this.clock.now();
    return this.store.write([devicesLock(vault)], async (repos) => {
      await requireRole(repos, vault, scanner);
      const id = fingerprintOf(p.ed25519, p.x25519);
      if (id === null) throw new CenterError('bad_request', 'device keys must be 32 bytes of base64url each');
      await this.consumeCode(repos, vault, p, id, now);
      if (await repos.findDevice(vault, id)) throw new CenterError('conflict', 'device already paired');
      const by = (await repos.listDevices(vault)).find((d) => d.id === scan.authorizedBy);
      if (!by || by.member !== scanner)
        throw new CenterError(
          'device_authorization_invalid',
          'the scanning device must be one of your paired devices',
        );
      // POL-4/POL-5: own devices by any member; another member's device by an Admin or Owner's device.
      const scannerRole = await repos.roleOf(vault, scanner);
      if (p.member !== scanner && (scannerRole === null || !roleAtMost('admin', scannerRole)))
        throw new CenterError(
          'device_authorization_invalid',
          "only an Admin or Owner's device authorises another member's device",
        );
      const message = deviceAuthorizationBytes(vault, p.member, id, p.ed25519, p.x25519);
      if (!verifyDeviceAuthorization(by.ed25519, message, scan.signature))
        throw new CenterError('device_authorization_invalid', 'bad device authorisation signature');
      await repos.insertDevice({
        vault,
        id,
        member: p.member,
        ed25519: p.ed25519,
        x25519: p.x25519,
        authorizedBy: by.id,
        signature: scan.signature,
        createdAt: now,
      });
      await this.audit.append({
        type: 'device.add',
        actor: scanner,
        vault,
        device: id,
        by: by.id,
        path: 'scan',
      });
      return { id, member: p.member };
    });
  }

  private async consumeCode(repos: CenterRepos, vault: string, p: PairingPayload, id: string, now: number) {
    const hash = sha256Hex(`${id}\n${p.code}`);
    const t = await repos.findTicketByHash(hash);
    if (
      !t ||
      !digestsEqual(t.tokenHash, hash) ||
      t.kind !== 'device_pairing' ||
      t.vault !== vault ||
      t.member !== p.member
    )
      throw new CenterError('device_authorization_invalid', 'unknown pairing code for this device');
    if (t.expiresAt <= now) throw new CenterError('ticket_expired', 'the pairing code has expired');
    if (!(await repos.markTicketUsed(t.id, now)))
      throw new CenterError('ticket_used', 'this pairing code was already used');
  }
}

function memberOf(caller: ContentPrincipal): string {
  if (caller.kind !== 'member')
    throw new CenterError('forbidden', 'device management needs a member credential (CTR-10)');
  return caller.member.name;
}
