// KNOW-06 / CTX-09: with a cloud model, document retrieval needs the conversation's own
// cloud-memory permission — a trusted setting read from the database on every request, which
// no user, web or model text can change. A model served on this machine or network is not a
// cloud model. Gated tools are neither offered nor callable (LOOP-04 re-check) while it is off.
import { isLocalEndpoint } from '../context/context-window';
import type { ConversationSettings } from '../context/reference-block';
import type { ModelProvider, Tool } from '../ports';
import { type ToolCatalog, USE_TOOL_NAME } from './tool-catalog';

/** Tools that bring the user's stored documents or memory into a request. */
export const CLOUD_GATED_TOOLS: ReadonlySet<string> = new Set(['recall']);

/** True when requests go to a cloud endpoint; an endpoint that does not say counts as cloud. */
export function isCloudProvider(provider: Pick<ModelProvider, 'origin'>): boolean {
  return provider.origin === undefined || !isLocalEndpoint(provider.origin);
}

function innerName(args: unknown): unknown {
  return args !== null && typeof args === 'object' ? (args as { name?: unknown }).name : undefined;
}

export function memoryGatedCatalog(
  inner: ToolCatalog,
  settings: () => ConversationSettings,
  provider: Pick<ModelProvider, 'origin'>,
): ToolCatalog {
  if (!isCloudProvider(provider)) return inner;
  const blocked = (name: unknown): boolean =>
    typeof name === 'string' && CLOUD_GATED_TOOLS.has(name) && !settings().cloudMemory;
  // use_tool executed directly (unresolved) must not reach a gated tool either. One wrapper per
  // inner tool keeps its identity stable for the loop's availability re-check.
  const guarded = new WeakMap<Tool, Tool>();
  const guardUseTool = (tool: Tool): Tool => {
    let wrapper = guarded.get(tool);
    if (!wrapper) {
      wrapper = {
        ...tool,
        approval: (args, ctx) => (blocked(innerName(args)) ? null : tool.approval(args, ctx)),
        execute: async (args, ctx) =>
          blocked(innerName(args))
            ? {
                content: `tool ${String(innerName(args))} is not available in this conversation`,
                isError: true,
              }
            : tool.execute(args, ctx),
      };
      guarded.set(tool, wrapper);
    }
    return wrapper;
  };
  const gated: ToolCatalog = {
    offered: () => inner.offered().filter((tool) => !blocked(tool.name)),
    get: (name) => {
      if (blocked(name)) return undefined;
      const tool = inner.get(name);
      return tool && name === USE_TOOL_NAME ? guardUseTool(tool) : tool;
    },
  };
  if (inner.spec) gated.spec = inner.spec.bind(inner);
  if (inner.resolve) {
    const resolve = inner.resolve.bind(inner);
    gated.resolve = (name, rawArgs) => {
      const r = resolve(name, rawArgs);
      return r.ok && blocked(r.tool.name)
        ? { ok: false, error: `tool ${r.tool.name} is not available in this conversation` }
        : r;
    };
  }
  return gated;
}
