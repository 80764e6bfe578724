// Artifact routes of the local API (DATA-02, FILE-05/06):
//   GET /api/runs/:id/artifacts               → the run's recorded files (names, types, sizes, digests)
//   GET /api/runs/:id/artifacts/:artifactId   → the bytes, always as a download
// Only files recorded in the database for that run are reachable: the client names ids, never a
// path. Bytes go out as `attachment` with `nosniff` and a `sandbox` CSP, so even HTML or SVG opened
// directly cannot run script with the API's origin; the UI shows HTML only in an iframe with an
// empty `sandbox` attribute (FILE-06).
import { promises as fsp } from 'node:fs';
import type { ServerResponse } from 'node:http';
import type { ArtifactRow, ArtifactStore, RunService } from '@arslan/desktop-agent';

export type ArtifactsApiErrorCode = 'not_found' | 'method_not_allowed' | 'invalid_query';

export interface ArtifactsRouteContext {
  service: RunService;
  artifacts: ArtifactStore | undefined;
  method: string;
  query: URLSearchParams;
  /** Throws the server's API error (never returns). */
  fail: (status: number, code: ArtifactsApiErrorCode, message: string) => never;
}

const RUN_ID = /^[A-Za-z0-9_.:-]{1,200}$/;
const ARTIFACT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The run and artifact ids of a download path, or undefined when the path is not one. */
export function matchArtifactDownload(pathname: string): { runId: string; artifactId: string } | undefined {
  const parts = pathname.split('/').filter((p) => p !== '');
  if (parts.length !== 5 || parts[0] !== 'api' || parts[1] !== 'runs' || parts[3] !== 'artifacts')
    return undefined;
  let runId: string;
  let artifactId: string;
  try {
    runId = decodeURIComponent(parts[2] ?? '');
    artifactId = decodeURIComponent(parts[4] ?? '');
  } catch {
    return undefined;
  }
  return { runId, artifactId };
}

function publicRow(row: ArtifactRow): Omit<ArtifactRow, 'storedName' | 'runId'> {
  const { storedName: _stored, runId: _run, ...rest } = row;
  return rest;
}

function checkRequest(ctx: ArtifactsRouteContext): ArtifactStore {
  if (ctx.method !== 'GET') return ctx.fail(405, 'method_not_allowed', 'use GET');
  const names = [...new Set(ctx.query.keys())];
  if (names.length > 0)
    ctx.fail(400, 'invalid_query', `unknown query parameter ${names.slice(0, 5).join(', ')}`);
  if (!ctx.artifacts) return ctx.fail(404, 'not_found', 'no artifacts here');
  return ctx.artifacts;
}

export function routeRunArtifacts(
  ctx: ArtifactsRouteContext,
  runId: string,
): { status: number; body: unknown } {
  const artifacts = checkRequest(ctx);
  if (!ctx.service.runs.getRun(runId)) return ctx.fail(404, 'not_found', 'no such run');
  return { status: 200, body: { runId, artifacts: artifacts.list(runId).map(publicRow) } };
}

/** RFC 6266: an ASCII fallback name plus the exact UTF-8 name. */
export function attachmentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\;]/g, '_') || 'artifact';
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/** Streams the artifact's stored copy as a download (FILE-05); 404 for anything not recorded. */
export async function sendArtifact(
  ctx: ArtifactsRouteContext,
  res: ServerResponse,
  target: { runId: string; artifactId: string },
): Promise<void> {
  const artifacts = checkRequest(ctx);
  if (!RUN_ID.test(target.runId) || !ARTIFACT_ID.test(target.artifactId))
    return ctx.fail(404, 'not_found', 'no such artifact');
  const opened = artifacts.open(target.runId, target.artifactId);
  if (!opened) return ctx.fail(404, 'not_found', 'no such artifact');
  const handle = await fsp.open(opened.path, 'r').catch(() => undefined);
  if (!handle) return ctx.fail(404, 'not_found', 'the artifact file is missing');
  const { size } = await handle.stat();
  res.writeHead(200, {
    'content-type': opened.row.mediaType,
    'content-length': size,
    'content-disposition': attachmentDisposition(opened.row.fileName),
    'x-content-type-options': 'nosniff',
    // FILE-06: HTML (or SVG) opened on its own runs with scripts off and a unique origin.
    'content-security-policy': "sandbox; default-src 'none'",
    'cache-control': 'no-store',
  });
  await new Promise<void>((resolve) => {
    const stream = handle.createReadStream();
    stream.on('error', () => {
      res.destroy();
      resolve();
    });
    stream.on('end', resolve);
    stream.pipe(res);
  });
}
