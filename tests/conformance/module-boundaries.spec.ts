import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// The boundary rules of ARCHITECTURE.md are real: each case lints a source text
// placed in a project and expects @nx/enforce-module-boundaries to fire (or not).

const root = join(__dirname, '..', '..');

/** Lints `code` as if it were the file at `filePath`, in a real eslint process. */
async function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  let stdout: string;
  try {
    stdout = execFileSync(
      join(root, 'node_modules/.bin/eslint'),
      ['--stdin', '--stdin-filename', join(root, filePath), '--format', 'json'],
      { cwd: root, input: code, encoding: 'utf8' },
    );
  } catch (error) {
    stdout = (error as { stdout: string }).stdout; // eslint exits 1 when it reports errors
  }
  const [result] = JSON.parse(stdout) as { messages: { ruleId: string | null; message: string }[] }[];
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === '@nx/enforce-module-boundaries')
    .map((m) => m.message);
}

describe('module boundaries', () => {
  beforeAll(() => {
    // The rule reads Nx's cached project graph; make sure it exists and is current.
    execFileSync(join(root, 'node_modules/.bin/nx'), ['show', 'projects'], {
      cwd: root,
      env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
    });
  });

  it('platform:any may not import platform:node (policy -> envelope-node)', async () => {
    const errors = await boundaryErrors(
      'libs/shared/policy/src/probe.ts',
      "import { nodeCrypto } from '@arslan/envelope-node';\nexport const probe = nodeCrypto;\n",
    );
    expect(errors.join('\n')).toMatch(/platform:any/);
  });

  it('type:util may not import type:domain (util -> envelope)', async () => {
    const errors = await boundaryErrors(
      'libs/shared/util/src/probe.ts',
      "import { nobleCrypto } from '@arslan/envelope';\nexport const probe = nobleCrypto;\n",
    );
    // envelope already imports util, so Nx may name the cycle before the tag rule; either refuses it.
    expect(errors.join('\n')).toMatch(/type:util|Circular dependency/);
  });

  it('scope:shared may not import scope:tools, and a lib may not import an app', async () => {
    const errors = await boundaryErrors(
      'libs/shared/envelope/src/probe.ts',
      "import { runConformance } from '../../../../tools/conformance/conformance-runner';\nexport const probe = runConformance;\n",
    );
    expect(errors.join('\n')).toMatch(
      /scope:shared|type:app|Imports of apps are forbidden|relative or absolute path/i,
    );
  });

  it('allowed edges pass (envelope-node -> envelope, envelope -> util)', async () => {
    expect(
      await boundaryErrors(
        'libs/shared/envelope-node/src/probe.ts',
        "import { nobleCrypto } from '@arslan/envelope';\nexport const probe = nobleCrypto;\n",
      ),
    ).toEqual([]);
    expect(
      await boundaryErrors(
        'libs/shared/envelope/src/probe.ts',
        "import { wipe } from '@arslan/util';\nexport const probe = wipe;\n",
      ),
    ).toEqual([]);
  });
});
