// File tools (FILE-02..04, TOOL-18/24, WRITE-001..004): reads are bounded to the readable folders
// (the workspace and Arslan's own tool output), writes to the real workspace, never through links.
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import type { ApprovalNeed, Tool, ToolContext, ToolResult } from '../ports/tool.port';
import { atomicWriteFile, type AtomicWriteFs } from './atomic-write';
import { isHiddenOrCredentialName, PathRefusal, resolveForRead, resolveForWrite } from './paths';
import { TOOL_OUTPUT_DIR } from './tool-output';

export interface FileToolsOptions {
  /** Extra readable folders (e.g. Desktop/Documents/Downloads when default reading is on, FILE-02). */
  extraReadRoots?: (ctx: ToolContext) => string[];
  /** Largest chunk one read_file call returns (bytes). Default 64 KiB. */
  maxChunkBytes?: number;
  /** Largest file write_file/edit_file handle (bytes). Default 10 MiB. */
  maxWriteBytes?: number;
  /** Injected by tests to make write steps fail (WRITE-003). */
  writeFs?: AtomicWriteFs;
}

const DEFAULT_CHUNK = 64 * 1024;
const MAX_CHUNK = 256 * 1024;
const DEFAULT_MAX_WRITE = 10 * 1024 * 1024;
const MAX_LIST = 500;

export function readRoots(ctx: ToolContext, options: FileToolsOptions = {}): string[] {
  return [ctx.workspace, path.join(ctx.dataDir, TOOL_OUTPUT_DIR), ...(options.extraReadRoots?.(ctx) ?? [])];
}

function refusal(error: unknown): ToolResult {
  if (error instanceof PathRefusal) return { content: error.message, isError: true };
  const e = error as NodeJS.ErrnoException;
  return { content: `file operation failed: ${e.code ?? e.message ?? String(error)}`, isError: true };
}

/** Length of `buf` without a trailing, incomplete UTF-8 sequence (a chunk never splits a character). */
function utf8Boundary(buf: Buffer): number {
  let i = buf.length - 1;
  while (i > 0 && buf.length - i < 4 && ((buf[i] ?? 0) & 0xc0) === 0x80) i -= 1;
  const lead = buf[i] ?? 0;
  const width = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return i + width > buf.length ? i : buf.length;
}

const readFileArgs = z.strictObject({
  path: z.string().min(1).describe('File path, relative to the workspace (or an absolute path it allows).'),
  offset: z.number().int().min(0).default(0).describe('Byte offset to start reading at.'),
  limit: z.number().int().min(1).max(MAX_CHUNK).optional().describe('Bytes to read (default 65536).'),
});

export function createReadFileTool(options: FileToolsOptions = {}): Tool<z.infer<typeof readFileArgs>> {
  return {
    name: 'read_file',
    description:
      'Read a text file in the workspace (or a saved long tool output) in byte chunks. Hidden and credential-like files are refused.',
    schema: readFileArgs,
    readOnly: true,
    resident: true,
    approval: () => null,
    async execute(args, ctx) {
      try {
        const target = await resolveForRead(readRoots(ctx, options), args.path);
        if (!target.stat.isFile()) return { content: `${args.path} is not a regular file`, isError: true };
        const size = target.stat.size;
        const want = Math.min(args.limit ?? options.maxChunkBytes ?? DEFAULT_CHUNK, MAX_CHUNK);
        if (args.offset > size)
          return { content: `offset ${args.offset} is beyond the end (${size} bytes)`, isError: true };
        const handle = await fsp.open(target.real, 'r');
        let buf: Buffer;
        try {
          buf = Buffer.alloc(Math.min(want, size - args.offset));
          const { bytesRead } = await handle.read(buf, 0, buf.length, args.offset);
          buf = buf.subarray(0, bytesRead);
        } finally {
          await handle.close();
        }
        if (buf.includes(0)) return { content: `${args.path} looks binary; not read`, isError: true };
        const cut = args.offset + buf.length < size ? utf8Boundary(buf) : buf.length;
        const text = buf.subarray(0, cut).toString('utf8');
        const end = args.offset + cut;
        const header =
          end < size || args.offset > 0
            ? `[${args.path}: bytes ${args.offset}-${end} of ${size}${end < size ? `; continue with offset=${end}` : ''}]\n`
            : '';
        // A file's text is external content for the turn (SEC-005).
        return { content: header + text, external: true };
      } catch (error) {
        return refusal(error);
      }
    },
  };
}

const listDirArgs = z.strictObject({
  path: z.string().default('.').describe('Directory, relative to the workspace.'),
});

export function createListDirTool(options: FileToolsOptions = {}): Tool<z.infer<typeof listDirArgs>> {
  return {
    name: 'list_dir',
    description: 'List a workspace directory (hidden and credential-like names are not shown).',
    schema: listDirArgs,
    readOnly: true,
    resident: true,
    approval: () => null,
    async execute(args, ctx) {
      try {
        const target = await resolveForRead(readRoots(ctx, options), args.path === '' ? '.' : args.path);
        if (!target.stat.isDirectory()) return { content: `${args.path} is not a directory`, isError: true };
        const entries = (await fsp.readdir(target.real, { withFileTypes: true }))
          .filter((e) => !isHiddenOrCredentialName(e.name))
          .sort((a, b) => a.name.localeCompare(b.name));
        const lines = entries
          .slice(0, MAX_LIST)
          .map((e) => (e.isDirectory() ? `${e.name}/` : e.isSymbolicLink() ? `${e.name} (link)` : e.name));
        if (entries.length > MAX_LIST) lines.push(`… ${entries.length - MAX_LIST} more entries not shown`);
        return { content: lines.length > 0 ? lines.join('\n') : '(empty directory)' };
      } catch (error) {
        return refusal(error);
      }
    },
  };
}

async function writeInWorkspace(
  ctx: ToolContext,
  input: string,
  produce: (current: string | null) => string | ToolResult,
  options: FileToolsOptions,
): Promise<ToolResult> {
  const max = options.maxWriteBytes ?? DEFAULT_MAX_WRITE;
  const target = await resolveForWrite(ctx.workspace, input);
  let current: string | null = null;
  if (target.existing) {
    if (target.existing.size > max) return { content: `${input} is larger than ${max} bytes`, isError: true };
    current = await fsp.readFile(target.real, 'utf8');
  }
  const next = produce(current);
  if (typeof next !== 'string') return next;
  if (Buffer.byteLength(next) > max) return { content: `content is larger than ${max} bytes`, isError: true };
  await ctx.beforeWorkspaceChange?.(); // CKPT-11: the undo checkpoint saves the folder first
  for (const dir of target.missingDirs) await fsp.mkdir(dir, { mode: 0o755 }).catch(ignoreExists);
  // Re-resolve after creating directories: the walk must still end at the same real path.
  const again = target.missingDirs.length > 0 ? await resolveForWrite(ctx.workspace, input) : target;
  if (again.real !== target.real) throw new PathRefusal('the target path changed during the write');
  await atomicWriteFile(again.real, next, { existing: again.existing, fs: options.writeFs });
  const rel = path.relative(ctx.workspace, again.real) || again.real;
  const bytes = Buffer.byteLength(next);
  // LOOP-11: the artifact reference that lets the answer claim this file.
  const sha256 = createHash('sha256').update(next).digest('hex');
  return {
    content: `${target.existing ? 'Replaced' : 'Created'} ${rel} (${bytes} bytes)`,
    artifacts: [{ path: again.real, sha256, bytes }],
  };
}

function ignoreExists(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EEXIST') throw error;
}

function writeNeed(action: string, p: string): ApprovalNeed {
  return { kind: 'workspace_write', summary: `${action} ${p}`, taskScoped: true };
}

const writeFileArgs = z.strictObject({
  path: z.string().min(1).describe('File path, relative to the workspace.'),
  content: z.string().describe('The complete new content of the file.'),
});

export function createWriteFileTool(options: FileToolsOptions = {}): Tool<z.infer<typeof writeFileArgs>> {
  return {
    name: 'write_file',
    description:
      'Create or replace a text file in the workspace (atomic; never through links leaving the workspace).',
    schema: writeFileArgs,
    readOnly: false,
    resident: true,
    approval: (args) => writeNeed('write', args.path),
    async execute(args, ctx) {
      try {
        return await writeInWorkspace(ctx, args.path, () => args.content, options);
      } catch (error) {
        return refusal(error);
      }
    },
  };
}

const editFileArgs = z.strictObject({
  path: z.string().min(1).describe('File path, relative to the workspace.'),
  old_string: z.string().min(1).describe('Exact text to replace; must occur exactly once.'),
  new_string: z.string().describe('Replacement text.'),
});

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length))
    count += 1;
  return count;
}

export function createEditFileTool(options: FileToolsOptions = {}): Tool<z.infer<typeof editFileArgs>> {
  return {
    name: 'edit_file',
    description: 'Replace one exact, unique occurrence of old_string with new_string in a workspace file.',
    schema: editFileArgs,
    readOnly: false,
    resident: true,
    approval: (args) => writeNeed('edit', args.path),
    async execute(args, ctx) {
      try {
        return await writeInWorkspace(
          ctx,
          args.path,
          (current) => {
            if (current === null) return { content: `${args.path} does not exist`, isError: true };
            const n = countOccurrences(current, args.old_string);
            if (n === 0) return { content: `old_string was not found in ${args.path}`, isError: true };
            if (n > 1) {
              return {
                content: `old_string occurs ${n} times in ${args.path}; include more context to make it unique`,
                isError: true,
              };
            }
            const at = current.indexOf(args.old_string);
            return current.slice(0, at) + args.new_string + current.slice(at + args.old_string.length);
          },
          options,
        );
      } catch (error) {
        return refusal(error);
      }
    },
  };
}

export function createFileTools(options: FileToolsOptions = {}) {
  return [
    createReadFileTool(options),
    createListDirTool(options),
    createWriteFileTool(options),
    createEditFileTool(options),
  ] as const;
}
