// WORK-01..06: delegate_work's temporary, read-only workers.
export {
  MAX_CONCURRENT_WORKERS,
  MAX_WORKERS_PER_CALL,
  WORKER_SYSTEM,
  WORKER_TOOL_NAMES,
  WorkerPool,
  WorkerPoolError,
  type WorkerOutcome,
  type WorkerPoolOptions,
} from './worker-pool';
export { NestedBudget } from './nested-budget';
