export { ApprovalGate, type GateContext, type GateDecision } from './approval-gate';
export {
  ApprovalQueue,
  CARD_EXPIRY_MS,
  type AnswerRefusal,
  type AnswerResult,
  type ApprovalQueueOptions,
  type CardResolution,
  type OpenCardInput,
  type QueueEvent,
  type QueueTimers,
} from './approval-queue';
export { ApprovalRepository, type CardStatus, type GrantQuery, type GrantScope } from './approval.repository';
export {
  ISLAND_KINDS,
  NEVER_ALWAYS_KINDS,
  ONCE_ONLY_KINDS,
  TASK_SCOPED_KINDS,
  WINDOW_ONLY_KINDS,
  cardOptions,
  isActionKind,
  surfaceRefusal,
  type SurfaceRefusal,
} from './card-options';
export { MemoryGrantStore, grantSubject, type GrantStore } from './grants';
