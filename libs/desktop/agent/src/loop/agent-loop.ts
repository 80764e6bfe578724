// LOOP-01/02: the one agent loop. Each step: build context → model → validate every tool call
// (LOOP-04) → execute those permitted → bind results to call ids (LOOP-09) → continue or deliver.
import { NoProgressDetector } from '../budget/no-progress';
import {
  type ModelRequest,
  type ModelResponse,
  ProviderError,
  type Tool,
  type ToolCallRequest,
  type ToolContext,
  type ToolSource,
  type ToolSpec,
  type TrajectoryItem,
  type TurnState,
  type Usage,
} from '../ports';
import type { ContextReport } from '../context/context-manager';
import type { IncludedItems, IncludedMaterial, ModelRequestOutcome } from '../store/model-request.repository';
import type { RunStatus } from '../store/run.repository';
import type { LoopDeps, LoopInput, RefusedStep, RunResult, StepOutcome, StepRecord } from './loop.types';
import type { NoticeCode, ToolCallState } from './run-events';
import { USE_TOOL_NAME, isMcpTool, toolSpec } from './tool-catalog';
import { describeUnverifiedClaims, findUnverifiedClaims } from './claim-check';

/** LOOP-16: up to 4 consecutive read-class calls run concurrently. */
export const MAX_CONCURRENT_READS = 4;
const WRAP_UP_NOTE =
  'Budget limit reached: do not start new work or widen the scope. Deliver the best answer you can from what you already have, and say what is left undone.';
const BLOCKED_LIMIT = 3;
const STILL_WORKING_MS = 10 * 60_000;

class StoppedError extends Error {
  constructor() {
    super('run stopped');
  }
}

type ModelCall =
  | { kind: 'ok'; response: ModelResponse }
  | { kind: 'broken'; text: string }
  | { kind: 'failed'; message: string }
  | { kind: 'budget' };

/**
 * TOOL-05: a call as the loop handles it. A resolved `use_tool` call carries the inner tool's real
 * name and its validated arguments; its result still goes back to the model under the original
 * call id and name (`wireName`), because providers match results to calls by name.
 */
interface LoopCall extends ToolCallRequest {
  wireName?: string;
  resolved?: { args: unknown };
}

interface Prepared {
  call: LoopCall;
  tool: Tool;
  args: unknown;
  needsAction: boolean;
  summary: string;
  kind: string | null;
}

interface CallResult {
  content: string;
  isError: boolean;
  outcome: StepOutcome;
  sources?: ToolSource[];
}

/** ARCH-18: a tool result in the trajectory, as a request record names it. */
interface MaterialRef {
  callId: string;
  tool: string;
  sources: ToolSource[];
}

/** The transcript the summarizer sends clips each tool result to this many characters. */
const SUMMARY_RESULT_CHARS = 500;

function backoffMs(attempt: number): number {
  return Math.min(8_000, 500 * 2 ** (attempt - 1));
}

export class AgentRun {
  private readonly abort = new AbortController();
  private readonly steering: string[] = [];
  private readonly trajectory: TrajectoryItem[] = [];
  private readonly turn: TurnState = { externalContentRead: false };
  private readonly noProgress = new NoProgressDetector();
  /** LOOP-11 evidence: artifact references and tools that succeeded in this run. */
  private readonly artifacts: string[] = [];
  private readonly succeededTools = new Set<string>();
  private readonly excludedTools = new Set<string>();
  private excludeAllMcp = false;
  private mcpRejections = 0;
  private readonly steps: StepRecord[] = [];
  private readonly refused: RefusedStep[] = [];
  private readonly notices: string[] = [];
  /** Tool results by trajectory position (ARCH-18 request records). */
  private readonly materials = new Map<number, MaterialRef>();
  private costUsd = 0;
  private step = 0;
  private callSeq = 0;
  private finalizing = false;
  private finished: RunResult | undefined;
  private stillWorkingSent = false;

  constructor(
    private readonly deps: LoopDeps,
    private readonly input: LoopInput,
  ) {}

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /**
   * LOOP-18/19: a message sent during the reply joins at the next step. Returns 'next_turn' when the
   * reply is already writing its final answer (the message then runs as the next turn).
   */
  steer(text: string): 'steered' | 'next_turn' {
    this.steering.push(text);
    return this.finalizing ? 'next_turn' : 'steered';
  }

  /** CKPT-08 (a): cancel the in-flight provider request and tools; late results are discarded. */
  stop(): void {
    this.abort.abort();
  }

  async run(): Promise<RunResult> {
    const { deps, input } = this;
    input.budget.start();
    const working = deps.timers.setInterval(() => this.tick(), deps.workingIntervalMs);
    try {
      for (const item of input.history) this.pushTrajectory(item);
      this.pushTrajectory({ role: 'user', text: input.message });
      deps.emit({ type: 'user_message', text: input.message, steered: false });
      this.reportUnknownEffects();
      return await this.loop();
    } catch (error) {
      if (error instanceof StoppedError || this.abort.signal.aborted) return this.finish('stopped', '');
      return this.finish(
        'failed',
        '',
        `internal error: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      deps.timers.clearInterval(working);
      input.budget.stopClock();
    }
  }

  private tick(): void {
    if (this.finished) return;
    const elapsedMs = this.input.budget.elapsedMs();
    this.deps.emit({ type: 'working', elapsedMs });
    if (!this.stillWorkingSent && elapsedMs >= STILL_WORKING_MS) {
      this.stillWorkingSent = true; // BUD-14
      this.notice('still_working', 'Still working on it: this reply has been running for over 10 minutes.');
    }
  }

  private notice(code: NoticeCode, message: string): void {
    this.notices.push(message);
    this.deps.emit({ type: 'notice', code, message });
  }

  private pushTrajectory(item: TrajectoryItem): void {
    this.deps.runs.appendTrajectory(this.input.runId, this.trajectory.length, item);
    this.trajectory.push(item);
  }

  private checkStopped(): void {
    if (this.abort.signal.aborted) throw new StoppedError();
  }

  /** Races work against stop: a stopped run never waits for a late result (CKPT-08). */
  private raceStop<T>(work: Promise<T>): Promise<T> {
    if (this.abort.signal.aborted) return Promise.reject(new StoppedError());
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(new StoppedError());
      this.abort.signal.addEventListener('abort', onAbort, { once: true });
      work.then(
        (value) => {
          this.abort.signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          this.abort.signal.removeEventListener('abort', onAbort);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  private drainSteering(): void {
    while (this.steering.length > 0) {
      const text = this.steering.shift() as string;
      this.pushTrajectory({ role: 'user', text });
      this.deps.emit({ type: 'user_message', text, steered: true });
    }
  }

  private offeredTools(wrapUp: boolean): ToolSpec[] {
    if (wrapUp) return []; // BUD-04: stop widening
    return this.deps.tools
      .offered()
      .filter((t) => !this.isExcluded(t.name))
      .map((t) => this.deps.tools.spec?.(t) ?? toolSpec(t));
  }

  private isExcluded(name: string): boolean {
    return this.excludedTools.has(name) || (this.excludeAllMcp && isMcpTool(name));
  }

  private async loop(): Promise<RunResult> {
    const { deps, input } = this;
    let wrapUpRequests = 0;
    for (;;) {
      this.checkStopped();
      this.drainSteering();
      const verdict = input.budget.check();
      if (verdict.state === 'stop') {
        this.notice('budget_stop', `Stopped: hard budget limit reached (${verdict.measures.join(', ')}).`);
        return this.finish('budget_exceeded', '');
      }
      const wrapUp = verdict.state === 'wrap_up' || this.noProgress.blockedAttempts >= BLOCKED_LIMIT;
      if (wrapUp) {
        wrapUpRequests += 1;
        if (wrapUpRequests === 1) {
          const why =
            verdict.state === 'wrap_up'
              ? `soft budget limit reached (${verdict.measures.join(', ')})`
              : 'repeated calls made no progress';
          this.notice('wrap_up', `Wrapping up: ${why}.`);
        }
        if (wrapUpRequests > 2) {
          this.notice('budget_stop', 'Stopped: the wrap-up did not produce an answer.');
          return this.finish('budget_exceeded', '');
        }
      }
      this.step += 1;
      const step = this.step;
      deps.emit({ type: 'step_started', step, wrapUp });
      const call = await this.callModel(step, wrapUp);
      if (call.kind === 'budget') {
        this.notice('budget_stop', 'Stopped: hard budget limit reached while retrying the model.');
        return this.finish('budget_exceeded', '');
      }
      if (call.kind === 'failed') {
        this.notice('provider_error', call.message);
        return this.finish('failed', '');
      }
      if (call.kind === 'broken') {
        // LOOP-15: keep what the user saw, never restart the reply, say it was interrupted.
        this.notice(
          'stream_interrupted',
          'The reply was interrupted: the model stream broke. Ask to continue.',
        );
        return this.finish('interrupted', call.text);
      }
      const response = call.response;
      this.recordUsage(step, response);
      this.checkStopped();
      if (response.toolCalls.length === 0) {
        this.finalizing = true;
        if (response.stopReason === 'max_tokens')
          this.notice('truncated', 'The answer was cut off by the output limit.');
        this.pushTrajectory({ role: 'assistant', text: response.text, toolCalls: [] });
        this.checkClaims(response.text);
        return this.finish(wrapUp ? 'wrapped_up' : 'succeeded', response.text);
      }
      // LOOP-07: text with tool calls is narration, never the answer.
      if (response.text) deps.emit({ type: 'narration', step, text: response.text });
      this.pushTrajectory({ role: 'assistant', text: response.text, toolCalls: response.toolCalls });
      if (response.stopReason === 'max_tokens') {
        // LOOP-06: a batch cut off by the output limit never runs, not even complete-looking calls.
        this.notice('truncated', 'The model output was cut off; its tool calls were not executed.');
        for (const c of response.toolCalls) {
          this.complete(step, c, this.parseLoose(c), {
            content:
              'Not executed: your response was cut off by the output limit. Send fewer or smaller tool calls.',
            isError: true,
            outcome: 'not_executed',
          });
        }
        continue;
      }
      await this.executeBatch(step, response.toolCalls, wrapUp);
    }
  }

  /**
   * BUD-09/11: a request made for the context (CTX-06 summary) is charged like any other: to the
   * budget the dollar cap checks, and to the run's cost and usage. `null`: it failed without usage.
   */
  chargeSideRequest(usage: Usage | null): void {
    const { budget } = this.input;
    if (!usage) {
      budget.chargeFailedRequest();
      return;
    }
    const cost = budget.chargeResponse(this.input.model, usage);
    this.costUsd += cost;
    this.deps.emit({
      type: 'usage',
      step: this.step,
      usage,
      costUsd: cost,
      total: budget.usage(),
      purpose: 'summary',
    });
  }

  private recordUsage(step: number, response: ModelResponse): void {
    const cost = this.input.budget.chargeResponse(this.input.model, response.usage);
    this.costUsd += cost;
    this.deps.runs.addStep(this.input.runId, step, {
      narration: response.toolCalls.length > 0 ? response.text : '',
      stopReason: response.stopReason,
      inputTokens: response.usage.inputTokens,
      outputTokens: response.usage.outputTokens,
    });
    this.deps.emit({
      type: 'usage',
      step,
      usage: response.usage,
      costUsd: cost,
      total: this.input.budget.usage(),
    });
  }

  /** LOOP-21 / PROV-11: provider errors are handled inside the loop. */
  private async callModel(step: number, wrapUp: boolean): Promise<ModelCall> {
    const { requests } = this.deps;
    const { trajectory, report } = await this.composeTrajectory(wrapUp);
    const record = this.recordRequests(step, report);
    const settle = (outcome: ModelRequestOutcome): void => {
      if (record !== undefined) requests?.setOutcome(record, outcome);
    };
    let result: ModelCall;
    try {
      result = await this.sendModelRequest(step, wrapUp, trajectory, () => {
        if (record !== undefined) requests?.countAttempt(record);
      });
    } catch (error) {
      settle('stopped');
      throw error;
    }
    settle(result.kind === 'ok' ? 'ok' : result.kind === 'broken' ? 'broken' : 'failed');
    return result;
  }

  /** One request, resent on transient errors and rejected tools (`onResend` per resend). */
  private async sendModelRequest(
    step: number,
    wrapUp: boolean,
    trajectory: TrajectoryItem[],
    onResend: () => void,
  ): Promise<ModelCall> {
    const { deps, input } = this;
    let retries = 0;
    for (let attempt = 0; ; attempt += 1) {
      if (attempt > 0) onResend();
      const request: ModelRequest = {
        model: input.model,
        system: wrapUp ? `${input.system}\n\n${WRAP_UP_NOTE}` : input.system,
        trajectory,
        tools: this.offeredTools(wrapUp),
        maxOutputTokens: input.maxOutputTokens,
        ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
      };
      let shown = '';
      try {
        const response = await this.raceStop(
          deps.provider.stream(
            request,
            (event) => {
              if (this.abort.signal.aborted || event.type !== 'text') return;
              shown += event.delta;
              deps.emit({ type: 'text_delta', step, delta: event.delta });
            },
            this.abort.signal,
          ),
        );
        return { kind: 'ok', response };
      } catch (error) {
        if (error instanceof StoppedError || this.abort.signal.aborted) throw new StoppedError();
        if (!(error instanceof ProviderError))
          return { kind: 'failed', message: `Model request failed: ${String(error)}` };
        if (error.kind === 'stream_broken') {
          if (error.details.partial) this.recordUsage(step, { ...error.details.partial, toolCalls: [] });
          else input.budget.chargeFailedRequest();
          return { kind: 'broken', text: shown };
        }
        input.budget.chargeFailedRequest();
        if (error.kind === 'rejected_tool') {
          if (!this.handleRejectedTool(error.details.tool))
            return { kind: 'failed', message: `The provider rejected the tools: ${error.message}` };
          if (input.budget.check().state === 'stop') return { kind: 'budget' };
          continue;
        }
        const retryable =
          error.kind === 'transient' || error.kind === 'timeout' || error.kind === 'bad_response';
        if (!retryable || shown.length > 0)
          return { kind: 'failed', message: `Model request failed (${error.kind}): ${error.message}` };
        retries += 1;
        if (retries > input.maxRetries)
          return {
            kind: 'failed',
            message: `Model request failed after ${input.maxRetries} retries: ${error.message}`,
          };
        if (input.budget.check().state === 'stop') return { kind: 'budget' };
        this.notice(
          'retrying',
          `Model request failed (${error.kind}); retrying (${retries}/${input.maxRetries}).`,
        );
        await this.raceStop(deps.sleep(backoffMs(retries), this.abort.signal));
      }
    }
  }

  /** CTX-01..08: the request's history (summary + recent messages, reference block first). */
  private async composeTrajectory(
    wrapUp: boolean,
  ): Promise<{ trajectory: TrajectoryItem[]; report: ContextReport | null }> {
    const { context } = this.deps;
    if (!context) return { trajectory: [...this.trajectory], report: null };
    const composed = await this.raceStop(
      context.compose({
        trajectory: this.trajectory,
        system: this.input.system,
        toolSchemasJson: JSON.stringify(this.offeredTools(wrapUp)),
        signal: this.abort.signal,
      }),
    );
    return composed;
  }

  /**
   * ARCH-18: records the step's request (and the summarization request composing it made) —
   * endpoint, model and the items carried. Returns the step request's record id.
   */
  private recordRequests(step: number, report: ContextReport | null): number | undefined {
    const { requests, provider } = this.deps;
    if (!requests) return undefined;
    const base = {
      runId: this.input.runId,
      step,
      provider: provider.kind,
      endpointOrigin: provider.origin ?? null,
      model: this.input.model,
    };
    if (report?.summarized) {
      const s = report.summarized;
      requests.add({
        ...base,
        provider: s.writer.provider,
        endpointOrigin: s.writer.origin,
        model: s.writer.model,
        purpose: 'summary',
        included: {
          items: s.items,
          messageIds: s.messageIds,
          summaryId: s.previousSummaryId,
          unsavedSummary: false,
          materials: this.materialsOf(s.items, new Set(), (item) =>
            item.role === 'tool' && item.content.length > SUMMARY_RESULT_CHARS ? 'trimmed' : 'verbatim',
          ),
          masked: [],
        },
        context: null,
        outcome: s.answered ? 'ok' : 'failed',
      });
    }
    return requests.add({
      ...base,
      purpose: 'step',
      included: this.includedIn(report),
      context: report ? contextSummaryOf(report) : null,
    });
  }

  private includedIn(report: ContextReport | null): IncludedItems {
    if (!report) {
      const items = this.trajectory.map((_, index) => index);
      return {
        items,
        messageIds: [],
        summaryId: null,
        unsavedSummary: false,
        materials: this.materialsOf(items, new Set(), () => 'verbatim'),
        masked: [],
      };
    }
    const trimmed = new Set(report.trimmed);
    return {
      items: report.items,
      messageIds: report.messageIds,
      summaryId: report.summaryId,
      unsavedSummary: report.summaryId === null && report.summarySource === 'fallback',
      materials: this.materialsOf(report.items, new Set(report.masked), (_, index) =>
        trimmed.has(index) ? 'trimmed' : 'verbatim',
      ),
      masked: report.masked,
    };
  }

  private materialsOf(
    items: readonly number[],
    masked: ReadonlySet<number>,
    treatment: (item: TrajectoryItem, index: number) => IncludedMaterial['treatment'],
  ): IncludedMaterial[] {
    const out: IncludedMaterial[] = [];
    for (const index of items) {
      const ref = this.materials.get(index);
      const item = this.trajectory[index];
      if (!ref || !item || masked.has(index)) continue;
      out.push({ item: index, ...ref, treatment: treatment(item, index) });
    }
    return out;
  }

  /** PROV-11: exclude the one rejected MCP tool; a second rejection or an unnamed one excludes all MCP tools. */
  private handleRejectedTool(tool: string | undefined): boolean {
    const offered = this.deps.tools.offered().filter((t) => !this.isExcluded(t.name));
    const anyMcp = offered.some((t) => isMcpTool(t.name));
    this.mcpRejections += 1;
    if (tool && offered.some((t) => t.name === tool) && this.mcpRejections === 1) {
      this.excludedTools.add(tool);
      this.notice(
        'tool_excluded',
        `The provider rejected the tool ${tool}; it is left out for the rest of this reply.`,
      );
      return true;
    }
    if (!anyMcp) return false;
    this.excludeAllMcp = true;
    this.notice(
      'tool_excluded',
      'The provider rejected MCP tools; all MCP tools are left out for the rest of this reply.',
    );
    return true;
  }

  private parseLoose(call: ToolCallRequest): unknown {
    try {
      return JSON.parse(call.argumentsJson) as unknown;
    } catch {
      return call.argumentsJson;
    }
  }

  /** LOOP-16/17: consecutive reads in groups of ≤ 4 run concurrently; anything else alone, in order. */
  private async executeBatch(
    step: number,
    requested: readonly ToolCallRequest[],
    wrapUp: boolean,
  ): Promise<void> {
    const calls = requested.map((call) => this.resolveCall(call));
    const groups: LoopCall[][] = [];
    for (const call of calls) {
      const readOnly = this.deps.tools.get(call.name)?.readOnly === true;
      const last = groups.at(-1);
      const lastRead =
        last !== undefined && last.every((c) => this.deps.tools.get(c.name)?.readOnly === true);
      if (readOnly && last && lastRead && last.length < MAX_CONCURRENT_READS) last.push(call);
      else groups.push([call]);
    }
    for (const call of calls)
      this.deps.emit({ type: 'tool_state', callId: call.id, tool: call.name, state: 'requested' });
    let skipRest: 'skipped' | null = null;
    for (const group of groups) {
      if (!skipRest && this.steering.length > 0) skipRest = 'skipped'; // LOOP-18
      if (skipRest) {
        for (const call of group) {
          this.complete(step, call, this.parseLoose(call), {
            content: 'Skipped: the user sent a new message before this call started. Read it first.',
            isError: true,
            outcome: 'skipped',
          });
        }
        continue;
      }
      const prepared: { call: LoopCall; ready?: Prepared }[] = [];
      for (const call of group) {
        this.checkStopped();
        const gated = await this.gate(step, call, wrapUp);
        prepared.push({ call, ...(gated ? { ready: gated } : {}) });
      }
      const runs = prepared.map(({ ready }) => (ready ? this.executeOne(ready) : Promise.resolve(undefined)));
      const results = await this.raceStop(Promise.all(runs));
      // LOOP-09/17: results are appended in call order, each bound to its call id.
      prepared.forEach(({ ready }, i) => {
        const result = results[i];
        if (ready && result) this.complete(step, ready.call, ready.args, result);
      });
    }
  }

  /** TOOL-05: a `use_tool` call the catalog resolves becomes a call of the inner tool; else unchanged. */
  private resolveCall(call: ToolCallRequest): LoopCall {
    const { tools } = this.deps;
    if (call.name !== USE_TOOL_NAME || !tools.resolve) return call;
    let raw: unknown;
    try {
      raw = JSON.parse(call.argumentsJson || '{}') as unknown;
    } catch {
      return call;
    }
    const r = tools.resolve(call.name, raw);
    if (!r.ok) return call;
    return {
      id: call.id,
      name: r.tool.name,
      argumentsJson: JSON.stringify(r.args) ?? '{}',
      wireName: call.name,
      resolved: { args: r.args },
    };
  }

  /** LOOP-04: JSON → schema → availability → budget → no-progress → permission. Returns null when refused. */
  private async gate(step: number, call: LoopCall, wrapUp: boolean): Promise<Prepared | null> {
    const reject = (
      outcome: StepOutcome,
      content: string,
      args: unknown,
      state: ToolCallState = 'rejected',
    ): null => {
      this.complete(step, call, args, { content, isError: true, outcome }, state);
      return null;
    };
    let raw: unknown;
    try {
      raw = call.resolved ? call.resolved.args : (JSON.parse(call.argumentsJson || '{}') as unknown);
    } catch {
      return reject(
        'invalid_arguments',
        'Invalid arguments: not valid JSON. Send the arguments as a JSON object.',
        call.argumentsJson,
      );
    }
    const tool = this.deps.tools.get(call.name);
    if (!tool || this.isExcluded(call.name) || wrapUp) {
      const why = wrapUp
        ? 'tools are not available while wrapping up; deliver your answer'
        : `tool ${call.name} is not available`;
      return reject('unavailable', `Not executed: ${why}.`, raw);
    }
    let args: unknown = raw;
    if (!call.resolved) {
      const parsed = tool.schema.safeParse(raw);
      if (!parsed.success) {
        const issues = parsed.error.issues
          .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
          .join('; ');
        return reject('invalid_arguments', `Invalid arguments for ${tool.name}: ${issues}`, raw);
      }
      args = parsed.data;
    }
    if (this.deps.tools.get(call.name) !== tool)
      return reject('unavailable', `Not executed: tool ${call.name} is no longer available.`, args);
    if (!this.input.budget.allowsToolCall())
      return reject('over_budget', 'Not executed: the tool-call budget is used up.', args);
    if (this.noProgress.isBlocked(tool.name, args)) {
      this.notice(
        'no_progress',
        `Repeated ${tool.name} call with the same arguments keeps failing the same way; not retried.`,
      );
      return reject(
        'no_progress',
        'Not executed: this exact call already failed the same way repeatedly. Try a different approach or deliver what you have.',
        args,
      );
    }
    const ctx = this.toolContext(call.id);
    const need = tool.approval(args, ctx);
    const earlier = tool.readOnly
      ? undefined
      : this.deps.unknownEffects?.blocking(this.input.conversationId, tool.name, need?.summary ?? '');
    if (earlier)
      return reject(
        'unreconciled',
        `Not executed: the same operation (${tool.name}: ${earlier.summary}) was sent earlier and its outcome is unknown. It must be checked and reconciled before it is sent again; ask the user to check it.`,
        args,
      );
    if (need) {
      const { input, deps } = this;
      if (input.mode === 'interactive' && !input.allow.has(need.kind)) {
        deps.emit({
          type: 'tool_state',
          callId: call.id,
          tool: call.name,
          state: 'awaiting_approval',
          detail: need.summary,
        });
      }
      const decision = await this.raceStop(
        deps.gate.decide(need, {
          mode: input.mode,
          allow: input.allow,
          runId: input.runId,
          callId: call.id,
          conversationId: input.approvalConversationId ?? input.conversationId,
          taskId: input.taskId,
          onWaitStart: () => input.budget.pause(),
          onWaitEnd: () => input.budget.resume(),
        }),
      );
      if (!decision.allowed) {
        switch (decision.reason) {
          case 'unattended':
            this.refused.push({ callId: call.id, tool: call.name, kind: need.kind, summary: need.summary });
            deps.runs.addInboxItem({
              runId: input.runId,
              callId: call.id,
              tool: call.name,
              kind: need.kind,
              summary: need.summary,
              reason: 'unattended',
            });
            return reject(
              'refused_unattended',
              `Refused: this step needs "${need.kind}" approval and nobody can answer in this run (unattended). It was listed for the user; do not retry it.`,
              args,
              'refused',
            );
          case 'denied':
            return reject(
              'denied',
              `The user declined this step.${decision.note ? ` User's note: ${decision.note}` : ''}`,
              args,
              'refused',
            );
          case 'expired':
            // APPR-016 / TURN-05: not a refusal.
            return reject(
              'expired',
              'Nobody answered the approval card within 30 minutes. This is not a refusal: the step did not run; continue without it or ask again later.',
              args,
              'refused',
            );
          case 'cancelled':
            throw new StoppedError();
        }
      }
    }
    return {
      call,
      tool,
      args,
      needsAction: !tool.readOnly,
      summary: need?.summary ?? '',
      kind: need?.kind ?? null,
    };
  }

  private toolContext(callId: string): ToolContext {
    return {
      workspace: this.input.workspace,
      dataDir: this.deps.dataDir,
      runId: this.input.runId,
      callId,
      turn: this.turn,
      signal: this.abort.signal,
      remainingMs: this.input.budget.remainingMs(),
      attended: this.input.mode === 'interactive',
      preApproved: this.input.mode === 'headless' ? [...this.input.allow] : [],
      turnModel: {
        provider: this.deps.provider.kind,
        origin: this.deps.provider.origin,
        model: this.input.model,
      },
      ...(this.input.beforeWorkspaceChange
        ? { beforeWorkspaceChange: this.input.beforeWorkspaceChange }
        : {}),
    };
  }

  private checkpoint(phase: 'before_tool' | 'after_tool', callId: string): void {
    // LOOP-08 / CKPT-01: progress and used budget around every tool execution.
    this.deps.runs.checkpoint(this.input.runId, {
      phase,
      callId,
      step: this.step,
      budget: this.input.budget.usage(),
      costUsd: this.costUsd,
    });
  }

  private async executeOne(p: Prepared): Promise<CallResult | undefined> {
    const { deps, input } = this;
    const { call, tool, args } = p;
    input.budget.chargeToolCall();
    if (p.needsAction)
      deps.runs.createAction({
        runId: input.runId,
        taskId: input.taskId,
        callId: call.id,
        tool: tool.name,
        kind: p.kind,
        summary: p.summary,
      });
    this.checkpoint('before_tool', call.id);
    if (p.needsAction) deps.runs.setActionState(input.runId, call.id, 'started');
    deps.emit({ type: 'tool_state', callId: call.id, tool: tool.name, state: 'running' });
    let content: string;
    let isError: boolean;
    let sources: ToolSource[] = [];
    try {
      const result = await tool.execute(args, this.toolContext(call.id));
      // CKPT-08 (b): a result arriving after stop is discarded; the action stays of unknown effect.
      if (this.abort.signal.aborted) return undefined;
      isError = result.isError === true;
      sources = result.sources ?? [];
      if (!isError) {
        this.succeededTools.add(tool.name);
        for (const a of result.artifacts ?? []) this.artifacts.push(a.path);
      }
      const external = result.external === true || deps.isExternalTool(tool.name);
      // SEC-005: the flag is set before the result reaches the model.
      if (external) this.turn.externalContentRead = true;
      const meta = { tool: tool.name, callId: call.id };
      content = external
        ? deps.wrapExternal(result.content, meta)
        : deps.wrapToolOutput(result.content, meta);
      if (p.needsAction) deps.runs.setActionState(input.runId, call.id, isError ? 'failed' : 'confirmed');
      this.noProgress.record(tool.name, args, { content: result.content, isError });
    } catch (error) {
      if (this.abort.signal.aborted) return undefined;
      // SIDE-001/005: a thrown executor proves nothing about the effect.
      if (p.needsAction) deps.runs.setActionState(input.runId, call.id, 'unknown');
      const message = error instanceof Error ? error.message : String(error);
      content = deps.wrapToolOutput(`Tool failed: ${message}`, { tool: tool.name, callId: call.id });
      isError = true;
      this.noProgress.record(tool.name, args, { content: message, isError });
    }
    this.checkpoint('after_tool', call.id);
    return { content, isError, outcome: isError ? 'error' : 'ok', sources };
  }

  /** LOOP-09: every result carries its call id; every call gets exactly one result. */
  private complete(
    step: number,
    call: LoopCall,
    args: unknown,
    result: CallResult,
    state?: ToolCallState,
  ): void {
    this.callSeq += 1;
    this.materials.set(this.trajectory.length, {
      callId: call.id,
      tool: call.name,
      sources: result.sources ?? [],
    });
    this.pushTrajectory({
      role: 'tool',
      callId: call.id,
      name: call.wireName ?? call.name,
      content: result.content,
      isError: result.isError,
    });
    const detail = result.content.length > 500 ? `${result.content.slice(0, 500)}…` : result.content;
    this.steps.push({ step, callId: call.id, tool: call.name, args, outcome: result.outcome, detail });
    this.deps.runs.recordToolCall(this.input.runId, {
      callId: call.id,
      stepIndex: step,
      seq: this.callSeq,
      tool: call.name,
      argsJson: JSON.stringify(args) ?? 'null',
      outcome: result.outcome,
      detail,
    });
    const finalState: ToolCallState =
      state ??
      (result.outcome === 'ok'
        ? 'done'
        : result.outcome === 'skipped'
          ? 'skipped'
          : result.outcome === 'not_executed'
            ? 'not_executed'
            : 'error');
    this.deps.emit({
      type: 'tool_state',
      callId: call.id,
      tool: call.name,
      state: finalState,
      detail: result.outcome,
    });
  }

  /** CKPT-09: side-effect operations interrupted earlier (pure reads are never actions). */
  private reportUnknownEffects(): void {
    const pending = this.deps.unknownEffects?.needsCheck(this.input.conversationId) ?? [];
    if (pending.length === 0) return;
    const list = pending.map((a) => `${a.tool}: ${a.summary || a.callId}`).join('; ');
    this.notice(
      'needs_check',
      `Needs your check: ${pending.length} earlier operation(s) were interrupted and may or may not have happened (${list}).`,
    );
  }

  /** LOOP-11/14: claims without a successful result or artifact get a correction after the answer. */
  private checkClaims(answer: string): void {
    const claims = findUnverifiedClaims(answer, {
      artifacts: this.artifacts,
      succeededTools: this.succeededTools,
      workspace: this.input.workspace,
    });
    if (claims.length > 0) this.notice('unverified_claim', describeUnverifiedClaims(claims));
  }

  private finish(status: Exclude<RunStatus, 'running'>, answer: string, notice?: string): RunResult {
    if (this.finished) return this.finished;
    if (notice) this.notices.push(notice);
    const { deps, input } = this;
    if (status === 'stopped' || status === 'failed') {
      // SIDE-005: cancelling a local wait proves nothing remote.
      for (const action of deps.runs.listActions({ runId: input.runId })) {
        if (action.state === 'started') deps.runs.setActionState(input.runId, action.callId, 'unknown');
        if (action.state === 'preparing') deps.runs.setActionState(input.runId, action.callId, 'cancelled');
      }
    }
    input.budget.stopClock();
    this.finished = {
      runId: input.runId,
      conversationId: input.conversationId,
      taskId: input.taskId,
      status,
      answer,
      notices: [...this.notices],
      steps: [...this.steps],
      refused: [...this.refused],
      usage: input.budget.usage(),
      costUsd: this.costUsd,
      followUps: [...this.steering],
    };
    return this.finished;
  }
}

/** ARCH-18: the report's budgets and counts (the carried ids are stored as `included`). */
function contextSummaryOf(report: ContextReport): Record<string, unknown> {
  const {
    items: _items,
    masked: _masked,
    trimmed: _trimmed,
    messageIds: _messageIds,
    summaryId: _summaryId,
    summarized: _summarized,
    ...rest
  } = report;
  return rest;
}
