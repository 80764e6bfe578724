import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';

const root = join(__dirname, '..', '..');

/**
 * Bundles a TypeScript entry into one CommonJS file inside the repo (so native
 * modules resolve from its node_modules) and returns its path. End-to-end tests
 * run such bundles as real processes: fast, and the same shape as shipped code.
 */
export function bundleEntry(entry: string, name: string): string {
  const { compilerOptions } = JSON.parse(readFileSync(join(root, 'tsconfig.base.json'), 'utf8')) as {
    compilerOptions: { paths: Record<string, string[]> };
  };
  const alias = Object.fromEntries(
    Object.entries(compilerOptions.paths).map(([alias, [target]]) => [alias, join(root, target as string)]),
  );
  const dir = join(root, 'node_modules', '.cache', 'arslan-e2e');
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, `${name}.cjs`);
  buildSync({
    entryPoints: [join(root, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    mainFields: ['module', 'main'],
    // Native addons and model packages load from node_modules (same list as tools/build/build-apps.ts).
    external: [
      'better-sqlite3',
      'argon2',
      '@node-rs/jieba',
      'onnxruntime-node',
      '@energetic-ai/*',
      '@arslan/peer-credentials-native',
    ],
    alias,
    logLevel: 'warning',
  });
  return outfile;
}

export const repoRoot = root;
