// Data-flow and trusted-settings routes of the local API:
//   GET /api/runs/:id/requests              → ARCH-18: each model request's endpoint and carried items
//   GET /api/conversations/:id/settings     → CTX-09: the conversation's trusted settings
//   PUT /api/conversations/:id/settings     → CTX-09 / KNOW-06: change them (strict body)
// Read routes take no query parameters: an unknown one is refused, never ignored.
import { ConversationSettingsError, type RunService } from '@arslan/desktop-agent';

export type DataFlowApiErrorCode = 'not_found' | 'method_not_allowed' | 'invalid_query' | 'invalid_body';

export interface DataFlowRouteContext {
  service: RunService;
  method: string;
  query: URLSearchParams;
  readBody: () => Promise<unknown>;
  /** Throws the server's API error (never returns). */
  fail: (status: number, code: DataFlowApiErrorCode, message: string) => never;
}

function noQuery(ctx: DataFlowRouteContext): void {
  const names = [...new Set(ctx.query.keys())];
  if (names.length > 0)
    ctx.fail(400, 'invalid_query', `unknown query parameter ${names.slice(0, 5).join(', ')}`);
}

export function routeRunRequests(
  ctx: DataFlowRouteContext,
  runId: string,
): { status: number; body: unknown } {
  if (ctx.method !== 'GET') return ctx.fail(405, 'method_not_allowed', 'use GET');
  noQuery(ctx);
  const requests = ctx.service.listRequests(runId);
  if (!requests) return ctx.fail(404, 'not_found', 'no such run');
  return { status: 200, body: { runId, requests } };
}

export async function routeConversationSettings(
  ctx: DataFlowRouteContext,
  conversationId: string,
): Promise<{ status: number; body: unknown }> {
  noQuery(ctx);
  if (ctx.method === 'GET')
    return {
      status: 200,
      body: { conversationId, settings: ctx.service.getConversationSettings(conversationId) },
    };
  if (ctx.method !== 'PUT') return ctx.fail(405, 'method_not_allowed', 'use GET or PUT');
  const body = await ctx.readBody();
  try {
    const settings = ctx.service.updateConversationSettings(conversationId, body);
    return { status: 200, body: { conversationId, settings } };
  } catch (error) {
    if (error instanceof ConversationSettingsError) return ctx.fail(400, 'invalid_body', error.message);
    throw error;
  }
}
