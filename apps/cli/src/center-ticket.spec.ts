// Center tickets for init/unlock/restore/mcp grant (CTR-1, CTR-3/4): never from argv, never echoed.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { centerTicket } from './center-ticket';
import { parseArgs } from './cli-args';
import { type CommandContext } from './cli-context';

const TICKET = 'act_0123456789abcdefABCDEF_-';

describe('memories: Center tickets', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'center-ticket-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const ctx = (argv: string[], env: Record<string, string> = {}) =>
    ({ args: parseArgs(argv), io: { cwd: dir, env } }) as unknown as CommandContext;
  const failure = (run: () => unknown): string => {
    try {
      run();
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('expected a usage error');
  };

  it('CTR-4: a ticket in argv is refused by name, before anything is read', () => {
    for (const flag of ['--center-ticket', '--ticket'])
      expect(failure(() => parseArgs(['unlock', flag, TICKET]))).toMatch(/never taken from the command line/);
  });

  it('CTR-1: from a file of mode 0600 only; a wider file is refused without echoing it', () => {
    const file = join(dir, 't');
    writeFileSync(file, `${TICKET}\n`, { mode: 0o600 });
    expect(centerTicket(ctx(['init', '--center-ticket-file', 't']))).toBe(TICKET);
    chmodSync(file, 0o640);
    const message = failure(() => centerTicket(ctx(['init', '--center-ticket-file', file])));
    expect(message).toMatch(/chmod 600/);
    expect(message).not.toContain(TICKET);
    expect(failure(() => centerTicket(ctx(['init', '--center-ticket-file', join(dir, 'none')])))).toMatch(
      /ENOENT/,
    );
  });

  it('CTR-3: from a named environment variable; a malformed value is refused without echoing it', () => {
    const env = { DESK: ` ${TICKET} `, BAD: 'has spaces in it' };
    expect(centerTicket(ctx(['mcp', 'grant', '--center-ticket-env', 'DESK'], env))).toBe(TICKET);
    const bad = failure(() => centerTicket(ctx(['unlock', '--center-ticket-env', 'BAD'], env)));
    expect(bad).toBe('the variable BAD does not hold a Center ticket');
    expect(failure(() => centerTicket(ctx(['unlock', '--center-ticket-env', 'NOPE'], env)))).toMatch(
      /NOPE is not set/,
    );
    expect(failure(() => centerTicket(ctx(['unlock', '--center-ticket-env', 'A-B'], env)))).toMatch(
      /not a variable name/,
    );
  });

  it('CTR-1: the file and the variable together are a usage error; neither means no ticket', () => {
    const both = ['unlock', '--center-ticket-file', 'x', '--center-ticket-env', 'DESK'];
    expect(failure(() => centerTicket(ctx(both)))).toMatch(/not both/);
    expect(centerTicket(ctx(['unlock']))).toBeUndefined();
  });
});
