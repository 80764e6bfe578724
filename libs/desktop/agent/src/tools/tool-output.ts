// DATA-03: the full text of very long tool output is kept under <dataDir>/tool-output for 7 days;
// the model gets a head + tail excerpt and the path, and reads the rest with read_file in chunks.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

export const TOOL_OUTPUT_DIR = 'tool-output';
export const TOOL_OUTPUT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

export function toolOutputDir(dataDir: string): string {
  return path.join(dataDir, TOOL_OUTPUT_DIR);
}

/** A file name built only from safe characters of the ids (never hidden, never credential-like). */
export function toolOutputFileName(runId: string, callId: string, now: number): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 48) || 'x';
  return `output-${now}-${clean(runId)}-${clean(callId)}.txt`;
}

/** Deletes saved outputs older than the retention (by modification time). Returns the deleted paths. */
export async function sweepToolOutput(
  dataDir: string,
  now: number,
  retentionMs: number = TOOL_OUTPUT_RETENTION_MS,
): Promise<string[]> {
  const dir = toolOutputDir(dataDir);
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const deleted: string[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    const st = await fsp.lstat(file).catch(() => null);
    if (!st || st.isDirectory()) continue;
    if (now - st.mtimeMs >= retentionMs) {
      await fsp.unlink(file).catch(() => undefined);
      deleted.push(file);
    }
  }
  return deleted;
}
