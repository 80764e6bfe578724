import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = join(__dirname, '..', '..');

/**
 * Bundles workspace libs into one module and loads it, as the phone, browser
 * and packaged daemon run them. Importing the TypeScript sources through tsx instead
 * would run the ESM-only @noble packages through a CJS transform that makes their
 * hot loops ~40x slower (measured: SHA-512 2 MB/s instead of 77 MB/s), which says
 * nothing about the shipped code.
 */
export async function importBundled<T>(source: string, platform: 'neutral' | 'node'): Promise<T> {
  const { compilerOptions } = (await import(join(root, 'tsconfig.base.json'))) as {
    compilerOptions: { paths: Record<string, string[]> };
  };
  const alias = Object.fromEntries(
    Object.entries(compilerOptions.paths).map(([name, [target]]) => [name, join(root, target as string)]),
  );
  const result = await build({
    stdin: { contents: source, resolveDir: root, loader: 'ts' },
    bundle: true,
    write: false,
    // CommonJS for Node (require, __dirname and native addons behave as in the daemon
    // bundle); ESM for the platform-neutral build the phone and browser would use.
    format: platform === 'node' ? 'cjs' : 'esm',
    platform,
    mainFields: ['module', 'main'],
    target: 'node20',
    // Native addons and large self-contained packages load from node_modules as usual.
    external: [
      'better-sqlite3',
      'argon2',
      '@node-rs/jieba',
      'onnxruntime-node',
      '@energetic-ai/*',
      '@stdlib/*',
    ],
    alias,
    logLevel: 'silent',
  });
  // Inside the repo, so the bundle's external imports resolve from its node_modules.
  const cache = join(root, 'node_modules', '.cache', 'arslan-bench');
  mkdirSync(cache, { recursive: true });
  const file = join(mkdtempSync(join(cache, 'bundle-')), platform === 'node' ? 'bundle.cjs' : 'bundle.mjs');
  writeFileSync(file, result.outputFiles[0]!.contents);
  if (platform === 'node') return createRequire(__filename)(file) as T;
  return (await import(pathToFileURL(file).href)) as T;
}
