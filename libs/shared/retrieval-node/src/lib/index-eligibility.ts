// What may enter a search index (RAG-3, HIST-5). Pure; fails closed.

export type IndexAssetKind = 'memory' | 'card' | 'credential' | 'file' | 'private';

export interface IndexCandidate {
  kind: IndexAssetKind;
  /** Deleted asset. */
  tombstone?: boolean;
  /** The revision is one side of an unresolved conflict. */
  conflicted?: boolean;
  /** The write is quarantined (e.g. from an unknown older epoch, SYNC-31). */
  quarantined?: boolean;
  /** Cards only: the caller checked that the card has no secret fields. Cards are excluded unless this is `true`. */
  safeCard?: boolean;
}

export type IndexExclusionReason =
  | 'private'
  | 'credential'
  | 'file'
  | 'card_not_safe'
  | 'tombstone'
  | 'conflicted'
  | 'quarantined'
  | 'unknown_kind';

/** Why `asset` must stay out of the index, or `undefined` when it may be indexed. */
export function indexExclusionReason(asset: IndexCandidate): IndexExclusionReason | undefined {
  switch (asset.kind) {
    case 'memory':
      break;
    case 'card':
      if (asset.safeCard !== true) return 'card_not_safe';
      break;
    case 'private':
    case 'credential':
    case 'file':
      return asset.kind;
    default:
      return 'unknown_kind';
  }
  if (asset.tombstone !== false && asset.tombstone !== undefined) return 'tombstone';
  if (asset.conflicted !== false && asset.conflicted !== undefined) return 'conflicted';
  if (asset.quarantined !== false && asset.quarantined !== undefined) return 'quarantined';
  return undefined;
}

/** Only live, non-conflicted, non-quarantined memories (and cards the caller marked safe) are indexed (RAG-3). */
export function eligibleForIndex(asset: IndexCandidate): boolean {
  return indexExclusionReason(asset) === undefined;
}
