// Starts a real Center on an ephemeral port (SQLite in a temp dir, or a fresh PostgreSQL
// database on 127.0.0.1:5432 that is dropped afterwards) and talks to it with fetch.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { type AuditSink, type Clock } from '@arslan/center-domain';
import { startCenter, type RunningCenter } from '../../src/center-app';
import { loadConfig, type CenterConfig } from '../../src/config';

// e2e tests do real HTTP, fsync and database round trips on a shared CI machine; `testTimeout` in a
// project config is ignored by the root multi-project run, so every file importing this gets it here.
jest.setTimeout(60_000);

export type DbKind = 'sqlite' | 'postgresql';
export const PG_ADMIN_URL = process.env.ARSLAN_TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export class TestClock implements Clock {
  offset = 0;
  now(): number {
    return Date.now() + this.offset;
  }
}

/** Test responses are inspected loosely: any JSON, or text for /metrics. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Reply = { status: number; body: any };

export interface Harness {
  readonly db: DbKind;
  readonly center: RunningCenter;
  readonly clock: TestClock;
  readonly dataDir: string;
  call(
    method: string,
    path: string,
    opts?: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> },
  ): Promise<Reply>;
  admin(method: string, path: string, body?: unknown): Promise<Reply>;
  stop(): Promise<void>;
}

async function createPgDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `arslan_center_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);
  return {
    url,
    drop: async () => {
      const c = new Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export async function startHarness(
  db: DbKind,
  opts: { overrides?: Partial<CenterConfig>; audit?: AuditSink } = {},
): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'arslan-center-'));
  const pg = db === 'postgresql' ? await createPgDatabase() : null;
  const clock = new TestClock();
  const config = loadConfig({
    dataDir,
    env: {},
    overrides: {
      port: 0,
      rateLimit: { max: 1_000_000, windowMs: 60_000 },
      ...(pg ? { databaseUrl: pg.url } : {}),
      ...opts.overrides,
    },
  });
  const center = await startCenter({
    config,
    clock,
    log: false,
    ...(opts.audit ? { audit: opts.audit } : {}),
  });
  const call: Harness['call'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    let body: string | undefined;
    if (o.raw !== undefined) body = o.raw;
    else if (o.body !== undefined) body = JSON.stringify(o.body);
    if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    const res = await fetch(center.url + path, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* text bodies (metrics) stay text */
    }
    return { status: res.status, body: parsed };
  };
  return {
    db,
    center,
    clock,
    dataDir,
    call,
    admin: (method, path, body) =>
      call(method, path, { token: center.adminToken, ...(body !== undefined ? { body } : {}) }),
    async stop() {
      await center.close();
      if (pg) await pg.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Creates members with roles in `vault` and returns their credentials. */
export async function seedMembers(
  h: Harness,
  vault: string,
  roles: Record<string, string>,
): Promise<Record<string, string>> {
  const creds: Record<string, string> = {};
  for (const [name, role] of Object.entries(roles)) {
    const created = await h.admin('POST', '/v1/admin/members', { name });
    if (created.status !== 201)
      throw new Error(`create ${name}: ${created.status} ${JSON.stringify(created.body)}`);
    creds[name] = created.body.credential;
    const set = await h.admin('PUT', `/v1/admin/vaults/${vault}/members/${name}`, { role });
    if (set.status !== 200) throw new Error(`role ${name}: ${set.status} ${JSON.stringify(set.body)}`);
  }
  return creds;
}
