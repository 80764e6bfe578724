import { join } from 'node:path';

export interface PlatformInfo {
  platform: NodeJS.Platform;
  homedir: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** Per-user data directory of the memories store. */
export function defaultDataDir({ platform, homedir, env }: PlatformInfo): string {
  if (platform === 'darwin') return join(homedir, 'Library', 'Application Support', 'Arslan', 'memories');
  if (platform === 'win32') {
    return join(env['LOCALAPPDATA'] || join(homedir, 'AppData', 'Local'), 'Arslan', 'memories');
  }
  const xdg = env['XDG_DATA_HOME'];
  return join(xdg && xdg.startsWith('/') ? xdg : join(homedir, '.local', 'share'), 'arslan', 'memories');
}

/** `<config dir>/arslan/memories.toml`, read when --config is not given and the file exists. */
export function defaultConfigFile({ platform, homedir, env }: PlatformInfo): string {
  let dir: string;
  if (platform === 'darwin') dir = join(homedir, 'Library', 'Application Support');
  else if (platform === 'win32') dir = env['APPDATA'] || join(homedir, 'AppData', 'Roaming');
  else {
    const xdg = env['XDG_CONFIG_HOME'];
    dir = xdg && xdg.startsWith('/') ? xdg : join(homedir, '.config');
  }
  return join(dir, 'arslan', 'memories.toml');
}
