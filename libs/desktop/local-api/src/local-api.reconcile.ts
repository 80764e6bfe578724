// Operations of unknown effect over the local API (CKPT-06/09):
//   GET  /api/conversations/:id/needs-check → side-effect operations sent but never answered
//   POST /api/conversations/:id/reconcile {runId, callId, outcome} → the user settles one; until
//        then the loop refuses to send the identical operation again.
import { ReconcileError, type RunService } from '@arslan/desktop-agent';
import { z } from 'zod';
import { describeIssues } from './local-api.schemas';

export const RECONCILE_ACTIONS = ['needs-check', 'reconcile'] as const;
export type ReconcileAction = (typeof RECONCILE_ACTIONS)[number];

const idPattern = /^[A-Za-z0-9_.:-]{1,200}$/;

export const reconcileBodySchema = z.strictObject({
  runId: z.string().regex(idPattern),
  callId: z.string().regex(idPattern),
  /** What the user found: the operation took effect, or it did not. */
  outcome: z.enum(['confirmed', 'failed']),
});

export interface ReconcileRouteContext {
  service: RunService;
  conversationId: string;
  action: ReconcileAction;
  method: string;
  readBody: () => Promise<unknown>;
  fail: (status: number, code: 'not_found' | 'method_not_allowed' | 'invalid_body', message: string) => never;
}

export function isReconcileAction(action: string | undefined): action is ReconcileAction {
  return (RECONCILE_ACTIONS as readonly string[]).includes(action ?? '');
}

export async function routeReconcile(ctx: ReconcileRouteContext): Promise<{ status: number; body: unknown }> {
  const { service, conversationId, fail } = ctx;
  const pending = service.unknownEffects.needsCheck(conversationId);
  if (ctx.action === 'needs-check') {
    if (ctx.method !== 'GET') return fail(405, 'method_not_allowed', 'use GET');
    return { status: 200, body: { conversationId, actions: pending } };
  }
  if (ctx.method !== 'POST') return fail(405, 'method_not_allowed', 'use POST');
  const parsed = reconcileBodySchema.safeParse(await ctx.readBody());
  if (!parsed.success) return fail(400, 'invalid_body', describeIssues(parsed.error));
  const { runId, callId, outcome } = parsed.data;
  // Only an operation of this conversation: a caller cannot settle another conversation's action.
  if (!pending.some((a) => a.runId === runId && a.callId === callId))
    return fail(404, 'not_found', `no operation of unknown effect for call ${callId} in this conversation`);
  try {
    service.unknownEffects.reconcile(runId, callId, outcome);
  } catch (error) {
    if (error instanceof ReconcileError) return fail(404, 'not_found', error.message);
    throw error;
  }
  return { status: 200, body: { conversationId, runId, callId, outcome } };
}
