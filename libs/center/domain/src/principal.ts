// Who is calling. The admin bearer is never a content principal (CTR-9).
import { type GrantRecord, type MemberRecord } from './ports';

export type ContentPrincipal =
  /** A member with its persistent credential: depth 0, not a re-delegation (GRANT-6). */
  | { readonly kind: 'member'; readonly member: MemberRecord; readonly credentialHash: string }
  /** A caller acting through a grant token. */
  | { readonly kind: 'grant'; readonly grant: GrantRecord; readonly credentialHash: string };

export type Principal = { readonly kind: 'admin' } | ContentPrincipal;

export function principalName(p: ContentPrincipal): string {
  return p.kind === 'member' ? p.member.name : p.grant.subject;
}

/** REQ-8: a grant whose subject differs from its issuer was delegated to the caller. */
export function isDelegated(p: ContentPrincipal): boolean {
  return p.kind === 'grant' && p.grant.subject !== p.grant.issuer;
}
