import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// Issue 6: the local rule arslan/require-route-policy (tools/eslint/route-policy.rule.mjs) is
// registered for apps/center/src and refuses a route or WebSocket handler without a policy
// marker. Each case lints a source text as a Center file in a real eslint process.

const root = join(__dirname, '..', '..');
const RULE = 'arslan/require-route-policy';

function policyErrors(code: string): string[] {
  let stdout: string;
  try {
    stdout = execFileSync(
      join(root, 'node_modules/.bin/eslint'),
      [
        '--stdin',
        '--stdin-filename',
        join(root, 'apps/center/src/http/probe.controller.ts'),
        '--format',
        'json',
      ],
      { cwd: root, input: code, encoding: 'utf8' },
    );
  } catch (error) {
    stdout = (error as { stdout: string }).stdout; // eslint exits 1 when it reports errors
  }
  const [result] = JSON.parse(stdout) as { messages: { ruleId: string | null; message: string }[] }[];
  return (result?.messages ?? []).filter((m) => m.ruleId === RULE).map((m) => m.message);
}

const header = [
  "import { Controller, Get, Post } from '@nestjs/common';",
  "import { SubscribeMessage } from '@nestjs/websockets';",
  "import { AdminRoute, ContentRoute, Public } from './route-policy';",
  '',
].join('\n');

describe('route policy lint rule (issue 6)', () => {
  beforeAll(() => {
    // @nx/enforce-module-boundaries also runs on the probe file and reads Nx's project graph.
    execFileSync(join(root, 'node_modules/.bin/nx'), ['show', 'projects'], {
      cwd: root,
      env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
    });
  });

  it('fires on a route and a WebSocket handler without a marker, naming the method and the markers', () => {
    const errors = policyErrors(
      `${header}@Controller('v1')
export class ProbeController {
  @Get('open')
  open(): string {
    return 'x';
  }

  @SubscribeMessage('events')
  events(): string {
    return 'x';
  }

  @Post('fine')
  @ContentRoute('read')
  fine(): string {
    return 'x';
  }
}
export const unused = [AdminRoute, Public];
`,
    );
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/ProbeController\.open/);
    expect(errors[1]).toMatch(/WebSocket handler `ProbeController\.events`/);
    for (const e of errors) expect(e).toMatch(/@Public, @AdminRoute, @ContentRoute/);
  });

  it('accepts markers on the method or on the class', () => {
    expect(
      policyErrors(
        `${header}@Controller()
export class ProbeController {
  @Get('livez')
  @Public('liveness probe')
  livez(): string {
    return 'ok';
  }

  @Post('rpc')
  @ContentRoute('read')
  rpc(): string {
    return 'ok';
  }
}

@Controller('v1/admin')
@AdminRoute()
export class ProbeAdminController {
  @Get('status')
  status(): string {
    return 'ok';
  }

  @SubscribeMessage('events')
  events(): string {
    return 'ok';
  }
}
`,
      ),
    ).toEqual([]);
  });
});
