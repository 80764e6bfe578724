// WORK-11: `start_background_job` — the model may explicitly choose to hand a whole long task to a
// background job; nothing ever moves a reply there by itself. The job inherits the conversation
// (approvals, cards), the model and the working folder of the run that starts it.
import { z } from 'zod';
import type { JobCard, CreateJobInput } from '../jobs/job-service';
import type { ParentRunView } from '../loop/run-service';
import type { Tool, ToolResult } from '../ports/tool.port';

export const START_BACKGROUND_JOB = 'start_background_job';

const jobArgs = z.strictObject({
  task: z
    .string()
    .trim()
    .min(1)
    .max(8_000)
    .describe('The whole task for the job, self-contained (the job does not see this conversation).'),
});

export interface BackgroundJobPort {
  parentOf(runId: string): ParentRunView | undefined;
  /** True for a worker's run (WORK-02: workers start nothing). */
  isWorker(runId: string): boolean;
  create(input: CreateJobInput): JobCard;
}

export function createBackgroundJobTool(port: BackgroundJobPort): Tool<z.infer<typeof jobArgs>> {
  return {
    name: START_BACKGROUND_JOB,
    description:
      'Start a long, self-contained task as a background job that keeps running when the chat moves on. ' +
      'Use only when the user asked for background work or clearly benefits from it; its progress appears ' +
      'as a job card in this conversation.',
    schema: jobArgs,
    readOnly: false,
    resident: false,
    approval: () => null,
    async execute(args, ctx): Promise<ToolResult> {
      const parent = port.parentOf(ctx.runId);
      if (!parent || port.isWorker(ctx.runId))
        return { content: 'start_background_job refused: not available in this run', isError: true };
      if (parent.approvalConversationId !== undefined)
        return {
          content: 'start_background_job refused: a background job cannot start another',
          isError: true,
        };
      const job = port.create({
        originConversationId: parent.conversationId,
        message: args.task,
        workspace: parent.workspace,
        provider: parent.provider,
        model: parent.model,
        tier: parent.tier,
        attended: parent.mode === 'interactive',
        allow: parent.mode === 'headless' ? parent.allow : [],
      });
      const where = job.status === 'queued' ? `queued (position ${job.queuePosition ?? '?'})` : job.status;
      return {
        content: `Background job ${job.id} started: ${where}. Its card in this conversation shows progress.`,
      };
    },
  };
}
