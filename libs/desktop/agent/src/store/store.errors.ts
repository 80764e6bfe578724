// Typed store errors (string codes; callers map them per transport).
export type StoreErrorCode =
  /** MIG-03: the file carries a schema version this build does not know. */
  | 'schema_unknown'
  /** MIG-03: the file was written by a newer build; it is left untouched. */
  | 'schema_newer'
  | 'backup_failed'
  | 'migration_failed';

export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreError';
  }
}
