// The phone and browser import this lib: its source must not touch Node.
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';

const SRC = __dirname;
const PRODUCTION_IMPORTS = new Set(['@noble/hashes/sha2.js', '@noble/hashes/utils.js', '@arslan/util']);
const TEST_SUPPORT_IMPORTS = PRODUCTION_IMPORTS;
const NODE_GLOBALS = /\b(?:Buffer|process|__dirname|__filename|setImmediate)\b|\brequire\s*\(|\bglobal\./;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** Every module specifier in static imports/exports, dynamic imports and require calls. */
function specifiers(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\bfrom\s+['"]([^'"]+)['"]/g,
    /\bimport\s+['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]/g,
  ];
  for (const re of patterns) for (const m of text.matchAll(re)) found.push(m[1] as string);
  return found;
}

function isNodeBuiltin(spec: string): boolean {
  return (
    spec.startsWith('node:') || builtinModules.includes(spec) || builtinModules.includes(spec.split('/')[0]!)
  );
}

describe('platform:any', () => {
  const files = sourceFiles(SRC);

  it('scans the real source tree', () => {
    expect(files.map((f) => relative(SRC, f))).toEqual(
      expect.arrayContaining(['index.ts', 'text-chunker.ts', 'hybrid-retriever.ts']),
    );
  });

  it('the detector itself flags node imports, bare builtins and Node globals', () => {
    const bad = `import { x } from 'node:crypto';\nconst fs = require('fs');\nimport('buffer');`;
    expect(specifiers(bad).filter(isNodeBuiltin).sort()).toEqual(['buffer', 'fs', 'node:crypto']);
    expect(isNodeBuiltin('crypto')).toBe(true);
    expect(NODE_GLOBALS.test('const b = Buffer.from(x)')).toBe(true);
  });

  it.each(sourceFiles(SRC).map((f) => [relative(SRC, f), f]))(
    '%s imports no Node module and uses no Node global',
    (_name, file) => {
      const text = readFileSync(file, 'utf8');
      const external = specifiers(text).filter((s) => !s.startsWith('.'));
      expect(external.filter(isNodeBuiltin)).toEqual([]);
      const allowed = file.includes(`${join(SRC, 'testing')}`) ? TEST_SUPPORT_IMPORTS : PRODUCTION_IMPORTS;
      expect(external.filter((s) => !allowed.has(s))).toEqual([]);
      const code = text.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
      expect(code.match(NODE_GLOBALS)).toBeNull();
    },
  );
});
