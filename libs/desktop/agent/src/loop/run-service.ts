// The facade the daemon's HTTP/WebSocket API and the CLI call: start a run, steer it, answer
// cards, stop it, and reconnect to its event stream without gaps (CKPT-04).
import { randomUUID } from 'node:crypto';
import { ApprovalGate } from '../approvals/approval-gate';
import { ApprovalQueue, type AnswerResult, type QueueTimers } from '../approvals/approval-queue';
import { ApprovalRepository } from '../approvals/approval.repository';
import { Budget } from '../budget/budget';
import type { TurnCheckpoints, TurnView, UndoResult } from '../checkpoints/turn-checkpoints';
import { UndoError } from '../checkpoints/undo.errors';
import { ContextManager } from '../context/context-manager';
import { type ContextWindowInfo, describeContextWindow } from '../context/context-window';
import type { BudgetLimits, BudgetTier, PriceTable } from '../budget/tiers';
import type { ActionKind, Card, CardAnswer, ModelProvider, TrajectoryItem, Usage } from '../ports';
import type { AgentDb } from '../store/agent-db';
import { ContextRepository } from '../store/context.repository';
import type { ConversationSettings } from '../context/reference-block';
import { ModelRequestRepository, type ModelRequestRow } from '../store/model-request.repository';
import { RunRepository, type RunMode } from '../store/run.repository';
import { TaskRepository } from '../tasks/task.repository';
import { TaskError, type AttemptGuard } from '../tasks/task.types';
import { UnknownEffects } from '../tasks/unknown-effect';
import { AgentRun } from './agent-loop';
import {
  type ContentWrapper,
  type LoopTimers,
  type RunResult,
  type Sleep,
  realLoopTimers,
  realSleep,
} from './loop.types';
import type { RunEvent, RunEventBody } from './run-events';
import { RunRegistry, type RunListener, type RunSnapshot } from './run-registry';
import type { ToolCatalog } from './tool-catalog';
import { memoryGatedCatalog } from './memory-gate';

export interface StartRunInput {
  conversationId?: string;
  message: string;
  /** Absolute, real path of the working folder. */
  workspace: string;
  /** A provider instance, or a name resolved through `RunServiceDeps.resolveProvider`. */
  provider: ModelProvider | string;
  model: string;
  tier?: BudgetTier;
  /** false: headless (`arslan run`); nobody can answer a card (APPR-017). */
  attended: boolean;
  /** A scheduled run: unattended, and `allow` is ignored (APPR-017). */
  scheduled?: boolean;
  /** Kinds pre-approved for this run (`arslan run --allow KINDS`). */
  allow?: readonly ActionKind[];
  /**
   * PROV-13: the model's window. Default: `describeContextWindow(model, provider.origin)` — the
   * model table, else 8,192 for an endpoint on this machine or network, else 32,000 (CTX-02).
   */
  contextWindow?: ContextWindowInfo;
  /** WORK-13: a background job asks with (and shows cards in) its originating conversation. */
  approvalConversationId?: string;
}

/** WORK-01..13: what a live run's workers and background jobs inherit from it. */
export interface ParentRunView {
  runId: string;
  conversationId: string;
  taskId: string;
  provider: ModelProvider;
  model: string;
  workspace: string;
  mode: RunMode;
  tier: BudgetTier;
  allow: readonly ActionKind[];
  budget: Budget;
  /** Set when the run is a background job's run (its originating conversation). */
  approvalConversationId: string | undefined;
}

/** WORK-02/04: a nested run (a worker): its own tools and prompt, charged to a given budget. */
export interface NestedRunSpec {
  message: string;
  system: string;
  tools: ToolCatalog;
  budget: Budget;
  model: string;
  provider: ModelProvider;
  workspace: string;
}

export interface NestedRun {
  runId: string;
  stop(): void;
  result: Promise<RunResult>;
}

export interface StartedRun {
  runId: string;
  conversationId: string;
  taskId: string;
  result: Promise<RunResult>;
}

export type SendMessageResult =
  /** Joined the running reply at its next step (LOOP-18). */
  | { delivered: 'steered'; runId: string }
  /** TURN-03 / APPR-008: answered the waiting card "No" with the message as note, then steered. */
  | { delivered: 'answered_card'; runId: string; callId: string }
  /** LOOP-19: the reply was writing its final answer; the message runs as the next turn. */
  | { delivered: 'next_turn'; runId: string }
  /** No live run: a new run was started with the conversation's last settings. */
  | { delivered: 'started'; runId: string; result: Promise<RunResult> }
  | { delivered: 'no_run' };

export type SnapshotTarget = { runId: string } | { conversationId: string };

export interface RunServiceDeps {
  db: AgentDb;
  /** The tools usable by a run in this workspace (the registry). */
  tools: (ctx: { workspace: string; conversationId: string; mode: RunMode }) => ToolCatalog;
  resolveProvider?: (name: string) => ModelProvider;
  /** PROV-04: the conversation's chosen model, overriding the run's own (undefined: none chosen). */
  conversationModel?: (conversationId: string) => { provider: ModelProvider; model: string } | undefined;
  /** PROV-05: the summary role's model; rolling summaries go to it instead of the run's model. */
  summaryModel?: () => { provider: ModelProvider; model: string } | undefined;
  wrapExternal: ContentWrapper;
  wrapToolOutput: ContentWrapper;
  dataDir: string;
  system?: string;
  prices?: PriceTable;
  /** Per-task dollar cap (BUD-11); default $2, null = off. */
  dollarCap?: number | null;
  /** Overrides of the tier's soft values (tests, settings). */
  softLimits?: Partial<BudgetLimits>;
  maxOutputTokens?: number;
  /** TURN-07: the app's UI language (BCP 47), for messages with no words. Default "en". */
  uiLanguage?: string;
  /** Sent with every model request when set; a provider that rejects it drops it (PROV-09). */
  temperature?: number;
  maxRetries?: number;
  now?: () => number;
  timers?: LoopTimers & QueueTimers;
  sleep?: Sleep;
  workingIntervalMs?: number;
  cardExpiryMs?: number;
  isExternalTool?: (name: string) => boolean;
  newId?: () => string;
  /** CKPT-11..17: undo-this-turn checkpoints of the working folder (off when absent). */
  checkpoints?: TurnCheckpoints;
}

const DEFAULT_SYSTEM =
  'You are Arslan, a local-first assistant. Use tools to act; report only what tool results show.';
/** SEC-005: web, file and MCP results are external content even without `external: true`. */
const EXTERNAL_TOOLS = new Set(['web_search', 'web_extract', 'read_file', 'attach_file', 'recall']);
export const defaultIsExternalTool = (name: string): boolean =>
  EXTERNAL_TOOLS.has(name) || name.startsWith('mcp_');

interface LiveRun {
  run: AgentRun;
  conversationId: string;
  input: StartRunInput;
  provider: ModelProvider;
  budget: Budget;
  taskId: string;
  mode: RunMode;
}

export class RunService {
  readonly registry: RunRegistry;
  readonly queue: ApprovalQueue;
  readonly runs: RunRepository;
  readonly tasks: TaskRepository;
  readonly approvals: ApprovalRepository;
  /** CTX-06/09: rolling summaries and trusted conversation settings. */
  readonly context: ContextRepository;
  /** ARCH-18: the endpoint and carried items of every model request. */
  readonly requests: ModelRequestRepository;
  /** CKPT-06/09: operations of unknown effect, listed for the user's check and reconciled. */
  readonly unknownEffects: UnknownEffects;
  /** Runs marked interrupted when the service opened (CKPT-05). */
  readonly recovered: { interruptedRuns: string[]; unknownActions: number };
  private readonly gate: ApprovalGate;
  private readonly live = new Map<string, LiveRun>();
  private readonly lastInput = new Map<string, StartRunInput>();
  private readonly results = new Map<string, RunResult>();
  private readonly now: () => number;
  private readonly newId: () => string;

  constructor(private readonly deps: RunServiceDeps) {
    this.now = deps.now ?? Date.now;
    this.newId = deps.newId ?? randomUUID;
    this.runs = new RunRepository(deps.db, this.now);
    this.tasks = new TaskRepository(deps.db, this.now, this.newId);
    this.approvals = new ApprovalRepository(deps.db, this.now);
    this.context = new ContextRepository(deps.db, this.now);
    this.requests = new ModelRequestRepository(deps.db, this.now);
    this.unknownEffects = new UnknownEffects(deps.db, this.now);
    this.recovered = this.runs.recoverAfterRestart();
    this.registry = new RunRegistry({
      now: this.now,
      persist: (event) => {
        if (event.type === 'working') return; // transient heartbeat, not part of the record
        const { runId, seq, at, type, ...payload } = event;
        this.runs.appendEvent(runId, seq, type, payload, at);
      },
    });
    this.queue = new ApprovalQueue({
      repository: this.approvals,
      now: this.now,
      ...(deps.timers ? { timers: deps.timers } : {}),
      ...(deps.cardExpiryMs !== undefined ? { expiryMs: deps.cardExpiryMs } : {}),
    });
    this.queue.subscribe((event) => {
      if (event.type === 'card_opened')
        this.registry.publish(event.card.runId, { type: 'card_opened', card: event.card });
      else
        this.registry.publish(event.runId, {
          type: 'card_closed',
          callId: event.callId,
          resolution: event.resolution,
          ...(event.surface ? { surface: event.surface } : {}),
        });
    });
    this.gate = new ApprovalGate(this.queue, this.approvals);
  }

  startRun(requested: StartRunInput): StartedRun {
    // PROV-04: a conversation's chosen model decides where each of its new runs goes.
    const chosen =
      requested.conversationId !== undefined
        ? this.deps.conversationModel?.(requested.conversationId)
        : undefined;
    const input = chosen ? { ...requested, provider: chosen.provider, model: chosen.model } : requested;
    const provider =
      typeof input.provider === 'string' ? this.deps.resolveProvider?.(input.provider) : input.provider;
    if (!provider) throw new Error(`unknown provider ${String(input.provider)}`);
    const conversationId = input.conversationId ?? this.newId();
    const runId = this.newId();
    const mode: RunMode = input.scheduled ? 'scheduled' : input.attended ? 'interactive' : 'headless';
    const tier = input.tier ?? 'standard';
    this.runs.ensureConversation(conversationId);
    const { history, messageIds } = this.history(conversationId);
    messageIds.push(this.runs.addMessage(conversationId, 'user', input.message, runId));
    const task = this.tasks.createTask({
      conversationId,
      spec: { instruction: input.message, acceptance: [], budget: { tier } },
    });
    let guard: AttemptGuard = this.tasks.startAttempt(task.id, task.rowVersion);
    this.runs.createRun({
      id: runId,
      conversationId,
      taskId: task.id,
      attemptId: guard.attemptId,
      mode,
      provider: provider.kind,
      model: input.model,
      tier,
    });
    const budget = new Budget({
      tier,
      now: this.now,
      ...(this.deps.prices ? { prices: this.deps.prices } : {}),
      ...(this.deps.dollarCap !== undefined ? { dollarCap: this.deps.dollarCap } : {}),
      ...(this.deps.softLimits ? { soft: this.deps.softLimits } : {}),
    });
    const emit = (body: RunEventBody): void => void this.registry.publish(runId, body);
    const summaryModel = this.deps.summaryModel?.();
    const turn = this.deps.checkpoints?.startTurn({
      runId,
      conversationId,
      workspace: input.workspace,
      notify: ({ saved, message }) =>
        emit({ type: 'notice', code: saved ? 'checkpoint_saved' : 'checkpoint_not_saved', message }),
    });
    // BUD-09/11: a summarization request is charged to this run (budget, cost, usage). The run is
    // created below; the context manager only calls back while the run is running.
    let chargeSummary = (usage: Usage | null): void => {
      if (usage) budget.chargeResponse(input.model, usage);
      else budget.chargeFailedRequest();
    };
    const run = new AgentRun(
      {
        provider,
        // KNOW-06 / CTX-09: memory tools follow the conversation's stored permission per request.
        tools: memoryGatedCatalog(
          this.deps.tools({ workspace: input.workspace, conversationId, mode }),
          () => this.context.getSettings(conversationId),
          provider,
        ),
        requests: this.requests,
        unknownEffects: this.unknownEffects,
        gate: this.gate,
        runs: this.runs,
        emit,
        wrapExternal: this.deps.wrapExternal,
        wrapToolOutput: this.deps.wrapToolOutput,
        now: this.now,
        timers: this.deps.timers ?? realLoopTimers,
        sleep: this.deps.sleep ?? realSleep,
        workingIntervalMs: Math.min(this.deps.workingIntervalMs ?? 15_000, 15_000),
        isExternalTool: this.deps.isExternalTool ?? defaultIsExternalTool,
        dataDir: this.deps.dataDir,
        context: new ContextManager({
          conversationId,
          model: input.model,
          window: input.contextWindow ?? describeContextWindow(input.model, provider.origin),
          provider,
          store: this.context,
          ...(summaryModel ? { summarizer: summaryModel } : {}),
          messageIds,
          ...(this.deps.uiLanguage ? { uiLanguage: this.deps.uiLanguage } : {}),
          onUsage: (usage) => chargeSummary(usage),
          onFailedRequest: () => chargeSummary(null),
        }),
      },
      {
        runId,
        conversationId,
        taskId: task.id,
        mode,
        allow: new Set(mode === 'scheduled' ? [] : (input.allow ?? [])),
        model: input.model,
        system: this.deps.system ?? DEFAULT_SYSTEM,
        workspace: input.workspace,
        history,
        message: input.message,
        budget,
        maxOutputTokens: this.deps.maxOutputTokens ?? 8_192,
        maxRetries: this.deps.maxRetries ?? 3,
        ...(this.deps.temperature !== undefined ? { temperature: this.deps.temperature } : {}),
        ...(turn ? { beforeWorkspaceChange: turn.beforeFirstChange } : {}),
        ...(input.approvalConversationId ? { approvalConversationId: input.approvalConversationId } : {}),
      },
    );
    chargeSummary = (usage) => run.chargeSideRequest(usage);
    this.registry.register(runId, conversationId, () => {
      run.stop();
      this.queue.cancelRun(runId);
    });
    this.live.set(runId, { run, conversationId, input, provider, budget, taskId: task.id, mode });
    this.lastInput.set(conversationId, input);
    emit({ type: 'run_started', conversationId, taskId: task.id, mode, model: input.model, tier });
    emit({ type: 'task_progress', taskId: task.id, attemptId: guard.attemptId, status: 'running' });
    const result = run.run().then(async (r) => {
      await turn?.end(); // CKPT-15: the post-turn listing is in place before the turn is reported done
      guard = this.settle(r, guard, emit);
      return r;
    });
    return { runId, conversationId, taskId: task.id, result };
  }

  /** Persists the end of a run: messages, task state (TASK-07 guard), then `run_finished` last. */
  private settle(result: RunResult, guard: AttemptGuard, emit: (body: RunEventBody) => void): AttemptGuard {
    const { runId, conversationId, taskId } = result;
    this.live.delete(runId);
    this.results.set(runId, result);
    if (result.answer) this.runs.addMessage(conversationId, 'assistant', result.answer, runId);
    let next = guard;
    let taskStatus: 'succeeded' | 'unverified' | 'failed' | 'stopped' | 'interrupted' = 'failed';
    try {
      if (result.status === 'succeeded' || result.status === 'wrapped_up') {
        try {
          next = this.tasks.markSucceeded(guard);
          taskStatus = 'succeeded';
        } catch (error) {
          if (!(error instanceof TaskError)) throw error;
          next = this.tasks.finishAttempt(guard, 'completed', 'unverified');
          taskStatus = 'unverified';
        }
      } else {
        taskStatus =
          result.status === 'stopped'
            ? 'stopped'
            : result.status === 'interrupted'
              ? 'interrupted'
              : 'failed';
        next = this.tasks.finishAttempt(
          guard,
          taskStatus === 'stopped' ? 'stopped' : taskStatus === 'interrupted' ? 'interrupted' : 'failed',
          taskStatus,
        );
      }
    } catch (error) {
      if (!(error instanceof TaskError)) throw error; // a stale attempt (TASK-03) leaves the newer state alone
    }
    if (taskId) emit({ type: 'task_progress', taskId, attemptId: guard.attemptId, status: taskStatus });
    this.runs.finishRun(runId, result.status, result.answer || null);
    emit({ type: 'run_finished', status: result.status, answer: result.answer });
    // LOOP-19: a message that arrived while the final answer was written runs next.
    const last = this.lastInput.get(conversationId);
    if (result.followUps.length > 0 && last && result.status !== 'stopped') {
      this.startRun({ ...last, conversationId, message: result.followUps.join('\n\n') });
    }
    return next;
  }

  /** Earlier messages not yet folded into the stored summary (CTX-07: the rows stay intact). */
  private history(conversationId: string): { history: TrajectoryItem[]; messageIds: number[] } {
    const all = this.runs.listMessages(conversationId);
    const present = new Set(all.map((m) => m.id));
    let folded = new Set(this.context.getSummary(conversationId)?.foldedMessageIds ?? []);
    // A summary standing for messages that left the conversation (undo) is stale: start again
    // from the full messages.
    if (![...folded].every((id) => present.has(id))) {
      this.context.clearSummary(conversationId);
      folded = new Set();
    }
    const messages = all.filter((m) => !folded.has(m.id));
    return {
      history: messages.map((m) =>
        m.role === 'user'
          ? { role: 'user' as const, text: m.text }
          : { role: 'assistant' as const, text: m.text, toolCalls: [] },
      ),
      messageIds: messages.map((m) => m.id),
    };
  }

  private liveRunOf(conversationId: string): [string, LiveRun] | undefined {
    for (const entry of this.live) if (entry[1].conversationId === conversationId) return entry;
    return undefined;
  }

  /** LOOP-18/19, TURN-03 / APPR-008. */
  sendMessage(conversationId: string, text: string): SendMessageResult {
    const found = this.liveRunOf(conversationId);
    if (found) {
      const [runId, live] = found;
      const waiting = this.queue.pendingForConversation(conversationId)[0];
      const delivered = live.run.steer(text);
      if (waiting) {
        this.queue.answer({
          callId: waiting.callId,
          kind: waiting.kind,
          option: 'no',
          note: text,
          surface: 'chat',
        });
        return { delivered: 'answered_card', runId, callId: waiting.callId };
      }
      return { delivered, runId };
    }
    const last = this.lastInput.get(conversationId);
    if (!last) return { delivered: 'no_run' };
    const started = this.startRun({ ...last, conversationId, message: text });
    return { delivered: 'started', runId: started.runId, result: started.result };
  }

  /** WORK-01..13: the live run a worker or job is started from; undefined when it is not live. */
  parentOf(runId: string): ParentRunView | undefined {
    const live = this.live.get(runId);
    if (!live) return undefined;
    return {
      runId,
      conversationId: live.conversationId,
      taskId: live.taskId,
      provider: live.provider,
      model: live.input.model,
      workspace: live.input.workspace,
      mode: live.mode,
      tier: live.input.tier ?? 'standard',
      allow: live.input.allow ?? [],
      budget: live.budget,
      approvalConversationId: live.input.approvalConversationId,
    };
  }

  /**
   * WORK-02/04: a worker is a real run of the same loop, but headless, with only the tools it is
   * given, no conversation history and no task of its own (its usage goes to `spec.budget`). It
   * lives in a throwaway conversation so it never appears as a turn of the parent's conversation.
   */
  startNestedRun(spec: NestedRunSpec): NestedRun {
    const runId = this.newId();
    const conversationId = `worker-${runId}`;
    this.runs.ensureConversation(conversationId);
    this.runs.createRun({
      id: runId,
      conversationId,
      taskId: null,
      attemptId: null,
      mode: 'headless',
      provider: spec.provider.kind,
      model: spec.model,
      tier: 'light',
    });
    const run = new AgentRun(
      {
        provider: spec.provider,
        tools: spec.tools,
        requests: this.requests,
        gate: this.gate,
        runs: this.runs,
        emit: () => undefined, // the parent reports the worker through its tool call
        wrapExternal: this.deps.wrapExternal,
        wrapToolOutput: this.deps.wrapToolOutput,
        now: this.now,
        timers: this.deps.timers ?? realLoopTimers,
        sleep: this.deps.sleep ?? realSleep,
        workingIntervalMs: Math.min(this.deps.workingIntervalMs ?? 15_000, 15_000),
        isExternalTool: this.deps.isExternalTool ?? defaultIsExternalTool,
        dataDir: this.deps.dataDir,
      },
      {
        runId,
        conversationId,
        taskId: null,
        mode: 'headless',
        allow: new Set(),
        model: spec.model,
        system: spec.system,
        workspace: spec.workspace,
        history: [],
        message: spec.message,
        budget: spec.budget,
        maxOutputTokens: this.deps.maxOutputTokens ?? 8_192,
        maxRetries: this.deps.maxRetries ?? 3,
        ...(this.deps.temperature !== undefined ? { temperature: this.deps.temperature } : {}),
      },
    );
    const result = run.run().then((r) => {
      this.runs.finishRun(runId, r.status, r.answer || null);
      return r;
    });
    return { runId, stop: () => run.stop(), result };
  }

  answerCard(answer: CardAnswer): AnswerResult {
    return this.queue.answer(answer);
  }

  stop(runId: string): boolean {
    return this.registry.stop(runId);
  }

  listCards(): Card[] {
    return this.queue.list();
  }

  listInbox(): ReturnType<RunRepository['listInboxItems']> {
    return this.runs.listInboxItems();
  }

  /** CKPT-12/13: the conversation's turns with their undo checkpoints ("Saved" / "Not saved"). */
  listTurns(conversationId: string): TurnView[] {
    return this.deps.checkpoints?.list(conversationId) ?? [];
  }

  /** CKPT-14..16: undo a turn and every later one (files and conversation). Throws UndoError. */
  async undoTurn(conversationId: string, runId: string): Promise<UndoResult> {
    const { checkpoints } = this.deps;
    if (!checkpoints) throw new UndoError('unavailable', 'undo is not available in this runtime');
    const result = await checkpoints.undo({ conversationId, runId });
    for (const id of result.undoneRunIds) {
      this.registry.forget(id);
      this.results.delete(id);
    }
    return result;
  }

  /** CTX-09: the conversation's trusted settings (defaults until a settings surface sets them). */
  getConversationSettings(conversationId: string): ConversationSettings {
    return this.context.getSettings(conversationId);
  }

  /**
   * CTX-09 / KNOW-06: the only way conversation settings change — a settings surface (the local
   * API), never text. Validated strictly; throws ConversationSettingsError. Applies from the next
   * model request, also of a running reply.
   */
  updateConversationSettings(conversationId: string, patch: unknown): ConversationSettings {
    // One transaction: a refused patch leaves no new conversation row behind.
    return this.deps.db.transaction(() => {
      this.runs.ensureConversation(conversationId);
      return this.context.updateSettings(conversationId, patch);
    })();
  }

  /** ARCH-18: the run's model requests (endpoint, model, items carried); undefined: no such run. */
  listRequests(runId: string): ModelRequestRow[] | undefined {
    if (!this.runs.getRun(runId)) return undefined;
    return this.requests.list(runId);
  }

  getResult(runId: string): RunResult | undefined {
    return this.results.get(runId);
  }

  /**
   * CKPT-04: snapshot and subscription in one step. For a run no longer held in memory the
   * snapshot is replayed from the store (CKPT-02) and there is nothing to subscribe to.
   */
  snapshotAndSubscribe(
    target: SnapshotTarget,
    listener: RunListener,
  ): { snapshot: RunSnapshot; unsubscribe: () => void } | undefined {
    const runId = 'runId' in target ? target.runId : this.registry.latestRunOf(target.conversationId);
    if (runId) {
      const live = this.registry.snapshotAndSubscribe(runId, listener);
      if (live) return live;
    }
    const id = runId ?? ('runId' in target ? target.runId : undefined);
    if (!id) return undefined;
    const row = this.runs.getRun(id);
    if (!row) return undefined;
    const events = this.runs
      .loadEvents(id)
      .map((e) => ({ ...(e.payload as object), type: e.type, runId: id, seq: e.seq, at: e.at }) as RunEvent);
    return {
      snapshot: {
        runId: id,
        conversationId: row.conversationId,
        status: row.status,
        events,
        lastSeq: events.at(-1)?.seq ?? 0,
      },
      unsubscribe: () => undefined,
    };
  }
}
