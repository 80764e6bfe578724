// A Center ticket for `init`, `restore`, `unlock` and `mcp grant` (CTR-1, CTR-3/4). A ticket is a
// bearer secret: it never comes from argv and is never printed, only read from a file that no
// other user can read (--center-ticket-file) or from an environment variable (--center-ticket-env).
import { resolve } from 'node:path';
import { UsageError } from './cli-errors';
import { readPrivateFile } from './private-file';
import { type CommandContext, stringFlag } from './cli-context';

const TICKET = /^[\x21-\x7e]{1,256}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const MAX_FILE_BYTES = 4096;

/** The ticket, or undefined when neither flag is given. Errors name the file or variable, never the value. */
export function centerTicket(ctx: CommandContext): string | undefined {
  const file = stringFlag(ctx, 'center-ticket-file');
  const env = stringFlag(ctx, 'center-ticket-env');
  if (file !== undefined && env !== undefined)
    throw new UsageError('give --center-ticket-file or --center-ticket-env, not both');
  if (file !== undefined) return checked(readTicketFile(resolve(ctx.io.cwd, file)), file);
  if (env !== undefined) {
    if (!ENV_NAME.test(env)) throw new UsageError('--center-ticket-env: not a variable name');
    const value = ctx.io.env[env];
    if (value === undefined || value.trim() === '')
      throw new UsageError(`--center-ticket-env: the variable ${env} is not set`);
    return checked(value.trim(), `the variable ${env}`);
  }
  return undefined;
}

function checked(ticket: string, where: string): string {
  if (!TICKET.test(ticket)) throw new UsageError(`${where} does not hold a Center ticket`);
  return ticket;
}

function readTicketFile(path: string): string {
  return readPrivateFile(path, 'Center ticket', MAX_FILE_BYTES).trim();
}
