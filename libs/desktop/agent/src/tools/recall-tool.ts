// recall: vault retrieval through an injected port (the vault/retrieval libs provide it when present).
// What comes back is external data (SEC-002/005).
import { z } from 'zod';
import type { Tool, ToolSource } from '../ports/tool.port';

export interface RecallHit {
  citation: string;
  title: string;
  text: string;
  /** ARCH-18: the stored asset and revision the passage comes from (recorded per request). */
  assetId?: string;
  revisionId?: string;
}

function sourcesOf(hits: readonly RecallHit[]): ToolSource[] {
  const seen = new Map<string, ToolSource>();
  for (const h of hits)
    if (h.assetId !== undefined && h.revisionId !== undefined)
      seen.set(`${h.assetId}@${h.revisionId}`, { assetId: h.assetId, revisionId: h.revisionId });
  return [...seen.values()];
}

export interface RecallPort {
  retrieve(query: string, limit: number): Promise<RecallHit[]>;
}

const recallArgs = z.strictObject({
  query: z.string().min(1).max(1000).describe('What to look up in the vault.'),
  limit: z.number().int().min(1).max(20).default(5),
});

export function createRecallTool(port: RecallPort): Tool<z.infer<typeof recallArgs>> {
  return {
    name: 'recall',
    description: "Look up passages in the user's vault; each passage carries a citation.",
    schema: recallArgs,
    readOnly: true,
    resident: true,
    approval: () => null,
    async execute(args) {
      let hits: RecallHit[];
      try {
        hits = await port.retrieve(args.query, args.limit);
      } catch (error) {
        return { content: `The vault could not be searched: ${(error as Error).message}`, isError: true };
      }
      if (hits.length === 0)
        return { content: `Nothing in the vault matched "${args.query}".`, external: true };
      const shown = hits.slice(0, args.limit);
      const parts = shown.map((h, i) => `[${i + 1}] ${h.title} (${h.citation})\n${h.text}`);
      return { content: parts.join('\n\n'), external: true, sources: sourcesOf(shown) };
    },
  };
}
