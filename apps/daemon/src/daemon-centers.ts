// `[[centers]]` of the daemon config, resolved at start (CFG-2: before the store is opened). The
// credential is never in the TOML (CFG-1/6): an environment variable name, or a file that must be
// a regular file of mode 0600 (or stricter) owned by this user. Errors name keys, never values.
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { type CenterConfigToml, type CenterMode } from '@arslan/protocol';
import { DEFAULT_CENTER_TIMEOUT_MS } from '@arslan/center-client';

export const DEFAULT_CENTER_VAULT = 'personal';

export interface ResolvedCenter {
  name: string;
  url: string;
  mode: CenterMode;
  /** The Center's vault id this device belongs to. */
  vault: string;
  /** The member credential (content routes); null when none is configured (ticket mode only). */
  credential: string | null;
  timeoutMs: number;
}

const CREDENTIAL_PATTERN = /^[\x21-\x7e]{16,512}$/;

function readCredentialFile(file: string, where: string): string {
  let mode: number;
  let uid: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new Error(`${where}.credential_file: not a regular file`);
    mode = st.mode;
    uid = st.uid;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined) throw error;
    throw new Error(`${where}.credential_file: cannot read (${code})`);
  }
  if ((mode & 0o077) !== 0)
    throw new Error(`${where}.credential_file: must have mode 0600 (no group/other access)`);
  const me = process.getuid?.();
  if (me !== undefined && uid !== me) throw new Error(`${where}.credential_file: must be owned by this user`);
  return readFileSync(file, 'utf8').trim();
}

export function resolveCenters(
  centers: readonly CenterConfigToml[] | undefined,
  configDir: string,
  readEnv: (name: string) => string | undefined,
): ResolvedCenter[] {
  return (centers ?? []).map((c) => {
    const where = `centers.${c.name}`;
    let credential: string | null = null;
    if (c.credential_env !== undefined) {
      const value = readEnv(c.credential_env);
      if (value === undefined || value === '')
        throw new Error(`${where}.credential_env: the variable ${c.credential_env} is not set`);
      credential = value.trim();
    } else if (c.credential_file !== undefined) {
      const file = isAbsolute(c.credential_file) ? c.credential_file : resolve(configDir, c.credential_file);
      credential = readCredentialFile(file, where);
    }
    if (credential !== null && !CREDENTIAL_PATTERN.test(credential))
      throw new Error(`${where}: the credential is not a well-formed token`);
    return {
      name: c.name,
      url: c.url,
      mode: c.mode ?? 'ticket',
      vault: c.vault ?? DEFAULT_CENTER_VAULT,
      credential,
      timeoutMs: c.timeout_ms ?? DEFAULT_CENTER_TIMEOUT_MS,
    };
  });
}
