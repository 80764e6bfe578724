// Model choice routes of the local API (PROV-04/05):
//   GET /api/models                       → the configured models: names, provider kinds, model ids, roles
//   GET /api/conversations/:id/model      → the conversation's chosen model (null: the main role's)
//   PUT /api/conversations/:id/model      → choose one ({"model": "<name>" | null}); the next run uses it
// Listings never carry keys, env var names or URLs. The choice is a trusted setting: only this
// surface sets it, never text in a conversation.
import {
  type ConversationModels,
  UnknownModelError,
  conversationModelBodySchema,
} from '@arslan/desktop-agent';

export type ModelsApiErrorCode = 'method_not_allowed' | 'invalid_query' | 'invalid_body' | 'unknown_model';

export interface ModelsRouteContext {
  /** Absent when the daemon has no `[agent]` config: nothing to list or choose. */
  models: ConversationModels | undefined;
  method: string;
  query: URLSearchParams;
  readBody: () => Promise<unknown>;
  /** Throws the server's API error (never returns). */
  fail: (status: number, code: ModelsApiErrorCode, message: string) => never;
}

function noQuery(ctx: ModelsRouteContext): void {
  const names = [...new Set(ctx.query.keys())];
  if (names.length > 0)
    ctx.fail(400, 'invalid_query', `unknown query parameter ${names.slice(0, 5).join(', ')}`);
}

export function routeModels(ctx: ModelsRouteContext): { status: number; body: unknown } {
  if (ctx.method !== 'GET') return ctx.fail(405, 'method_not_allowed', 'use GET');
  noQuery(ctx);
  return { status: 200, body: ctx.models?.list() ?? { models: [], roles: {} } };
}

export async function routeConversationModel(
  ctx: ModelsRouteContext,
  conversationId: string,
): Promise<{ status: number; body: unknown }> {
  noQuery(ctx);
  if (ctx.method !== 'GET' && ctx.method !== 'PUT')
    return ctx.fail(405, 'method_not_allowed', 'use GET or PUT');
  const models = ctx.models;
  if (!models) return ctx.fail(400, 'unknown_model', 'no models are configured ([agent])');
  if (ctx.method === 'GET') return { status: 200, body: models.get(conversationId) };
  const parsed = conversationModelBodySchema.safeParse(await ctx.readBody());
  if (!parsed.success) return ctx.fail(400, 'invalid_body', 'expected {"model": "<configured name>" | null}');
  try {
    return { status: 200, body: models.set(conversationId, parsed.data.model) };
  } catch (error) {
    if (error instanceof UnknownModelError)
      return ctx.fail(400, 'unknown_model', 'no model of that name is configured');
    throw error;
  }
}
