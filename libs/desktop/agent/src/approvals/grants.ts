// APPR-005/018: remembered answers per scope, consulted before asking. "Once" is never remembered.
import type { ActionKind, ApprovalNeed } from '../ports';
import type { GrantQuery, GrantScope } from './approval.repository';

export interface GrantStore {
  findGrant(query: GrantQuery): GrantScope | undefined;
  addGrant(scope: GrantScope, query: GrantQuery): void;
}

/** Kinds whose grant covers every subject of the kind (writes inside the workspace). */
const WIDE_KINDS: ReadonlySet<ActionKind> = new Set<ActionKind>(['workspace_write']);

/** The thing a grant is for: the card summary (command, host, tool, path), or any for wide kinds. */
export function grantSubject(need: ApprovalNeed): string {
  return WIDE_KINDS.has(need.kind) ? '*' : need.summary;
}

export class MemoryGrantStore implements GrantStore {
  private readonly grants: { scope: GrantScope; query: GrantQuery }[] = [];

  findGrant(query: GrantQuery): GrantScope | undefined {
    const hit = this.grants.find(
      (g) =>
        g.query.kind === query.kind &&
        (g.query.subject === query.subject || g.query.subject === '*') &&
        (g.scope === 'always' ||
          (g.scope === 'conversation' &&
            g.query.conversationId !== null &&
            g.query.conversationId === query.conversationId) ||
          (g.scope === 'task' && g.query.taskId !== null && g.query.taskId === query.taskId)),
    );
    return hit?.scope;
  }

  addGrant(scope: GrantScope, query: GrantQuery): void {
    this.grants.push({ scope, query });
  }
}
