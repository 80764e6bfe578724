// WORK-01..06: `delegate_work` — offered to the model like any tool; whether to split work is the
// model's choice (WORK-06). Worker outputs come back as this call's result, matched to subtasks,
// as external data (they carry web content: SEC-002/005); the parent synthesizes them (WORK-03).
import { z } from 'zod';
import type { Tool, ToolResult } from '../ports/tool.port';
import { MAX_WORKERS_PER_CALL, type WorkerOutcome, WorkerPoolError } from '../workers/worker-pool';

export const DELEGATE_WORK = 'delegate_work';

const delegateArgs = z.strictObject({
  subtasks: z
    .array(z.string().trim().min(1).max(2_000))
    .min(1)
    .max(MAX_WORKERS_PER_CALL)
    .describe('Independent research questions, one per worker (at most 4).'),
});

export interface DelegatePort {
  delegate(parentRunId: string, subtasks: readonly string[], signal: AbortSignal): Promise<WorkerOutcome[]>;
}

function render(outcomes: readonly WorkerOutcome[]): string {
  return outcomes
    .map((o, i) => {
      const body = o.output.trim() || '(no output)';
      return `## Subtask ${i + 1} [${o.status}]\n${o.subtask}\n\n### Worker output\n${body}`;
    })
    .join('\n\n');
}

export function createDelegateWorkTool(pool: DelegatePort): Tool<z.infer<typeof delegateArgs>> {
  return {
    name: DELEGATE_WORK,
    description:
      'Split independent web research into up to 4 subtasks handled by temporary workers (2 at a time) ' +
      'that can only search and read the web. Each worker costs extra model calls from this task budget; ' +
      'use only when the parts are truly independent. Cross-check and combine their outputs yourself.',
    schema: delegateArgs,
    readOnly: false, // runs alone, so one call's 2-worker limit is the run's limit
    resident: true,
    approval: () => null,
    async execute(args, ctx): Promise<ToolResult> {
      try {
        const outcomes = await pool.delegate(ctx.runId, args.subtasks, ctx.signal);
        return { content: render(outcomes), external: true };
      } catch (error) {
        if (error instanceof WorkerPoolError)
          return { content: `delegate_work refused: ${error.message}`, isError: true };
        throw error;
      }
    },
  };
}
