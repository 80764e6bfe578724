// Center configuration: `<data-dir>/center.json` (or --config FILE), then environment, then
// command-line flags. Validated strictly with zod at start; errors name the source and field.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';

export const CONFIG_FILE_NAME = 'center.json';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const CenterConfigSchema = z
  .strictObject({
    /** CTR-2: ticket (default) or saas. */
    mode: z.enum(['ticket', 'saas']).default('ticket'),
    host: z.string().min(1).default('127.0.0.1'),
    port: z.number().int().min(0).max(65535).default(8787),
    dataDir: z.string().min(1),
    /** PostgreSQL when set (postgres:// or postgresql://); otherwise SQLite at <dataDir>/center.db. */
    databaseUrl: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL')
      .optional(),
    /** The admin bearer. When absent, one is generated into <dataDir>/admin-token (0600). */
    adminToken: z.string().min(32, 'must be at least 32 characters').optional(),
    bodyLimitBytes: z
      .number()
      .int()
      .min(1024)
      .max(16 * 1024 * 1024)
      .default(64 * 1024),
    rateLimit: z
      .strictObject({
        max: z.number().int().min(1),
        windowMs: z.number().int().min(100),
      })
      .default({ max: 1200, windowMs: 60_000 }),
    logLevel: z.enum(LOG_LEVELS).default('info'),
    sweepIntervalMs: z.number().int().min(1000).default(60_000),
    /** Saas mode: the operator's store password (CTR-5, CTR-6). Prefer the environment. */
    storePassword: z.string().min(12, 'must be at least 12 characters').optional(),
  })
  .refine((c) => c.mode !== 'saas' || c.storePassword !== undefined, {
    message: 'saas mode needs a store password (ARSLAN_CENTER_STORE_PASSWORD)',
    path: ['storePassword'],
  });

export type CenterConfig = z.infer<typeof CenterConfigSchema>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const ENV: Record<string, { key: keyof CenterConfig; type: 'string' | 'number' }> = {
  ARSLAN_CENTER_MODE: { key: 'mode', type: 'string' },
  ARSLAN_CENTER_HOST: { key: 'host', type: 'string' },
  ARSLAN_CENTER_PORT: { key: 'port', type: 'number' },
  DATABASE_URL: { key: 'databaseUrl', type: 'string' },
  ARSLAN_CENTER_ADMIN_TOKEN: { key: 'adminToken', type: 'string' },
  ARSLAN_CENTER_BODY_LIMIT: { key: 'bodyLimitBytes', type: 'number' },
  ARSLAN_CENTER_LOG_LEVEL: { key: 'logLevel', type: 'string' },
  ARSLAN_CENTER_STORE_PASSWORD: { key: 'storePassword', type: 'string' },
};

function envNumber(name: string, raw: string): number {
  if (!/^\d+$/.test(raw)) throw new ConfigError(`environment ${name}: expected a whole number, got "${raw}"`);
  return Number(raw);
}

export interface ConfigSources {
  /** From --data; also where center.json is looked up. */
  readonly dataDir: string;
  readonly configFile?: string;
  readonly env?: Record<string, string | undefined>;
  /** Flags and programmatic overrides; win over everything. */
  readonly overrides?: Partial<CenterConfig>;
}

export function loadConfig(sources: ConfigSources): CenterConfig {
  const dataDir = resolve(sources.dataDir);
  const file = sources.configFile ? resolve(sources.configFile) : join(dataDir, CONFIG_FILE_NAME);
  let fromFile: Record<string, unknown> = {};
  if (existsSync(file)) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new Error('not an object');
      fromFile = parsed as Record<string, unknown>;
    } catch (e) {
      throw new ConfigError(`${file}: not a JSON object (${(e as Error).message})`);
    }
  } else if (sources.configFile) {
    throw new ConfigError(`${file}: no such file`);
  }
  const fromEnv: Record<string, unknown> = {};
  for (const [name, { key, type }] of Object.entries(ENV)) {
    const raw = sources.env?.[name];
    if (raw === undefined || raw === '') continue;
    fromEnv[key] = type === 'number' ? envNumber(name, raw) : raw;
  }
  const merged = { ...fromFile, ...fromEnv, ...sources.overrides, dataDir };
  const result = CenterConfigSchema.safeParse(merged);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new ConfigError(`invalid Center configuration (${file}, environment, flags):\n${lines.join('\n')}`);
  }
  return result.data;
}
