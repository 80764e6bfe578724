// The grant file (MCP-1): the capability lives only here, written once with mode 0600 to a path
// that must not exist yet ({flag: 'wx'}), and is read back by `mcp serve`. Never printed.
import { closeSync, fsyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { mcpToken } from '@arslan/protocol';
import { z } from 'zod';
import { LocalCommandError, UsageError } from '../cli-errors';
import { readPrivateFile } from '../private-file';

export const GRANT_FILE_KIND = 'arslan.mcp-grant';

const grantFileSchema = z.strictObject({
  v: z.literal(1),
  kind: z.literal(GRANT_FILE_KIND),
  token: mcpToken,
  grant_id: z.string().regex(/^[0-9a-f]{32}$/),
  vault: z.string().min(1).max(64),
  scope: z.enum(['read', 'read_write', 'read_write_delete']),
  expires_at: z.number().int().min(0),
  /** The daemon's data directory, so `mcp serve` finds the socket without flags. */
  data_dir: z.string().min(1).max(4096),
});

export type GrantFile = z.infer<typeof grantFileSchema>;

/** Creates FILE exclusively with mode 0600 before any grant exists; returns its descriptor. */
export function createGrantFile(path: string): number {
  try {
    return openSync(path, 'wx', 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new UsageError(`${path} exists; grant files are never overwritten`);
    throw new LocalCommandError('io_failed', `cannot create ${path} (${code ?? 'error'})`, 14);
  }
}

export function writeGrantFile(fd: number, content: GrantFile): void {
  const bytes = Buffer.from(`${JSON.stringify(content)}\n`, 'utf8');
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
  fsyncSync(fd);
  bytes.fill(0);
}

export function discardGrantFile(fd: number, path: string): void {
  try {
    closeSync(fd);
  } finally {
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
  }
}

/** Reads and checks a grant file; refuses files other users could read (the token is a bearer). */
export function readGrantFile(path: string): GrantFile {
  const parsed = grantFileSchema.safeParse(safeJson(readPrivateFile(path, 'grant file', 4096)));
  // Never echo the content: it holds the token.
  if (!parsed.success) throw new UsageError(`${path} is not a valid grant file`);
  return parsed.data;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
