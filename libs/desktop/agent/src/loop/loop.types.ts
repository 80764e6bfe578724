// Inputs, dependencies and results of one run of the agent loop.
import type { ApprovalGate } from '../approvals/approval-gate';
import type { Budget, BudgetUsage } from '../budget/budget';
import type { ActionKind, ApprovalNeed, ModelProvider, TrajectoryItem } from '../ports';
import type { RunRepository, RunMode, RunStatus } from '../store/run.repository';
import type { ModelRequestRepository } from '../store/model-request.repository';
import type { UnknownEffects } from '../tasks/unknown-effect';
import type { ComposeInput, ComposedContext } from '../context/context-manager';
import type { RunEventBody } from './run-events';
import type { ToolCatalog } from './tool-catalog';

/** SEC-002/003 boundary helpers (the tools lib provides the real ones). */
export type ContentWrapper = (content: string, meta: { tool: string; callId: string }) => string;

export interface LoopTimers {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export const realLoopTimers: LoopTimers = {
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
};

/** Resolves after `ms`, rejects (or resolves early) when the signal aborts. */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** The part of the context module the loop uses (CTX-07: it never edits the trajectory). */
export interface RequestContext {
  compose(input: ComposeInput): Promise<ComposedContext>;
}

export interface LoopDeps {
  provider: ModelProvider;
  tools: ToolCatalog;
  gate: ApprovalGate;
  runs: RunRepository;
  emit: (body: RunEventBody) => void;
  wrapExternal: ContentWrapper;
  wrapToolOutput: ContentWrapper;
  now: () => number;
  timers: LoopTimers;
  sleep: Sleep;
  /** TURN-01: ≤ 15 s (injectable for tests). */
  workingIntervalMs: number;
  /** Tools whose results are external content even without `external: true` (SEC-005). */
  isExternalTool: (name: string) => boolean;
  dataDir: string;
  /** CTX-01..09: composes each request's history; absent → the whole trajectory is sent. */
  context?: RequestContext;
  /** ARCH-18: where each model request went and what it carried (absent: not recorded). */
  requests?: ModelRequestRepository;
  /** CKPT-06/09: earlier operations of unknown effect (listed; never resent before reconciling). */
  unknownEffects?: Pick<UnknownEffects, 'needsCheck' | 'blocking'>;
}

export interface LoopInput {
  runId: string;
  conversationId: string;
  taskId: string | null;
  mode: RunMode;
  allow: ReadonlySet<ActionKind>;
  model: string;
  system: string;
  workspace: string;
  /** Earlier turns of the conversation (user and delivered assistant text). */
  history: readonly TrajectoryItem[];
  message: string;
  budget: Budget;
  maxOutputTokens: number;
  /** Optional sampling temperature; the provider drops it if the model rejects it (PROV-09). */
  temperature?: number;
  /** Transient provider errors retried per request (LOOP-21), each charged to the budget (BUD-06). */
  maxRetries: number;
  /** CKPT-11: the turn's undo-checkpoint hook, handed to tools through their context. */
  beforeWorkspaceChange?: () => Promise<void>;
  /** WORK-13: a background job asks with (and cards show in) its originating conversation. */
  approvalConversationId?: string;
}

export type StepOutcome =
  | 'ok'
  | 'error'
  | 'invalid_arguments'
  | 'unavailable'
  | 'over_budget'
  | 'no_progress'
  | 'refused_unattended'
  /** CKPT-06: an identical earlier operation is of unknown effect and not reconciled yet. */
  | 'unreconciled'
  | 'denied'
  | 'expired'
  | 'cancelled'
  | 'skipped'
  | 'not_executed';

export interface StepRecord {
  step: number;
  callId: string;
  tool: string;
  /** Parsed arguments, or the raw text when they were not valid JSON. */
  args: unknown;
  outcome: StepOutcome;
  detail: string;
}

export interface RefusedStep {
  callId: string;
  tool: string;
  kind: ActionKind;
  summary: string;
}

export interface RunResult {
  runId: string;
  conversationId: string;
  taskId: string | null;
  status: Exclude<RunStatus, 'running'>;
  /** The delivered answer (never narration: LOOP-07); empty when nothing was delivered. */
  answer: string;
  notices: string[];
  steps: StepRecord[];
  /** APPR-017: steps an unattended run refused (also listed in the Inbox). */
  refused: RefusedStep[];
  usage: BudgetUsage;
  costUsd: number;
  /** LOOP-19: messages that arrived while the final answer was written; they run as the next turn. */
  followUps: string[];
}

export type { ApprovalNeed };
