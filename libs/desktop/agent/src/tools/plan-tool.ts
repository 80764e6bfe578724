// plan: records or updates the plan steps of a run. Read-only as far as the world is concerned (no card).
import { z } from 'zod';
import type { Tool } from '../ports/tool.port';

export const PLAN_STATUSES = ['pending', 'in_progress', 'done', 'skipped'] as const;

export interface PlanStep {
  title: string;
  status: (typeof PLAN_STATUSES)[number];
}

/** Where plans live (per run). The default keeps them in memory; the loop may persist them. */
export interface PlanStore {
  get(runId: string): PlanStep[] | undefined;
  set(runId: string, steps: PlanStep[]): void;
}

export function createMemoryPlanStore(): PlanStore {
  const plans = new Map<string, PlanStep[]>();
  return { get: (runId) => plans.get(runId), set: (runId, steps) => void plans.set(runId, steps) };
}

const planArgs = z.strictObject({
  steps: z
    .array(
      z.strictObject({
        title: z.string().min(1).max(300),
        status: z.enum(PLAN_STATUSES).default('pending'),
      }),
    )
    .min(1)
    .max(50)
    .describe('The whole plan, in order; send it again with updated statuses as work progresses.'),
});

const MARK: Record<PlanStep['status'], string> = {
  pending: '[ ]',
  in_progress: '[~]',
  done: '[x]',
  skipped: '[-]',
};

export function createPlanTool(store: PlanStore = createMemoryPlanStore()): Tool<z.infer<typeof planArgs>> {
  return {
    name: 'plan',
    description: 'Record or update the plan for this task as a list of steps with statuses.',
    schema: planArgs,
    readOnly: true,
    resident: true,
    approval: () => null,
    async execute(args, ctx) {
      const previous = store.get(ctx.runId);
      store.set(ctx.runId, args.steps);
      const lines = args.steps.map((s, i) => `${MARK[s.status]} ${i + 1}. ${s.title}`);
      return { content: `${previous ? 'Plan updated' : 'Plan recorded'}:\n${lines.join('\n')}` };
    },
  };
}
