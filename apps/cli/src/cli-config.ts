import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';
import { UsageError } from './cli-errors';

/**
 * The local TOML config (CFG-1): only non-secret settings. Strict at every level, so an
 * unknown key is rejected (CFG-2). `[daemon] unlock_idle_minutes` is deliberately absent.
 */
export const configSchema = z.strictObject({
  storage: z
    .strictObject({
      data_dir: z.string().min(1, 'must not be empty').max(4096),
    })
    .optional(),
});

export type CliConfig = z.infer<typeof configSchema>;

export interface LoadedConfig {
  path: string | null;
  /** storage.data_dir resolved against the config file's directory (CFG-3), if set. */
  dataDir: string | null;
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
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (error) {
    const first = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    throw new UsageError(`config ${path}: invalid TOML: ${first}`);
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 5)
      .map((issue) => {
        const at = issue.path.map(String).join('.');
        if (issue.code === 'unrecognized_keys') {
          const keys = issue.keys.map((k) => (at ? `${at}.${k}` : k)).join(', ');
          return `unknown key ${keys}`;
        }
        return `${at || '(root)'}: ${issue.message}`;
      })
      .join('; ');
    throw new UsageError(`config ${path}: ${problems}`);
  }
  const dataDir = parsed.data.storage?.data_dir;
  return { path, dataDir: dataDir === undefined ? null : resolve(dirname(path), dataDir) };
}
