// CenterStore on Prisma 6.19 (`engine: 'js'` clients + driver adapters): SQLite through
// better-sqlite3, PostgreSQL through pg. One repository implementation serves both: the two
// generated clients share one API.
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import Database from 'better-sqlite3';
import { isGrantScope, isRole, type Role } from '@arslan/policy';
import {
  type CardRecord,
  type DeviceRecord,
  REQUEST_STATUSES,
  MCP_TICKET_SCOPES,
  TICKET_KINDS,
  type CenterRepos,
  type CenterStore,
  type GrantRecord,
  type RequestRecord,
  type RequestStatus,
  type TicketRecord,
} from '@arslan/center-domain';
import { PrismaClient as SqliteClient } from './generated/sqlite/client';
import { PrismaClient as PostgresClient } from './generated/postgresql/client';
import { migratePostgres, migrateSqlite } from './migrate';

type Client = InstanceType<typeof SqliteClient>;
type Tx = Omit<Client, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

export type StoreTarget =
  { readonly kind: 'sqlite'; readonly file: string } | { readonly kind: 'postgresql'; readonly url: string };

const TX_OPTIONS = { maxWait: 60_000, timeout: 60_000 } as const;

function asRole(v: string): Role {
  if (!isRole(v)) throw new Error(`corrupt row: role ${v}`);
  return v;
}

function toGrant(r: {
  id: string;
  tokenHash: string;
  vault: string;
  scope: string;
  issuer: string;
  subject: string;
  depth: number;
  parentId: string | null;
  expiresAt: Date;
  createdAt: Date;
}): GrantRecord {
  if (!isGrantScope(r.scope)) throw new Error(`corrupt row: scope ${r.scope}`);
  return { ...r, scope: r.scope, expiresAt: r.expiresAt.getTime(), createdAt: r.createdAt.getTime() };
}

function toRequest(r: {
  id: string;
  vault: string;
  requester: string;
  credentialHash: string;
  scope: string;
  minutes: number;
  status: string;
  approver: string | null;
  grantId: string | null;
  createdAt: Date;
  transitionedAt: Date;
}): RequestRecord {
  if (!isGrantScope(r.scope) || !(REQUEST_STATUSES as readonly string[]).includes(r.status)) {
    throw new Error('corrupt request row');
  }
  return {
    ...r,
    scope: r.scope,
    status: r.status as RequestStatus,
    createdAt: r.createdAt.getTime(),
    transitionedAt: r.transitionedAt.getTime(),
  };
}

function toTicket(r: {
  id: string;
  kind: string;
  tokenHash: string;
  vault: string;
  member: string;
  reusable: boolean;
  scope: string | null;
  grantMinutes: number | null;
  expiresAt: Date;
  usedAt: Date | null;
  createdAt: Date;
}): TicketRecord {
  if (!(TICKET_KINDS as readonly string[]).includes(r.kind)) throw new Error('corrupt ticket row');
  if (r.scope !== null && !(MCP_TICKET_SCOPES as readonly string[]).includes(r.scope))
    throw new Error('corrupt ticket row');
  return {
    ...r,
    kind: r.kind as TicketRecord['kind'],
    scope: r.scope as TicketRecord['scope'],
    expiresAt: r.expiresAt.getTime(),
    usedAt: r.usedAt ? r.usedAt.getTime() : null,
    createdAt: r.createdAt.getTime(),
  };
}

function toCard(r: {
  id: string;
  vault: string;
  data: string;
  e2e: boolean;
  revision: number;
  createdAt: Date;
  updatedAt: Date;
}): CardRecord {
  return { ...r, createdAt: r.createdAt.getTime(), updatedAt: r.updatedAt.getTime() };
}

function toDevice(r: {
  vault: string;
  id: string;
  member: string;
  ed25519: string;
  x25519: string;
  authorizedBy: string;
  signature: string;
  createdAt: Date;
}): DeviceRecord {
  return { ...r, createdAt: r.createdAt.getTime() };
}

function repos(db: Tx): CenterRepos {
  return {
    findCard: async (vault, id) => {
      const c = await db.card.findFirst({ where: { vault, id } });
      return c ? toCard(c) : null;
    },
    listCards: async (vault) =>
      (await db.card.findMany({ where: { vault }, orderBy: { createdAt: 'asc' } })).map(toCard),
    upsertCard: async (c) => {
      const data = {
        vault: c.vault,
        data: c.data,
        e2e: c.e2e,
        revision: c.revision,
        createdAt: new Date(c.createdAt),
        updatedAt: new Date(c.updatedAt),
      };
      await db.card.upsert({ where: { id: c.id }, create: { id: c.id, ...data }, update: data });
    },
    deleteCard: async (vault, id) => (await db.card.deleteMany({ where: { vault, id } })).count > 0,
    findDevice: async (vault, id) => {
      const d = await db.device.findUnique({ where: { vault_id: { vault, id } } });
      return d ? toDevice(d) : null;
    },
    listDevices: async (vault) =>
      (await db.device.findMany({ where: { vault }, orderBy: { createdAt: 'asc' } })).map(toDevice),
    insertDevice: async (d) => {
      await db.device.create({ data: { ...d, createdAt: new Date(d.createdAt) } });
    },
    deleteDevice: async (vault, id) => (await db.device.deleteMany({ where: { vault, id } })).count > 0,
    replaceEnvelopes: async (vault, cardId, envelopes) => {
      await db.sealedEnvelope.deleteMany({ where: { vault, cardId } });
      if (envelopes.length > 0) {
        await db.sealedEnvelope.createMany({
          data: envelopes.map((e) => ({ ...e, createdAt: new Date(e.createdAt) })),
        });
      }
    },
    findEnvelope: async (vault, cardId, deviceId) => {
      const e = await db.sealedEnvelope.findUnique({
        where: { vault_cardId_deviceId: { vault, cardId, deviceId } },
      });
      return e ? { ...e, createdAt: e.createdAt.getTime() } : null;
    },
    deleteEnvelopesOfDevice: async (vault, deviceId) =>
      (await db.sealedEnvelope.deleteMany({ where: { vault, deviceId } })).count,
    deleteEnvelopesOfCard: async (vault, cardId) =>
      (await db.sealedEnvelope.deleteMany({ where: { vault, cardId } })).count,

    findMember: (name) => db.member.findUnique({ where: { name } }),
    findMemberByCredentialHash: (credentialHash) => db.member.findUnique({ where: { credentialHash } }),
    insertMember: async (m) => {
      await db.member.create({ data: { name: m.name, credentialHash: m.credentialHash } });
    },
    deleteMember: async (name) => {
      await db.membership.deleteMany({ where: { memberName: name } });
      await db.member.delete({ where: { name } });
    },
    roleOf: async (vault, name) => {
      const m = await db.membership.findUnique({ where: { vault_memberName: { vault, memberName: name } } });
      return m ? asRole(m.role) : null;
    },
    roster: async (vault) =>
      (await db.membership.findMany({ where: { vault }, orderBy: { memberName: 'asc' } })).map((m) => ({
        name: m.memberName,
        role: asRole(m.role),
      })),
    vaultsOf: async (name) =>
      (await db.membership.findMany({ where: { memberName: name }, orderBy: { vault: 'asc' } })).map(
        (m) => m.vault,
      ),
    setRole: async (vault, name, role) => {
      await db.membership.upsert({
        where: { vault_memberName: { vault, memberName: name } },
        create: { vault, memberName: name, role },
        update: { role },
      });
    },
    removeMembership: async (vault, name) =>
      (await db.membership.deleteMany({ where: { vault, memberName: name } })).count > 0,

    findGrant: async (id) => {
      const g = await db.grant.findUnique({ where: { id } });
      return g ? toGrant(g) : null;
    },
    findGrantByTokenHash: async (tokenHash) => {
      const g = await db.grant.findUnique({ where: { tokenHash } });
      return g ? toGrant(g) : null;
    },
    countActiveGrants: (now) => db.grant.count({ where: { expiresAt: { gt: new Date(now) } } }),
    grantsOfVault: async (vault) => (await db.grant.findMany({ where: { vault } })).map(toGrant),
    insertGrant: async (g) => {
      await db.grant.create({
        data: { ...g, expiresAt: new Date(g.expiresAt), createdAt: new Date(g.createdAt) },
      });
    },
    deleteGrants: async (ids) => {
      let n = 0;
      for (let i = 0; i < ids.length; i += 500) {
        n += (await db.grant.deleteMany({ where: { id: { in: ids.slice(i, i + 500) } } })).count;
      }
      return n;
    },
    deleteExpiredGrants: async (now) =>
      (await db.grant.deleteMany({ where: { expiresAt: { lte: new Date(now) } } })).count,
    deleteOrphanGrants: async () => {
      const children = await db.grant.findMany({
        where: { parentId: { not: null } },
        select: { id: true, parentId: true },
      });
      if (children.length === 0) return 0;
      const parents = new Set(
        (
          await db.grant.findMany({
            where: { id: { in: [...new Set(children.map((c) => c.parentId as string))] } },
            select: { id: true },
          })
        ).map((p) => p.id),
      );
      const orphans = children.filter((c) => !parents.has(c.parentId as string)).map((c) => c.id);
      if (orphans.length === 0) return 0;
      return (await db.grant.deleteMany({ where: { id: { in: orphans } } })).count;
    },

    insertRequest: async (r) => {
      await db.permissionRequest.create({
        data: { ...r, createdAt: new Date(r.createdAt), transitionedAt: new Date(r.transitionedAt) },
      });
    },
    findRequest: async (id) => {
      const r = await db.permissionRequest.findUnique({ where: { id } });
      return r ? toRequest(r) : null;
    },
    listRequests: async (vault) =>
      (await db.permissionRequest.findMany({ where: { vault }, orderBy: { createdAt: 'asc' } })).map(
        toRequest,
      ),
    countPending: (vault, requester) =>
      db.permissionRequest.count({
        where: { vault, status: 'pending', ...(requester ? { requester } : {}) },
      }),
    transitionRequest: async (id, from, to, patch) =>
      (
        await db.permissionRequest.updateMany({
          where: { id, status: from },
          data: {
            status: to,
            transitionedAt: new Date(patch.at),
            ...(patch.approver !== undefined ? { approver: patch.approver } : {}),
            ...(patch.grantId !== undefined ? { grantId: patch.grantId } : {}),
          },
        })
      ).count === 1,
    expirePending: async (createdBefore, now) =>
      (
        await db.permissionRequest.updateMany({
          where: { status: 'pending', createdAt: { lt: new Date(createdBefore) } },
          data: { status: 'expired', transitionedAt: new Date(now) },
        })
      ).count,
    purgeRequests: async (before) =>
      (
        await db.permissionRequest.deleteMany({
          where: { status: { not: 'pending' }, transitionedAt: { lt: new Date(before) } },
        })
      ).count,

    insertTicket: async (t) => {
      await db.ticket.create({
        data: {
          ...t,
          expiresAt: new Date(t.expiresAt),
          usedAt: t.usedAt === null ? null : new Date(t.usedAt),
          createdAt: new Date(t.createdAt),
        },
      });
    },
    findTicketByHash: async (tokenHash) => {
      const t = await db.ticket.findUnique({ where: { tokenHash } });
      return t ? toTicket(t) : null;
    },
    markTicketUsed: async (id, at) =>
      (await db.ticket.updateMany({ where: { id, usedAt: null }, data: { usedAt: new Date(at) } })).count ===
      1,
    deleteExpiredTickets: async (now) =>
      (await db.ticket.deleteMany({ where: { expiresAt: { lte: new Date(now) } } })).count,
  };
}

/**
 * The per-request credential lookups on SQLite skip Prisma: a read-only better-sqlite3
 * connection (WAL: it sees committed rows only) answers them in microseconds instead of
 * ~0.5 ms through the Prisma engine (docs/benchmarks.md). Every write still goes through Prisma.
 */
class SqliteFastReads {
  private readonly db: Database.Database;
  private readonly member: Database.Statement<[string], { name: string; credentialHash: string }>;
  private readonly grant: Database.Statement<[string], Record<string, unknown>>;

  constructor(file: string) {
    this.db = new Database(file, { readonly: true, fileMustExist: true });
    this.member = this.db.prepare(
      'SELECT name, credential_hash AS credentialHash FROM members WHERE credential_hash = ?',
    );
    this.grant = this.db.prepare(
      'SELECT id, token_hash AS tokenHash, vault, scope, issuer, subject, depth, parent_id AS parentId, expires_at AS expiresAt, created_at AS createdAt FROM grants WHERE token_hash = ?',
    );
  }

  findMemberByCredentialHash(hash: string) {
    return Promise.resolve(this.member.get(hash) ?? null);
  }

  findGrantByTokenHash(hash: string) {
    const row = this.grant.get(hash);
    if (!row) return Promise.resolve(null);
    return Promise.resolve(
      toGrant({
        ...(row as Omit<Parameters<typeof toGrant>[0], 'expiresAt' | 'createdAt'>),
        expiresAt: new Date(row.expiresAt as string),
        createdAt: new Date(row.createdAt as string),
      }),
    );
  }

  close(): void {
    this.db.close();
  }
}

class PrismaCenterStore implements CenterStore {
  constructor(
    readonly provider: 'sqlite' | 'postgresql',
    private readonly client: Client,
    private readonly fast: SqliteFastReads | null = null,
  ) {}

  read<T>(fn: (r: CenterRepos) => Promise<T>): Promise<T> {
    const base = repos(this.client);
    if (!this.fast) return fn(base);
    const fast = this.fast;
    return fn({
      ...base,
      findMemberByCredentialHash: (h) => fast.findMemberByCredentialHash(h),
      findGrantByTokenHash: (h) => fast.findGrantByTokenHash(h),
    });
  }

  /** SQLite has one writer: queue writes here instead of inside Prisma's transaction start. */
  private writeQueue: Promise<unknown> = Promise.resolve();

  write<T>(locks: readonly string[], fn: (r: CenterRepos) => Promise<T>): Promise<T> {
    if (this.provider === 'postgresql') return this.transaction(locks, fn);
    const run = this.writeQueue.then(() => this.transaction(locks, fn));
    this.writeQueue = run.catch(() => undefined);
    return run;
  }

  private transaction<T>(locks: readonly string[], fn: (r: CenterRepos) => Promise<T>): Promise<T> {
    return this.client.$transaction(async (tx) => {
      for (const key of [...locks].sort()) {
        // Works on both databases; on PostgreSQL the row lock serialises the holders.
        await tx.$executeRaw`INSERT INTO center_locks (key, n) VALUES (${key}, 1) ON CONFLICT (key) DO UPDATE SET n = (center_locks.n + 1) % 1000000`;
      }
      return fn(repos(tx));
    }, TX_OPTIONS);
  }

  async ping(): Promise<void> {
    await this.client.$queryRaw`SELECT 1`;
  }

  async close(): Promise<void> {
    this.fast?.close();
    await this.client.$disconnect();
  }
}

/** Applies pending migrations, then opens the store. */
export async function openCenterStore(target: StoreTarget): Promise<CenterStore> {
  if (target.kind === 'sqlite') {
    migrateSqlite(target.file);
    const client = new SqliteClient({
      adapter: new PrismaBetterSQLite3({ url: `file:${target.file}`, timeout: 10_000 }),
    });
    await client.$queryRawUnsafe('PRAGMA synchronous = FULL');
    await client.$queryRawUnsafe('PRAGMA foreign_keys = ON');
    return new PrismaCenterStore('sqlite', client, new SqliteFastReads(target.file));
  }
  await migratePostgres(target.url);
  const client = new PostgresClient({ adapter: new PrismaPg({ connectionString: target.url, max: 10 }) });
  return new PrismaCenterStore('postgresql', client as unknown as Client);
}

/** Test and bench seeding: inserts grants directly, bypassing the domain rules. */
export async function seedGrantsForTest(store: CenterStore, grants: readonly GrantRecord[]): Promise<void> {
  const s = store as PrismaCenterStore;
  const client = (s as unknown as { client: Client }).client;
  for (let i = 0; i < grants.length; i += 500) {
    await client.grant.createMany({
      data: grants
        .slice(i, i + 500)
        .map((g) => ({ ...g, expiresAt: new Date(g.expiresAt), createdAt: new Date(g.createdAt) })),
    });
  }
}
