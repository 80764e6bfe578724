// DATA-02: a tool result's files (today `attach_file`) are copied into `<data>/artifacts/` under a
// random name and recorded per run, so the answer's files survive later edits or deletion of the
// originals and can be served by id alone (FILE-05). The copy's own digest and size are recorded.
import { randomUUID } from 'node:crypto';
import { mkdirSync, promises as fsp } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { sha256File } from '../checkpoints/manifest';
import type { Tool, ToolContext, ToolResult } from '../ports/tool.port';
import { ArtifactRepository, type ArtifactRow } from '../store/artifact.repository';
import type { AgentDb } from '../store/agent-db';

export const ARTIFACTS_DIR_NAME = 'artifacts';

const MEDIA_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.pdf': 'application/pdf',
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.zip': 'application/zip',
};

export function mediaTypeOf(fileName: string): string {
  return MEDIA_TYPES[extname(fileName).toLowerCase()] ?? 'application/octet-stream';
}

/** HTML and SVG can run script when rendered: they are only ever shown in a sandbox (FILE-06). */
export function isActiveContent(mediaType: string): boolean {
  return mediaType === 'text/html' || mediaType === 'image/svg+xml';
}

export interface OpenedArtifact {
  row: ArtifactRow;
  /** Absolute path of the stored copy. */
  path: string;
}

export class ArtifactStore {
  readonly dir: string;
  private readonly repo: ArtifactRepository;

  constructor(
    db: AgentDb,
    dataDir: string,
    private readonly now: () => number = Date.now,
  ) {
    this.dir = join(dataDir, ARTIFACTS_DIR_NAME);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.repo = new ArtifactRepository(db);
  }

  /** Copies `source` (already vetted by the tool) and records it for the run. */
  async record(input: { runId: string; callId: string; tool: string; source: string }): Promise<ArtifactRow> {
    const id = randomUUID();
    const storedName = `${id}.bin`;
    const target = join(this.dir, storedName);
    // COPYFILE_EXCL: never overwrite; the copy is private to this user and never executable.
    await fsp.copyFile(input.source, target, fsp.constants.COPYFILE_EXCL);
    try {
      await fsp.chmod(target, 0o600);
      const [stat, sha256] = await Promise.all([fsp.stat(target), sha256File(target)]);
      const fileName = basename(input.source);
      const row: ArtifactRow = {
        id,
        runId: input.runId,
        callId: input.callId,
        tool: input.tool,
        fileName,
        mediaType: mediaTypeOf(fileName),
        storedName,
        bytes: stat.size,
        sha256,
        createdAt: this.now(),
      };
      this.repo.insert(row);
      return row;
    } catch (error) {
      await fsp.rm(target, { force: true });
      throw error;
    }
  }

  list(runId: string): ArtifactRow[] {
    return this.repo.listForRun(runId);
  }

  /** The stored copy of an artifact recorded for `runId`; undefined for anything else. */
  open(runId: string, artifactId: string): OpenedArtifact | undefined {
    const row = this.repo.getForRun(runId, artifactId);
    if (!row || !/^[0-9a-f-]{36}\.bin$/.test(row.storedName)) return undefined;
    return { row, path: join(this.dir, row.storedName) };
  }

  /**
   * The tool with its result's artifacts recorded. A file that cannot be stored turns the result
   * into an error, so the answer never claims a file the user cannot get.
   */
  wrapTool<A>(tool: Tool<A>): Tool<A> {
    const record = (input: Parameters<ArtifactStore['record']>[0]): Promise<ArtifactRow> =>
      this.record(input);
    return {
      ...tool,
      async execute(args: A, ctx: ToolContext): Promise<ToolResult> {
        const result = await tool.execute(args, ctx);
        if (!result.artifacts || result.artifacts.length === 0 || result.isError) return result;
        try {
          const rows = [];
          for (const artifact of result.artifacts)
            rows.push(
              await record({ runId: ctx.runId, callId: ctx.callId, tool: tool.name, source: artifact.path }),
            );
          const ids = rows.map((r) => `${r.fileName} (artifact ${r.id})`).join(', ');
          return { ...result, content: `${result.content}\nSaved: ${ids}.` };
        } catch (error) {
          return { content: `the file could not be saved: ${(error as Error).message}`, isError: true };
        }
      },
    };
  }
}
