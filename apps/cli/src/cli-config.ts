import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import {
  type AgentConfigToml,
  type ArslanConfig,
  arslanConfigSchema,
  parseArslanConfig,
} from '@arslan/protocol';
import { UsageError } from './cli-errors';

/**
 * The local TOML config (CFG-1): only non-secret settings. The schema is shared with the
 * daemon (`@arslan/protocol`); strict at every level, so an unknown key is rejected (CFG-2).
 * `[daemon] unlock_idle_minutes` is deliberately absent.
 */
export const configSchema = arslanConfigSchema;

export type CliConfig = ArslanConfig;

export interface LoadedConfig {
  path: string | null;
  /** storage.data_dir resolved against the config file's directory (CFG-3), if set. */
  dataDir: string | null;
  /** The `[agent]` section (`arslan run` / `arslan chat` defaults), if present. */
  agent?: AgentConfigToml;
}

/**
 * Reads and validates the config before any daemon contact (CFG-2). An explicit path that
 * does not exist is an error; the default path is read only if it exists.
 */
export function loadConfig(explicitPath: string | undefined, defaultPath: string, cwd: string): LoadedConfig {
  const path = explicitPath === undefined ? defaultPath : resolve(cwd, explicitPath);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (explicitPath === undefined && code === 'ENOENT') return { path: null, dataDir: null };
    throw new UsageError(`config ${path}: cannot read (${code ?? 'error'})`);
  }
  const parsed = parseArslanConfig(text);
  if (!parsed.ok) throw new UsageError(`config ${path}: ${parsed.problem}`);
  const dataDir = parsed.config.storage?.data_dir;
  const agent = parsed.config.agent;
  return {
    path,
    dataDir: dataDir === undefined ? null : resolve(dirname(path), dataDir),
    ...(agent ? { agent } : {}),
  };
}
