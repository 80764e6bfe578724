// What the loop needs from the tool registry (the tools engineer's registry satisfies this):
// the tools offered this turn, and a lookup for the LOOP-04 availability re-check.
import { z } from 'zod';
import type { JsonSchema, Tool, ToolSpec } from '../ports';

export interface ToolCatalog {
  /** Tools offered to the model this step (TOOL-02/03). */
  offered(): readonly Tool[];
  /** Any tool callable right now (offered, or reachable through use_tool); undefined if not. */
  get(name: string): Tool | undefined;
  /** Optional provider-facing spec (the registry may cache JSON Schemas). */
  spec?(tool: Tool): ToolSpec;
  /**
   * TOOL-05: optional resolution of a call before grouping and gating. For `use_tool` it returns the
   * inner tool and its own validated arguments, so the loop treats the call as that tool's call.
   */
  resolve?(name: string, rawArgs: unknown): ResolvedCall;
}

export type ResolvedCall = { ok: true; tool: Tool; args: unknown } | { ok: false; error: string };

/** TOOL-05: the meta tool that calls an on-demand tool by its real name. */
export const USE_TOOL_NAME = 'use_tool';

/** LOOP-05: names starting `mcp_` belong to MCP servers. */
export function isMcpTool(name: string): boolean {
  return name.startsWith('mcp_');
}

const schemaCache = new WeakMap<object, JsonSchema>();

export function toolSpec(tool: Tool): ToolSpec {
  let schema = schemaCache.get(tool.schema);
  if (!schema) {
    try {
      schema = z.toJSONSchema(tool.schema as z.ZodType, { unrepresentable: 'any' }) as JsonSchema;
    } catch {
      schema = { type: 'object' };
    }
    schemaCache.set(tool.schema, schema);
  }
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: schema,
    source: isMcpTool(tool.name) ? 'mcp' : 'builtin',
  };
}

/** A fixed set of tools, all resident (tests, simple callers). */
export class StaticToolCatalog implements ToolCatalog {
  private readonly byName: Map<string, Tool>;

  constructor(tools: readonly Tool[]) {
    this.byName = new Map(tools.map((t) => [t.name, t]));
  }

  offered(): readonly Tool[] {
    return [...this.byName.values()];
  }

  get(name: string): Tool | undefined {
    return this.byName.get(name);
  }
}
