// Background jobs over the local API (WORK-07..13):
//   POST /api/jobs              {conversationId, message, workspace, provider?, model?, tier?, attended?, allow?}
//                               → 201 {job}   (queued or running; WORK-09: at most 3 run at once)
//   GET  /api/jobs[?conversationId=ID]      → 200 {jobs}
//   GET  /api/jobs/:id                      → 200 {job}; 404 not_found
//   POST /api/jobs/:id/cancel               → 200 {jobId, result: cancelled|stopping|already_finished}
// Job cards also stream on the WebSocket of the originating conversation as `{type: 'job', job}`.
import { ACTION_KINDS, type JobService } from '@arslan/desktop-agent';
import { z } from 'zod';
import { describeIssues } from './local-api.schemas';

const id = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'must be an id');

export const createJobBodySchema = z.strictObject({
  /** The conversation the job reports to and takes its approvals from (WORK-08/13). */
  conversationId: id,
  message: z.string().min(1).max(100_000),
  /** Absolute path of an existing folder. */
  workspace: z.string().min(1).max(4096),
  provider: z.string().min(1).max(100).optional(),
  model: z.string().min(1).max(200).optional(),
  tier: z.enum(['light', 'standard', 'deep']).optional(),
  /** false: nobody will answer the job's cards; steps that need one are refused (APPR-017). */
  attended: z.boolean().optional(),
  allow: z.array(z.enum(ACTION_KINDS)).max(ACTION_KINDS.length).optional(),
});

export const cancelJobBodySchema = z.strictObject({});

export type JobsApiErrorCode = 'jobs_unavailable';

export interface JobsRouteContext {
  jobs: JobService | undefined;
  method: string;
  /** The path segment after /api/jobs, and the one after it. */
  jobId: string | undefined;
  action: string | undefined;
  query: URLSearchParams;
  readBody: () => Promise<unknown>;
  /** Resolves an existing absolute folder to its real path; throws `bad_workspace` otherwise. */
  realWorkspace: (path: string) => string;
  defaults: { provider: string; model: string; tier?: 'light' | 'standard' | 'deep' } | undefined;
  /** Throws the server's API error (never returns). */
  fail: (
    status: number,
    code: JobsApiErrorCode | 'not_found' | 'method_not_allowed' | 'invalid_body' | 'no_model',
    message: string,
  ) => never;
}

export async function routeJobs(ctx: JobsRouteContext): Promise<{ status: number; body: unknown }> {
  const { jobs, method, jobId, action, fail } = ctx;
  if (!jobs) return fail(501, 'jobs_unavailable', 'background jobs are not available in this daemon');
  if (jobId === undefined) {
    if (method === 'GET') {
      const conversationId = ctx.query.get('conversationId');
      if (conversationId !== null && !id.safeParse(conversationId).success)
        return fail(400, 'invalid_body', 'conversationId: must be an id');
      return { status: 200, body: { jobs: jobs.list(conversationId ?? undefined) } };
    }
    if (method !== 'POST') return fail(405, 'method_not_allowed', 'use GET or POST');
    const parsed = createJobBodySchema.safeParse(await ctx.readBody());
    if (!parsed.success) return fail(400, 'invalid_body', describeIssues(parsed.error));
    const body = parsed.data;
    const provider = body.provider ?? ctx.defaults?.provider;
    const model = body.model ?? (body.provider === undefined ? ctx.defaults?.model : undefined);
    if (provider === undefined || model === undefined)
      return fail(400, 'no_model', 'no provider and model given and none configured ([agent])');
    const tier = body.tier ?? ctx.defaults?.tier;
    const job = jobs.create({
      originConversationId: body.conversationId,
      message: body.message,
      workspace: ctx.realWorkspace(body.workspace),
      provider,
      model,
      attended: body.attended ?? true,
      ...(tier !== undefined ? { tier } : {}),
      ...(body.allow !== undefined ? { allow: body.allow } : {}),
    });
    return { status: 201, body: { job } };
  }
  if (action === undefined) {
    if (method !== 'GET') return fail(405, 'method_not_allowed', 'use GET');
    const job = jobs.get(jobId);
    if (!job) return fail(404, 'not_found', 'no such job');
    return { status: 200, body: { job } };
  }
  if (action !== 'cancel') return fail(404, 'not_found', 'no such resource');
  if (method !== 'POST') return fail(405, 'method_not_allowed', 'use POST');
  const result = jobs.cancel(jobId);
  if (result === 'not_found') return fail(404, 'not_found', 'no such job');
  return { status: 200, body: { jobId, result } };
}
