// Composition root: config -> store (migrated) -> audit -> domain services -> Nest on Fastify.
import 'reflect-metadata';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  Authenticator,
  type AuditSink,
  type CenterStore,
  type Clock,
  GrantService,
  MaintenanceService,
  MemberService,
  newToken,
  RequestService,
  SaasService,
  HostedPairingService,
  StoreCipher,
  type StoreKeyFile,
  systemClock,
  TicketService,
} from '@arslan/center-domain';
import { FileAuditSink, openCenterStore } from '@arslan/center-data-access';
import { type CenterConfig } from './config';
import { AdminController } from './http/admin.controller';
import { registerStrategies } from './http/auth.guards';
import { CENTER_CONTEXT, type CenterContext } from './http/center-context';
import { ContentController } from './http/content.controller';
import { CenterExceptionFilter } from './http/error-mapping';
import { HealthController } from './http/health.controller';
import { Metrics } from './http/metrics';
import { installRateLimit } from './http/rate-limit';

export const CENTER_CONTROLLERS = [HealthController, AdminController, ContentController];

/** Paths pino must never print (tokens, credentials, secrets). */
export const LOG_REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'token',
  'credential',
  'ticket',
  'adminToken',
  'storePassword',
  '*.storePassword',
  '*.signature',
  '*.token',
  '*.credential',
  '*.ticket',
  '*.adminToken',
  '*.password',
  '*.secret',
];

export interface CenterOptions {
  readonly config: CenterConfig;
  readonly clock?: Clock;
  /** Tests pass false; the CLI logs JSON to stdout. */
  readonly log?: boolean;
  /** Replaces the audit file (tests of fail-closed behaviour). */
  readonly audit?: AuditSink;
}

export interface RunningCenter {
  readonly url: string;
  readonly port: number;
  readonly adminToken: string;
  readonly context: CenterContext;
  readonly app: NestFastifyApplication;
  close(): Promise<void>;
}

/** Saas mode: opens (or creates) the server-encrypted store key in <dataDir>/store-key.json. */
export function openStoreCipher(config: CenterConfig): StoreCipher | null {
  if (config.mode !== 'saas' || !config.storePassword) return null;
  const file = join(config.dataDir, 'store-key.json');
  if (existsSync(file))
    return StoreCipher.open(config.storePassword, JSON.parse(readFileSync(file, 'utf8')) as StoreKeyFile);
  const { cipher, file: keyFile } = StoreCipher.create(config.storePassword);
  writeFileSync(file, `${JSON.stringify(keyFile)}\n`, { mode: 0o600 });
  return cipher;
}

/** The admin bearer: configured, or generated once into <dataDir>/admin-token (0600). */
export function resolveAdminToken(config: CenterConfig): string {
  if (config.adminToken) return config.adminToken;
  const file = join(config.dataDir, 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const token = newToken('member').replace(/^acm_/, 'aca_');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return token;
}

function centerModule(ctx: CenterContext): DynamicModule {
  @Module({})
  class CenterModule {}
  return {
    module: CenterModule,
    controllers: CENTER_CONTROLLERS,
    providers: [{ provide: CENTER_CONTEXT, useValue: ctx }],
  };
}

export async function buildContext(
  config: CenterConfig,
  clock: Clock,
  audit?: AuditSink,
): Promise<{ ctx: CenterContext; adminToken: string }> {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const store: CenterStore = await openCenterStore(
    config.databaseUrl
      ? { kind: 'postgresql', url: config.databaseUrl }
      : { kind: 'sqlite', file: join(config.dataDir, 'center.db') },
  );
  const sink = audit ?? new FileAuditSink(join(config.dataDir, 'audit.jsonl'), clock);
  const adminToken = resolveAdminToken(config);
  const cipher = openStoreCipher(config);
  const ctx: CenterContext = {
    config,
    store,
    auth: new Authenticator(store, clock, adminToken),
    grants: new GrantService(store, sink, clock),
    members: new MemberService(store, sink),
    requests: new RequestService(store, sink, clock),
    tickets: new TicketService(store, sink, clock),
    maintenance: new MaintenanceService(store, clock),
    saas: cipher ? new SaasService(store, sink, clock, cipher) : null,
    pairing: cipher ? new HostedPairingService(store, sink, clock) : null,
    metrics: new Metrics(),
    lock: { locked: false },
  };
  return { ctx, adminToken };
}

export async function startCenter(options: CenterOptions): Promise<RunningCenter> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const { ctx, adminToken } = await buildContext(config, clock, options.audit);
  // GRANT-13: purge at load time, then periodically.
  await ctx.maintenance.sweep();
  registerStrategies();

  const adapter = new FastifyAdapter({
    bodyLimit: config.bodyLimitBytes,
    logger:
      options.log === false
        ? false
        : { level: config.logLevel, redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' } },
  });
  const fastify = adapter.getInstance();
  fastify.decorate('arslanCenter', ctx);
  installRateLimit(fastify, config.rateLimit, ctx.metrics);
  const app = await NestFactory.create<NestFastifyApplication>(centerModule(ctx), adapter, {
    logger: options.log === false ? false : ['error', 'warn'],
    abortOnError: false,
  });
  app.useGlobalFilters(new CenterExceptionFilter((e) => fastify.log.error({ err: e }, 'unhandled error')));
  await app.listen({ port: config.port, host: config.host });
  const stopSweep = ctx.maintenance.every(config.sweepIntervalMs, (e) =>
    fastify.log.error({ err: e }, 'sweep failed'),
  );
  const address = fastify.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${port}`,
    port,
    adminToken,
    context: ctx,
    app,
    async close() {
      stopSweep();
      await app.close();
      await ctx.store.close();
    },
  };
}
