// Typed refusals of "undo this turn" (string codes; transports map them to statuses).
export type UndoErrorCode =
  /** The conversation has no such turn (or it was already undone). */
  | 'not_found'
  /** CKPT-16: a run is still working in the conversation or the folder. */
  | 'busy'
  /** CKPT-12: a turn in the range changed the folder without a save ("Not saved"). */
  | 'not_saved'
  /** CKPT-17: the save point is older than the retention period and was deleted. */
  | 'expired'
  /** No checkpoint store is attached to this runtime. */
  | 'unavailable';

export class UndoError extends Error {
  constructor(
    readonly code: UndoErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'UndoError';
  }
}
