// DATA-02: file artifacts of a run. The bytes live in the app data folder under a random stored
// name; the row is the only way to reach them (the local API never takes a path from a client).
import type { AgentDb } from './agent-db';

export interface ArtifactRow {
  id: string;
  runId: string;
  callId: string;
  tool: string;
  /** The original file's base name (shown to the user, used as the download name). */
  fileName: string;
  mediaType: string;
  /** File name inside the artifacts folder (random, never client-supplied). */
  storedName: string;
  bytes: number;
  sha256: string;
  createdAt: number;
}

interface RawArtifact {
  id: string;
  run_id: string;
  call_id: string;
  tool: string;
  file_name: string;
  media_type: string;
  stored_name: string;
  bytes: number;
  sha256: string;
  created_at: number;
}

function toRow(raw: RawArtifact): ArtifactRow {
  return {
    id: raw.id,
    runId: raw.run_id,
    callId: raw.call_id,
    tool: raw.tool,
    fileName: raw.file_name,
    mediaType: raw.media_type,
    storedName: raw.stored_name,
    bytes: raw.bytes,
    sha256: raw.sha256,
    createdAt: raw.created_at,
  };
}

export class ArtifactRepository {
  constructor(private readonly db: AgentDb) {}

  insert(row: ArtifactRow): void {
    this.db
      .prepare(
        `INSERT INTO artifacts (id, run_id, call_id, tool, file_name, media_type, stored_name, bytes, sha256, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        row.id,
        row.runId,
        row.callId,
        row.tool,
        row.fileName,
        row.mediaType,
        row.storedName,
        row.bytes,
        row.sha256,
        row.createdAt,
      );
  }

  listForRun(runId: string): ArtifactRow[] {
    const rows = this.db
      .prepare('SELECT * FROM artifacts WHERE run_id = ? ORDER BY created_at, rowid')
      .all(runId) as RawArtifact[];
    return rows.map(toRow);
  }

  /** The artifact only if it belongs to `runId`. */
  getForRun(runId: string, artifactId: string): ArtifactRow | undefined {
    const raw = this.db
      .prepare('SELECT * FROM artifacts WHERE run_id = ? AND id = ?')
      .get(runId, artifactId) as RawArtifact | undefined;
    return raw ? toRow(raw) : undefined;
  }
}
