// CKPT-11..17: undo-this-turn checkpoints of the working folder.
export { REBUILDABLE_DIR_NAMES, isRebuildableDir, isSecretShaped } from './exclusions';
export { type Manifest, type ManifestEntry, type ScanLimits, type ScanResult, scanFolder } from './manifest';
export { type RestoreReport, restoreFolder } from './folder-copy';
export {
  CHECKPOINT_LIMITS,
  CHECKPOINT_RETENTION_MS,
  CHECKPOINTS_DIR,
  TurnCheckpoints,
  type CheckpointLimits,
  type CheckpointView,
  type FolderUndoReport,
  type NotSavedReason,
  type TurnCheckpointsOptions,
  type TurnHandle,
  type TurnMemoryPort,
  type TurnStart,
  type TurnView,
  type UndoResult,
} from './turn-checkpoints';
export { UndoError, type UndoErrorCode } from './undo.errors';
