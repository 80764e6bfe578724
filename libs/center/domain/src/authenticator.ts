// Resolves bearer tokens to principals. Lookup is by SHA-256 (unique index), then the
// stored digest is compared in constant time (GRANT-11).
import { CenterError } from './center.errors';
import { type CenterStore, type Clock } from './ports';
import { type ContentPrincipal } from './principal';
import { digestsEqual, secretsEqual, sha256Hex, TOKEN_PREFIXES } from './tokens';

export class Authenticator {
  constructor(
    private readonly store: CenterStore,
    private readonly clock: Clock,
    private readonly adminToken: string | null,
  ) {}

  isAdminToken(token: string): boolean {
    if (this.adminToken === null) return false;
    return secretsEqual(token, this.adminToken);
  }

  async content(token: string): Promise<ContentPrincipal> {
    if (this.isAdminToken(token)) {
      throw new CenterError('admin_bearer_not_allowed', 'the admin bearer is not valid on content routes');
    }
    const hash = sha256Hex(token);
    // The prefix only picks the table to look in; the digest lookup decides.
    const found = await this.store.read(async (r) => {
      if (!token.startsWith(TOKEN_PREFIXES.grant)) {
        const member = await r.findMemberByCredentialHash(hash);
        if (member) return { kind: 'member', member } as const;
      }
      if (token.startsWith(TOKEN_PREFIXES.member)) return null;
      const grant = await r.findGrantByTokenHash(hash);
      return grant ? ({ kind: 'grant', grant } as const) : null;
    });
    if (found?.kind === 'member' && digestsEqual(found.member.credentialHash, hash)) {
      return { kind: 'member', member: found.member, credentialHash: hash };
    }
    if (found?.kind === 'grant' && digestsEqual(found.grant.tokenHash, hash)) {
      if (found.grant.expiresAt <= this.clock.now()) {
        throw new CenterError('invalid_credential', 'the grant has expired');
      }
      return { kind: 'grant', grant: found.grant, credentialHash: hash };
    }
    throw new CenterError('invalid_credential', 'unknown or revoked credential');
  }
}
