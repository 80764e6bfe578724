import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';

// The phone and the admin console bundle these libs for the browser, so their
// default entries must pull in no Node builtin, directly or through a dependency.
// esbuild resolves the whole import graph the way a browser bundler would.

const root = join(__dirname, '..', '..');
const aliases = {
  '@arslan/util': join(root, 'libs/shared/util/src/index.ts'),
  '@arslan/envelope': join(root, 'libs/shared/envelope/src/index.ts'),
  '@arslan/policy': join(root, 'libs/shared/policy/src/index.ts'),
  '@arslan/vault-core': join(root, 'libs/shared/vault-core/src/index.ts'),
  '@arslan/retrieval': join(root, 'libs/shared/retrieval/src/index.ts'),
  '@arslan/protocol': join(root, 'libs/shared/protocol/src/index.ts'),
};
const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

async function importedModules(entry: string): Promise<{ inputs: string[]; external: string[] }> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    metafile: true,
    logLevel: 'silent',
    alias: aliases,
    // Any builtin becomes an external import we can see, instead of a build error.
    plugins: [
      {
        name: 'record-builtins',
        setup(b) {
          b.onResolve({ filter: /.*/ }, (args) =>
            builtins.has(args.path) ? { path: args.path, external: true } : undefined,
          );
        },
      },
    ],
  });
  const inputs = Object.keys(result.metafile.inputs);
  const external = Object.values(result.metafile.outputs).flatMap((o) =>
    o.imports.filter((i) => i.external).map((i) => i.path),
  );
  return { inputs, external };
}

describe('browser-clean default entries', () => {
  it.each([
    '@arslan/envelope',
    '@arslan/policy',
    '@arslan/util',
    '@arslan/vault-core',
    '@arslan/retrieval',
    '@arslan/protocol',
  ] as const)('%s imports no node: module', async (name) => {
    const { inputs, external } = await importedModules(aliases[name]);
    expect(inputs.length).toBeGreaterThan(1);
    expect(external.filter((path) => builtins.has(path))).toEqual([]);
  });

  it('the check itself sees a Node builtin when one is imported', async () => {
    const { external } = await importedModules(join(root, 'libs/shared/envelope-node/src/index.ts'));
    expect(external).toContain('node:crypto');
  });
});
