export { TaskRepository } from './task.repository';
export {
  TaskError,
  type AcceptanceItem,
  type AcceptanceStatus,
  type AttemptGuard,
  type AttemptStatus,
  type Evidence,
  type TaskErrorCode,
  type TaskRow,
  type TaskSpec,
  type TaskStatus,
} from './task.types';
export { UnknownEffects, ReconcileError, type UnknownEffectAction } from './unknown-effect';
