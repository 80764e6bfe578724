// "Undo this turn" over the local API (CKPT-12..16):
//   GET  /api/conversations/:id/checkpoints  → the turns with "Saved" / "Not saved" and what was not saved
//   POST /api/conversations/:id/undo {runId} → restores the folder, removes the turn and later turns
import { type RunService, UndoError, type UndoErrorCode } from '@arslan/desktop-agent';
import { z } from 'zod';
import { describeIssues } from './local-api.schemas';

export const UNDO_ACTIONS = ['checkpoints', 'undo'] as const;
export type UndoAction = (typeof UNDO_ACTIONS)[number];

export const undoTurnBodySchema = z.strictObject({
  /** The turn (run) to undo; every later turn of the conversation goes with it. */
  runId: z.string().regex(/^[A-Za-z0-9_.:-]{1,200}$/),
});

export type UndoApiErrorCode = 'not_found' | 'busy' | 'not_saved' | 'expired' | 'undo_unavailable';

/** How each typed refusal is answered. */
const REFUSALS: Record<UndoErrorCode, { status: number; code: UndoApiErrorCode }> = {
  not_found: { status: 404, code: 'not_found' },
  busy: { status: 409, code: 'busy' },
  not_saved: { status: 409, code: 'not_saved' },
  expired: { status: 410, code: 'expired' },
  unavailable: { status: 501, code: 'undo_unavailable' },
};

export interface UndoRouteContext {
  service: RunService;
  conversationId: string;
  action: UndoAction;
  method: string;
  readBody: () => Promise<unknown>;
  /** Throws the server's API error (never returns). */
  fail: (
    status: number,
    code: UndoApiErrorCode | 'method_not_allowed' | 'invalid_body',
    message: string,
  ) => never;
}

export function isUndoAction(action: string | undefined): action is UndoAction {
  return (UNDO_ACTIONS as readonly string[]).includes(action ?? '');
}

export async function routeUndo(ctx: UndoRouteContext): Promise<{ status: number; body: unknown }> {
  const { service, conversationId, fail } = ctx;
  if (ctx.action === 'checkpoints') {
    if (ctx.method !== 'GET') return fail(405, 'method_not_allowed', 'use GET');
    return { status: 200, body: { conversationId, turns: service.listTurns(conversationId) } };
  }
  if (ctx.method !== 'POST') return fail(405, 'method_not_allowed', 'use POST');
  const parsed = undoTurnBodySchema.safeParse(await ctx.readBody());
  if (!parsed.success) return fail(400, 'invalid_body', describeIssues(parsed.error));
  const { runId } = parsed.data;
  try {
    return { status: 200, body: await service.undoTurn(conversationId, runId) };
  } catch (error) {
    if (!(error instanceof UndoError)) throw error;
    const refusal = REFUSALS[error.code];
    return fail(refusal.status, refusal.code, error.message);
  }
}
