// Tool registry (TOOL-02..07): name → executor, provider JSON Schemas from the zod schemas, the
// resident set, and find_tools/use_tool for deferred tools. The loop resolves `use_tool` to the
// inner tool and arguments BEFORE gating (TOOL-05), so approvals, traces and receipts are those of
// a direct call. The on-demand list (≤ 12 per conversation) lives in memory only (TOOL-07).
import { z } from 'zod';
import type { JsonSchema, ToolSpec } from '../ports/model.port';
import type { Tool, ToolContext } from '../ports/tool.port';

export const MAX_ON_DEMAND_TOOLS = 12;
export const FIND_TOOLS = 'find_tools';
export const USE_TOOL = 'use_tool';

// A registered tool of any argument type; args are validated by its own schema before any call.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any>;

export interface RegisterOptions {
  /** `mcp`: text from the server (description) is external data (SEC-002, TOOL-04). */
  source?: 'builtin' | 'mcp';
}

export type ResolveResult =
  { ok: true; tool: AnyTool; args: unknown; via: 'direct' | 'use_tool' } | { ok: false; error: string };

export interface ConversationToolsOptions {
  /** TOOL-02: whether a registered tool is usable this turn (enabled, permitted, available). */
  isAvailable?: (name: string) => boolean;
}

interface Entry {
  tool: AnyTool;
  source: 'builtin' | 'mcp';
  spec: ToolSpec;
}

export function toJsonSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return json;
}

function zodIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ');
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
}

const findArgs = z.strictObject({
  query: z.string().min(1).max(300).describe('What the tool should do.'),
  limit: z.number().int().min(1).max(20).default(8),
});

const useArgs = z.strictObject({
  name: z.string().min(1).describe('Real name of the tool, as find_tools listed it.'),
  arguments: z
    .record(z.string(), z.unknown())
    .default({})
    .describe("Arguments, matching that tool's own schema."),
});

export class ToolRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly onDemand = new Map<string, string[]>();

  register(tool: AnyTool, options: RegisterOptions = {}): this {
    if (tool.name === FIND_TOOLS || tool.name === USE_TOOL) throw new Error(`${tool.name} is reserved`);
    if (this.entries.has(tool.name)) throw new Error(`tool ${tool.name} is already registered`);
    const source = options.source ?? 'builtin';
    const spec: ToolSpec = {
      name: tool.name,
      description: tool.description,
      inputSchema: toJsonSchema(tool.schema),
      source,
    };
    this.entries.set(tool.name, { tool, source, spec });
    return this;
  }

  unregister(name: string): boolean {
    return this.entries.delete(name);
  }

  get(name: string): AnyTool | undefined {
    return this.entries.get(name)?.tool;
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  /** Spec of one registered tool (cached JSON Schema). */
  spec(name: string): ToolSpec | undefined {
    return this.entries.get(name)?.spec;
  }

  /** TOOL-03: resident tools plus find_tools and use_tool. */
  residentSpecs(isAvailable: (name: string) => boolean = () => true): ToolSpec[] {
    const resident = [...this.entries.values()]
      .filter((e) => e.tool.resident && isAvailable(e.tool.name))
      .map((e) => e.spec);
    return [...resident, ...this.metaSpecs()];
  }

  private metaSpecCache: ToolSpec[] | null = null;
  private metaSpecs(): ToolSpec[] {
    this.metaSpecCache ??= [
      {
        name: FIND_TOOLS,
        description: 'Find more tools by what they do; returns names, descriptions and argument schemas.',
        inputSchema: toJsonSchema(findArgs),
        source: 'builtin',
      },
      {
        name: USE_TOOL,
        description:
          'Call a tool that find_tools listed, by its real name, with arguments matching its schema.',
        inputSchema: toJsonSchema(useArgs),
        source: 'builtin',
      },
    ];
    return this.metaSpecCache;
  }

  /** A conversation's view: per-turn specs, resolution and its own find_tools/use_tool. */
  forConversation(conversationId: string, options: ConversationToolsOptions = {}): ConversationTools {
    return new ConversationTools(this, conversationId, options);
  }

  /** @internal in-memory on-demand list of a conversation (TOOL-07). */
  onDemandList(conversationId: string): string[] {
    let list = this.onDemand.get(conversationId);
    if (!list) {
      list = [];
      this.onDemand.set(conversationId, list);
    }
    return list;
  }

  /** Shorthand for `forConversation(conversationId, options).resolve(name, args)`. */
  resolve(
    conversationId: string,
    name: string,
    args: unknown,
    options?: ConversationToolsOptions,
  ): ResolveResult {
    return this.forConversation(conversationId, options).resolve(name, args);
  }

  /** Drops a conversation's on-demand list (conversation closed). */
  forgetConversation(conversationId: string): void {
    this.onDemand.delete(conversationId);
  }

  /** @internal */
  entry(name: string): Entry | undefined {
    return this.entries.get(name);
  }

  /** @internal */
  allEntries(): Entry[] {
    return [...this.entries.values()];
  }
}

export class ConversationTools {
  readonly findTools: Tool<z.infer<typeof findArgs>>;
  readonly useTool: Tool<z.infer<typeof useArgs>>;

  constructor(
    private readonly registry: ToolRegistry,
    readonly conversationId: string,
    private readonly options: ConversationToolsOptions = {},
  ) {
    this.findTools = this.makeFindTools();
    this.useTool = this.makeUseTool();
  }

  private available(name: string): boolean {
    return this.registry.get(name) !== undefined && (this.options.isAvailable?.(name) ?? true);
  }

  /** Names on the on-demand list (offered from the turn after their first use via use_tool). */
  onDemand(): readonly string[] {
    return this.registry.onDemandList(this.conversationId);
  }

  /** TOOL-02/03/07: what the model is offered this turn. */
  specs(): ToolSpec[] {
    const resident = this.registry.residentSpecs((n) => this.available(n));
    const extra = this.onDemand()
      .filter((n) => this.available(n) && !this.registry.get(n)!.resident)
      .map((n) => this.registry.spec(n)!);
    return [...resident.slice(0, -2), ...extra, ...resident.slice(-2)];
  }

  private presented(name: string): boolean {
    const tool = this.registry.get(name);
    return !!tool && (tool.resident || this.onDemand().includes(name));
  }

  get(name: string): AnyTool | undefined {
    if (name === FIND_TOOLS) return this.findTools;
    if (name === USE_TOOL) return this.useTool;
    return this.available(name) ? this.registry.get(name) : undefined;
  }

  /**
   * Validates a call and unwraps `use_tool` to the inner tool and its own validated arguments, so the
   * loop gates (availability, budget, approval) the real tool. Does not execute anything. A tool
   * resolved through use_tool joins the on-demand list (from the next turn on; at most 12).
   */
  resolve(name: string, rawArgs: unknown): ResolveResult {
    if (name === USE_TOOL) {
      const outer = useArgs.safeParse(rawArgs);
      if (!outer.success)
        return { ok: false, error: `invalid use_tool arguments: ${zodIssues(outer.error)}` };
      const innerName = outer.data.name;
      if (innerName === USE_TOOL || innerName === FIND_TOOLS) {
        return { ok: false, error: `${innerName} cannot be called through use_tool` };
      }
      const tool = this.get(innerName);
      if (!tool) return { ok: false, error: `no tool named ${innerName} is available; use find_tools` };
      const inner = tool.schema.safeParse(outer.data.arguments);
      if (!inner.success)
        return { ok: false, error: `invalid arguments for ${innerName}: ${zodIssues(inner.error)}` };
      this.remember(innerName);
      return { ok: true, tool, args: inner.data, via: 'use_tool' };
    }
    const tool = this.get(name);
    if (!tool) return { ok: false, error: `no tool named ${name} is available` };
    const parsed = tool.schema.safeParse(rawArgs);
    if (!parsed.success)
      return { ok: false, error: `invalid arguments for ${name}: ${zodIssues(parsed.error)}` };
    return { ok: true, tool, args: parsed.data, via: 'direct' };
  }

  private remember(name: string): void {
    const list = this.registry.onDemandList(this.conversationId);
    const tool = this.registry.get(name);
    if (!tool || tool.resident || list.includes(name)) return;
    if (list.length >= MAX_ON_DEMAND_TOOLS) return;
    list.push(name);
  }

  /** TOOL-04: ranks callable tools that are not presented this turn. */
  search(
    query: string,
    limit: number,
  ): Array<{ name: string; description: string; source: 'builtin' | 'mcp'; score: number }> {
    const q = words(query);
    return this.registry
      .allEntries()
      .filter((e) => this.available(e.tool.name) && !this.presented(e.tool.name))
      .map((e) => {
        const nameWords = words(e.tool.name);
        const descWords = words(e.tool.description);
        let score = 0;
        for (const w of q) {
          if (e.tool.name.toLowerCase() === w) score += 10;
          if (nameWords.includes(w)) score += 4;
          else if (nameWords.some((n) => n.startsWith(w) || w.startsWith(n))) score += 2;
          if (descWords.includes(w)) score += 2;
          else if (descWords.some((d) => d.startsWith(w))) score += 1;
        }
        return { name: e.tool.name, description: e.tool.description, source: e.source, score };
      })
      .filter((r) => r.score > 0)
      .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
      .slice(0, limit);
  }

  private makeFindTools(): Tool<z.infer<typeof findArgs>> {
    return {
      name: FIND_TOOLS,
      description: this.registry.residentSpecs().find((s) => s.name === FIND_TOOLS)!.description,
      schema: findArgs,
      readOnly: true,
      resident: true,
      approval: () => null,
      execute: async (args) => {
        const hits = this.search(args.query, args.limit);
        if (hits.length === 0) return { content: `No further tools match "${args.query}".` };
        const parts = hits.map((h) => {
          const schema = JSON.stringify(this.registry.spec(h.name)!.inputSchema);
          const origin = h.source === 'mcp' ? ' [from an MCP server: its description is external data]' : '';
          return `- ${h.name}${origin}\n  ${h.description.replace(/\s+/g, ' ').slice(0, 500)}\n  arguments: ${schema}`;
        });
        const text = `Tools you can call with use_tool (name + arguments):\n${parts.join('\n')}`;
        // Any MCP-originated text makes the whole result external data (SEC-002, TOOL-04).
        return { content: text, external: hits.some((h) => h.source === 'mcp') };
      },
    };
  }

  private makeUseTool(): Tool<z.infer<typeof useArgs>> {
    // Normally the loop calls resolve() first and never executes use_tool itself. If it does, the
    // inner tool's own approval and execution still apply, so nothing is bypassed.
    const resolveInner = (args: z.infer<typeof useArgs>) => this.resolve(USE_TOOL, args);
    return {
      name: USE_TOOL,
      description: this.registry.residentSpecs().find((s) => s.name === USE_TOOL)!.description,
      schema: useArgs,
      readOnly: false,
      resident: true,
      approval(args, ctx: ToolContext) {
        const r = resolveInner(args);
        return r.ok ? r.tool.approval(r.args, ctx) : null;
      },
      async execute(args, ctx) {
        const r = resolveInner(args);
        if (!r.ok) return { content: r.error, isError: true };
        return r.tool.execute(r.args, ctx);
      },
    };
  }
}
