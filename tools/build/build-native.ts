// npm run build:native: compiles every N-API addon of the repo (each `libs/**/binding.gyp`)
// with node-gyp against the headers of the local Node install (no download), the same way
// npm builds better-sqlite3 here. Each addon ends up in `<lib>/build/Release/*.node`.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const root = join(__dirname, '..', '..');
const SKIP = new Set(['node_modules', 'build', 'dist', 'coverage', '.nx', '.git']);

/** Directories under `libs/` that hold a binding.gyp. */
export function findAddonDirs(base = join(root, 'libs')): string[] {
  if (!existsSync(base)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(base, { withFileTypes: true })) {
    if (entry.isFile() && entry.name === 'binding.gyp') found.push(base);
    else if (entry.isDirectory() && !SKIP.has(entry.name))
      found.push(...findAddonDirs(join(base, entry.name)));
  }
  return found.sort();
}

/** The node-gyp entry script: npm's own (as npm passes it), else the one bundled with the npm next to this Node. */
export function resolveNodeGyp(env: NodeJS.ProcessEnv = process.env): string {
  const candidates: string[] = [];
  if (env.npm_config_node_gyp) candidates.push(env.npm_config_node_gyp);
  const prefix = dirname(dirname(process.execPath));
  const bundled = join('npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  candidates.push(join(prefix, 'lib', 'node_modules', bundled)); // Unix layout (/usr, /opt/homebrew, nvm)
  candidates.push(join(dirname(process.execPath), 'node_modules', bundled)); // Windows layout
  try {
    const globalRoot = execFileSync('npm', ['root', '-g'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    candidates.push(join(globalRoot.trim(), bundled));
  } catch {
    // npm not on PATH: the candidates above are all we have
  }
  const hit = candidates.find((candidate) => existsSync(candidate));
  if (!hit) throw new Error(`node-gyp not found; looked at:\n  ${candidates.join('\n  ')}`);
  return hit;
}

/** `--nodedir` for the local headers: npm's setting, else this Node's prefix when it ships include/node. */
export function resolveNodeDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.npm_config_nodedir) return env.npm_config_nodedir;
  const prefix = dirname(dirname(process.execPath));
  return existsSync(join(prefix, 'include', 'node', 'node_api.h')) ? prefix : undefined;
}

export function buildNative(): string[] {
  const nodeGyp = resolveNodeGyp();
  const nodeDir = resolveNodeDir();
  const built: string[] = [];
  for (const dir of findAddonDirs()) {
    const args = [nodeGyp, 'rebuild', '--release', ...(nodeDir ? [`--nodedir=${nodeDir}`] : [])];
    execFileSync(process.execPath, args, { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] });
    built.push(relative(root, dir));
  }
  return built;
}

if (require.main === module) {
  const started = Date.now();
  const built = buildNative();
  const took = ((Date.now() - started) / 1000).toFixed(1);
  console.log(built.length ? `built native addons in ${took}s: ${built.join(', ')}` : 'no native addons');
}
