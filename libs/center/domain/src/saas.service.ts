// Saas mode (CTR-5..8) and sealed secrets (SEAL-1..8): hosted cards in the server-encrypted
// store, paired devices (public keys only) and sealed-profile envelopes (ciphertext only).
import { roleAtMost, roleCap, scopeAllows, type GrantAction, type Role } from '@arslan/policy';
import { CenterError } from './center.errors';
import { requireRole } from './grant.service';
import {
  type AuditSink,
  type CenterRepos,
  type CenterStore,
  type Clock,
  type SealedEnvelopeRecord,
} from './ports';
import { principalName, type ContentPrincipal } from './principal';
import {
  checkSealedWire,
  deviceAuthorizationBytes,
  fingerprintOf,
  verifyDeviceAuthorization,
} from './sealed-envelope';
import { type StoreCipher } from './store-cipher';
import { newId } from './tokens';

export interface CardPut {
  readonly id?: string;
  readonly title: string;
  readonly body?: string;
  readonly e2e?: boolean;
  /** Plaintext secret: only for cards without e2e (SEAL-1). */
  readonly secret?: string;
  /** SEAL-2: one sealed envelope per paired device, for the new revision. */
  readonly envelopes?: readonly { readonly wire: unknown }[];
}

export interface CardView {
  readonly id: string;
  readonly title: string;
  readonly body: string;
  readonly e2e: boolean;
  readonly revision: number;
  readonly secret?: string;
  readonly envelope?: unknown;
}

export interface DeviceAdd {
  readonly ed25519: string;
  readonly x25519: string;
  /** An existing device of this vault, or "self" for the vault's first device. */
  readonly authorizedBy: string;
  readonly signature: string;
}

interface CardData {
  title: string;
  body: string;
  secret?: string;
}

const SEAL_DEVICE_LOCK = 'devices';

export class SaasService {
  constructor(
    private readonly store: CenterStore,
    private readonly audit: AuditSink,
    private readonly clock: Clock,
    private readonly cipher: StoreCipher,
  ) {}

  putCard(caller: ContentPrincipal, vault: string, put: CardPut): Promise<CardView> {
    const now = this.clock.now();
    return this.store.write([`cards:${vault}`], async (repos) => {
      const name = await this.authorize(repos, caller, vault, 'write');
      const id = put.id ?? newId();
      const existing = await repos.findCard(vault, id);
      if (existing && existing.e2e && put.e2e === false) {
        throw new CenterError('forbidden', 'removing e2e needs card.set_e2e with Owner authority (SEAL-8)');
      }
      const e2e = put.e2e ?? existing?.e2e ?? false;
      const revision = (existing?.revision ?? 0) + 1;
      let envelopes: SealedEnvelopeRecord[] = [];
      if (e2e) {
        if (put.secret !== undefined) {
          throw new CenterError(
            'plaintext_secret_rejected',
            'an e2e card takes sealed envelopes, never a plaintext secret (SEAL-1)',
          );
        }
        envelopes = await this.checkEnvelopes(repos, vault, id, revision, put.envelopes ?? [], now);
      } else if (put.envelopes !== undefined) {
        throw new CenterError('bad_request', 'envelopes belong to e2e cards only');
      }
      const data: CardData = {
        title: put.title,
        body: put.body ?? '',
        ...(put.secret !== undefined ? { secret: put.secret } : {}),
      };
      await repos.upsertCard({
        id,
        vault,
        data: this.cipher.seal(JSON.stringify(data), `card:${vault}:${id}`),
        e2e,
        revision,
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      });
      if (e2e) await repos.replaceEnvelopes(vault, id, envelopes);
      await this.audit.append({
        type: 'card.put',
        actor: name,
        vault,
        card: id,
        revision,
        e2e,
        envelopes: envelopes.length,
      });
      return { id, title: data.title, body: data.body, e2e, revision };
    });
  }

  async getCard(caller: ContentPrincipal, vault: string, id: string, device?: string): Promise<CardView> {
    return this.store.read(async (repos) => {
      const name = await this.authorize(repos, caller, vault, 'read');
      const card = await repos.findCard(vault, id);
      if (!card) throw new CenterError('not_found', `no card ${id}`);
      const data = JSON.parse(this.cipher.open(card.data, `card:${vault}:${id}`)) as CardData;
      const view: CardView = {
        id,
        title: data.title,
        body: data.body,
        e2e: card.e2e,
        revision: card.revision,
      };
      if (!card.e2e) return data.secret !== undefined ? { ...view, secret: data.secret } : view;
      if (device === undefined) return view;
      const d = await repos.findDevice(vault, device);
      if (!d || d.member !== name) throw new CenterError('forbidden', 'that device is not one of yours');
      const env = await repos.findEnvelope(vault, id, device);
      return env ? { ...view, envelope: JSON.parse(env.wire) as unknown } : view;
    });
  }

  async listCards(
    caller: ContentPrincipal,
    vault: string,
  ): Promise<{ id: string; title: string; e2e: boolean; revision: number }[]> {
    return this.store.read(async (repos) => {
      await this.authorize(repos, caller, vault, 'read');
      return (await repos.listCards(vault)).map((c) => {
        const data = JSON.parse(this.cipher.open(c.data, `card:${vault}:${c.id}`)) as CardData;
        return { id: c.id, title: data.title, e2e: c.e2e, revision: c.revision };
      });
    });
  }

  deleteCard(caller: ContentPrincipal, vault: string, id: string): Promise<{ deleted: boolean }> {
    return this.store.write([`cards:${vault}`], async (repos) => {
      const name = await this.authorize(repos, caller, vault, 'delete');
      await repos.deleteEnvelopesOfCard(vault, id);
      const deleted = await repos.deleteCard(vault, id);
      if (!deleted) throw new CenterError('not_found', `no card ${id}`);
      await this.audit.append({ type: 'card.delete', actor: name, vault, card: id });
      return { deleted };
    });
  }

  /** SEAL-8: only Owner authority removes `e2e`; the request carries no secret. */
  setE2e(caller: ContentPrincipal, vault: string, id: string, e2e: boolean): Promise<CardView> {
    const now = this.clock.now();
    return this.store.write([`cards:${vault}`], async (repos) => {
      const name = await this.authorize(repos, caller, vault, 'write');
      const card = await repos.findCard(vault, id);
      if (!card) throw new CenterError('not_found', `no card ${id}`);
      if (card.e2e && !e2e) {
        const role = await requireRole(repos, vault, name);
        const ownerAuthority =
          role === 'owner' && (caller.kind === 'member' || caller.grant.scope === 'allow_all');
        if (!ownerAuthority)
          throw new CenterError('forbidden', 'removing e2e needs Owner authority (SEAL-8)');
        await repos.deleteEnvelopesOfCard(vault, id);
      }
      const revision = card.revision + 1;
      await repos.upsertCard({ ...card, e2e, revision, updatedAt: now });
      await this.audit.append({ type: 'card.e2e', actor: name, vault, card: id, e2e });
      const data = JSON.parse(this.cipher.open(card.data, `card:${vault}:${id}`)) as CardData;
      return { id, title: data.title, body: data.body, e2e, revision };
    });
  }

  /**
   * Pairs a device (public keys only). SEAL-5: the authorisation is a signature by an existing
   * device of the vault (or, for the vault's first device, by the new device itself, added by an
   * Owner); the Center only verifies it. Device management needs a member credential (CTR-10).
   */
  addDevice(
    caller: ContentPrincipal,
    vault: string,
    add: DeviceAdd,
  ): Promise<{ id: string; member: string }> {
    const now = this.clock.now();
    return this.store.write([`${SEAL_DEVICE_LOCK}:${vault}`], async (repos) => {
      if (caller.kind !== 'member')
        throw new CenterError('forbidden', 'device management needs a member credential (CTR-10)');
      const name = caller.member.name;
      const role = await requireRole(repos, vault, name);
      const id = fingerprintOf(add.ed25519, add.x25519);
      if (id === null) throw new CenterError('bad_request', 'device keys must be 32 bytes of base64url each');
      if (await repos.findDevice(vault, id)) throw new CenterError('conflict', 'device already paired');
      const message = deviceAuthorizationBytes(vault, name, id, add.ed25519, add.x25519);
      const devices = await repos.listDevices(vault);
      let signer: string;
      if (add.authorizedBy === 'self') {
        if (devices.length > 0)
          throw new CenterError(
            'device_authorization_invalid',
            'only the first device of a vault is self-signed',
          );
        if (role !== 'owner')
          throw new CenterError('device_authorization_invalid', 'the first device is paired by an Owner');
        signer = add.ed25519;
      } else {
        const by = devices.find((d) => d.id === add.authorizedBy);
        if (!by) throw new CenterError('device_authorization_invalid', 'unknown authorising device');
        // POL-4/POL-5: own devices by any member; other members' devices by an Admin or Owner's device.
        const byRole = await repos.roleOf(vault, by.member);
        if (by.member !== name && (byRole === null || !roleAtMost('admin', byRole))) {
          throw new CenterError(
            'device_authorization_invalid',
            "only an Admin or Owner's device authorises another member's device",
          );
        }
        signer = by.ed25519;
      }
      if (!verifyDeviceAuthorization(signer, message, add.signature)) {
        throw new CenterError('device_authorization_invalid', 'bad device authorisation signature');
      }
      await repos.insertDevice({
        vault,
        id,
        member: name,
        ed25519: add.ed25519,
        x25519: add.x25519,
        authorizedBy: add.authorizedBy,
        signature: add.signature,
        createdAt: now,
      });
      await this.audit.append({ type: 'device.add', actor: name, vault, device: id, by: add.authorizedBy });
      return { id, member: name };
    });
  }

  async listDevices(
    caller: ContentPrincipal,
    vault: string,
  ): Promise<{ id: string; member: string; ed25519: string; x25519: string }[]> {
    return this.store.read(async (repos) => {
      await this.authorize(repos, caller, vault, 'read');
      return (await repos.listDevices(vault)).map((d) => ({
        id: d.id,
        member: d.member,
        ed25519: d.ed25519,
        x25519: d.x25519,
      }));
    });
  }

  /** SEAL-6: revoking a device deletes its envelopes. Owners only (POL-6), member credential only. */
  revokeDevice(caller: ContentPrincipal, vault: string, id: string): Promise<{ envelopesDeleted: number }> {
    return this.store.write([`${SEAL_DEVICE_LOCK}:${vault}`], async (repos) => {
      if (caller.kind !== 'member')
        throw new CenterError('forbidden', 'device management needs a member credential (CTR-10)');
      const role = await requireRole(repos, vault, caller.member.name);
      if (role !== 'owner') throw new CenterError('forbidden', 'only an Owner revokes devices (POL-6)');
      if (!(await repos.deleteDevice(vault, id))) throw new CenterError('not_found', `no device ${id}`);
      const envelopesDeleted = await repos.deleteEnvelopesOfDevice(vault, id);
      await this.audit.append({
        type: 'device.revoke',
        actor: caller.member.name,
        vault,
        device: id,
        envelopesDeleted,
      });
      return { envelopesDeleted };
    });
  }

  private async checkEnvelopes(
    repos: CenterRepos,
    vault: string,
    cardId: string,
    revision: number,
    envelopes: readonly { wire: unknown }[],
    now: number,
  ): Promise<SealedEnvelopeRecord[]> {
    const devices = new Map((await repos.listDevices(vault)).map((d) => [d.id, d]));
    const seen = new Set<string>();
    return envelopes.map(({ wire }) => {
      const from = devices.get(headerField(wire, 2));
      if (!from)
        throw new CenterError('bad_envelope', 'the sending device is not paired in this vault (SEAL-2)');
      const h = checkSealedWire(wire, from);
      const to = devices.get(h.to);
      if (!to) throw new CenterError('bad_envelope', 'the recipient device is not paired in this vault');
      if ((wire as { r: string }).r !== to.x25519)
        throw new CenterError('bad_envelope', "r is not the recipient device's X25519 key");
      if (h.card !== cardId || h.revision !== String(revision)) {
        throw new CenterError('bad_envelope', `header must name card ${cardId} revision ${revision}`);
      }
      if (seen.has(h.to)) throw new CenterError('bad_envelope', 'one envelope per device');
      seen.add(h.to);
      return { vault, cardId, deviceId: h.to, revision, wire: JSON.stringify(wire), createdAt: now };
    });
  }

  /** The caller's name when it may perform `action` in `vault`. */
  private async authorize(
    repos: CenterRepos,
    caller: ContentPrincipal,
    vault: string,
    action: GrantAction,
  ): Promise<string> {
    const name = principalName(caller);
    const role: Role = await requireRole(repos, vault, name);
    if (caller.kind === 'grant') {
      if (caller.grant.vault !== vault || !scopeAllows(caller.grant.scope, action)) {
        throw new CenterError('insufficient_scope', `the grant does not allow ${action} here`);
      }
    } else if (!scopeAllows(roleCap(role), action)) {
      throw new CenterError('insufficient_scope', `a ${role} cannot ${action}`);
    }
    return name;
  }
}

function headerField(wire: unknown, i: number): string {
  const h = (wire as { h?: unknown } | null)?.h;
  const v = Array.isArray(h) ? (h[i] as unknown) : undefined;
  if (typeof v !== 'string') throw new CenterError('bad_envelope', 'envelope header is malformed');
  return v;
}
