// ARCH-11: in desktop mode nothing inherited from the launching environment may change how the
// daemon behaves (auth, bind address, data dir, TLS checks, proxies, Node flags for children).
// The process env is cut down to what a shell needs to run commands for the user; the one
// variable still read is the API key variable the app's own config names (looked up in a copy).

/** Kept for the user's terminal commands (locale, home, search path). */
export const DESKTOP_ENV_ALLOWLIST = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
];

/** Removes every other variable from `env` in place; returns the names removed. */
export function scrubInheritedEnv(env: NodeJS.ProcessEnv): string[] {
  const removed: string[] = [];
  for (const name of Object.keys(env)) {
    if (DESKTOP_ENV_ALLOWLIST.includes(name)) continue;
    delete env[name];
    removed.push(name);
  }
  return removed;
}
