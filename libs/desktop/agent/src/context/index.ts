// Public API of the context module (CTX-01..09): budgets, token estimate, rolling summary,
// request composition and the per-turn reference block. Framework-free.
export {
  contextBudgets,
  historyBudget,
  HISTORY_MAX_TOKENS,
  HISTORY_MIN_TOKENS,
  HISTORY_SHARE,
  type ContextBudgets,
} from './budgets';
export {
  ContextManager,
  type ComposeInput,
  type ComposedContext,
  type ContextManagerOptions,
  type ContextReport,
  type SummaryRequestReport,
} from './context-manager';
export type { ContextStore, StoredSummary } from './context-store';
export {
  describeContextWindow,
  effectiveWindow,
  isLocalEndpoint,
  LOCAL_MODEL_WINDOW,
  UNKNOWN_MODEL_WINDOW,
  type ContextWindowInfo,
} from './context-window';
export {
  maskToolResult,
  planContext,
  RECENT_USER_TURNS,
  trimToolResult,
  type ContextPlan,
  type IndexedItem,
} from './plan-context';
export {
  buildReferenceBlock,
  DEFAULT_CONVERSATION_SETTINGS,
  latestPlan,
  REFERENCE_CLOSE,
  REFERENCE_OPEN,
  stripReferenceBlock,
  withReferenceBlock,
  type ConversationSettings,
  type PlanLine,
  type ReferenceInput,
} from './reference-block';
export {
  clampSummary,
  EMPTY_SUMMARY,
  parseSummaryReply,
  renderSummary,
  rollingSummarySchema,
  type RollingSummary,
} from './rolling-summary';
export {
  fallbackSummary,
  renderTranscript,
  summarize,
  SUMMARIZER_SYSTEM,
  type SummarizeInput,
  type SummarizeOutcome,
} from './summarizer';
export {
  estimateTokens,
  historyTokens,
  MESSAGE_OVERHEAD_TOKENS,
  sumTokens,
  toolResultTokens,
} from './token-estimate';
