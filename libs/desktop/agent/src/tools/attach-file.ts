// attach_file (FILE-07/08): attaches a reader-readable file to the answer, with its sha256. Refuses
// hidden or credential-like names, links leaving the readable folders, Arslan's own data,
// keychains and SSH keys, files over 20 MB and files beyond the per-run maximum.
import { createHash } from 'node:crypto';
import { createReadStream, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import type { Tool, ToolContext } from '../ports/tool.port';
import { isInside, PathRefusal, resolveForRead } from './paths';

export const ATTACH_MAX_BYTES = 20 * 1024 * 1024;

export interface AttachFileOptions {
  /** Readable folders besides the workspace (Desktop/Documents/Downloads when default reading is on). */
  extraReadRoots?: (ctx: ToolContext) => string[];
  /** Attachments per run (default 10). */
  maxPerRun?: number;
  maxBytes?: number;
}

const attachArgs = z.strictObject({
  path: z
    .string()
    .min(1)
    .describe('File to attach (relative to the workspace, or absolute in a readable folder).'),
});

function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (c) => hash.update(c))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

export function createAttachFileTool(options: AttachFileOptions = {}): Tool<z.infer<typeof attachArgs>> {
  const maxPerRun = options.maxPerRun ?? 10;
  const maxBytes = options.maxBytes ?? ATTACH_MAX_BYTES;
  const counts = new Map<string, number>();
  return {
    name: 'attach_file',
    description: 'Attach a file (screenshot, chart, export, document) to the answer.',
    schema: attachArgs,
    readOnly: true,
    resident: false,
    approval: () => null,
    async execute(args, ctx) {
      const used = counts.get(ctx.runId) ?? 0;
      if (used >= maxPerRun) {
        return { content: `Refused: at most ${maxPerRun} files may be attached per run.`, isError: true };
      }
      try {
        const roots = [ctx.workspace, ...(options.extraReadRoots?.(ctx) ?? [])];
        const target = await resolveForRead(roots, args.path);
        const dataDir = await fsp.realpath(ctx.dataDir).catch(() => path.resolve(ctx.dataDir));
        if (isInside(dataDir, target.real))
          return { content: "Refused: files under Arslan's own data are not attached.", isError: true };
        if (/\/(?:\.ssh|Library\/Keychains)(?:\/|$)/.test(target.real)) {
          return { content: 'Refused: keychains and SSH keys are never attached.', isError: true };
        }
        if (!target.stat.isFile()) return { content: `${args.path} is not a regular file`, isError: true };
        if (target.stat.size > maxBytes) {
          return {
            content: `Refused: ${args.path} is larger than ${Math.round(maxBytes / 1024 / 1024)} MB.`,
            isError: true,
          };
        }
        const sha256 = await sha256File(target.real);
        counts.set(ctx.runId, used + 1);
        return {
          content: `Attached ${path.basename(target.real)} (${target.stat.size} bytes, sha256 ${sha256}).`,
          artifacts: [{ path: target.real, sha256, bytes: target.stat.size }],
        };
      } catch (error) {
        if (error instanceof PathRefusal) return { content: error.message, isError: true };
        return { content: `attach failed: ${(error as Error).message}`, isError: true };
      }
    },
  };
}
