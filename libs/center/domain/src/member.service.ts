// Members and roles, managed by the admin bearer (CTR-9). A removal or a role drop
// invalidates the affected grants in the same transaction (GRANT-15).
import { grantsInvalidatedByPolicyChange, isRole, RESERVED_MEMBER_NAME, type Role } from '@arslan/policy';
import { CenterError } from './center.errors';
import { GRANTS_LOCK } from './grant.service';
import { type AuditSink, type CenterRepos, type CenterStore, type RosterEntry } from './ports';
import { newToken, sha256Hex } from './tokens';

export class MemberService {
  constructor(
    private readonly store: CenterStore,
    private readonly audit: AuditSink,
  ) {}

  /** Creates a member; its credential is returned once. */
  create(name: string): Promise<{ name: string; credential: string }> {
    if (name === RESERVED_MEMBER_NAME)
      throw new CenterError('bad_request', `"${name}" is reserved (GRANT-7)`);
    return this.store.write([], async (repos) => {
      if (await repos.findMember(name)) throw new CenterError('member_exists', `member ${name} exists`);
      const credential = newToken('member');
      await repos.insertMember({ name, credentialHash: sha256Hex(credential) });
      await this.audit.append({ type: 'member.create', actor: RESERVED_MEMBER_NAME, member: name });
      return { name, credential };
    });
  }

  roster(vault: string): Promise<RosterEntry[]> {
    return this.store.read((repos) => repos.roster(vault));
  }

  setRole(vault: string, name: string, role: Role): Promise<{ invalidated: number }> {
    if (!isRole(role)) throw new CenterError('bad_request', 'unknown role');
    return this.store.write([GRANTS_LOCK], async (repos) => {
      if (!(await repos.findMember(name))) throw new CenterError('not_found', `no member ${name}`);
      const invalidated = await this.commit(repos, vault, (r) => r.setRole(vault, name, role));
      await this.audit.append({
        type: 'member.role',
        actor: RESERVED_MEMBER_NAME,
        vault,
        member: name,
        role,
        invalidated,
      });
      return { invalidated };
    });
  }

  removeFromVault(vault: string, name: string): Promise<{ invalidated: number }> {
    return this.store.write([GRANTS_LOCK], async (repos) => {
      let found = false;
      const invalidated = await this.commit(repos, vault, async (r) => {
        found = await r.removeMembership(vault, name);
      });
      if (!found) throw new CenterError('not_found', `${name} is not a member of ${vault}`);
      await this.audit.append({
        type: 'member.leave',
        actor: RESERVED_MEMBER_NAME,
        vault,
        member: name,
        invalidated,
      });
      return { invalidated };
    });
  }

  remove(name: string): Promise<{ invalidated: number }> {
    return this.store.write([GRANTS_LOCK], async (repos) => {
      if (!(await repos.findMember(name))) throw new CenterError('not_found', `no member ${name}`);
      let invalidated = 0;
      for (const vault of await repos.vaultsOf(name)) {
        invalidated += await this.commit(repos, vault, (r) =>
          r.removeMembership(vault, name).then(() => undefined),
        );
      }
      await repos.deleteMember(name);
      await this.audit.append({
        type: 'member.remove',
        actor: RESERVED_MEMBER_NAME,
        member: name,
        invalidated,
      });
      return { invalidated };
    });
  }

  /** Applies `change` to one vault's roster and deletes the grants it invalidates (GRANT-15). */
  private async commit(
    repos: CenterRepos,
    vault: string,
    change: (r: CenterRepos) => Promise<void>,
  ): Promise<number> {
    const before = { vaultId: vault, members: await repos.roster(vault) };
    await change(repos);
    const after = { vaultId: vault, members: await repos.roster(vault) };
    const grants = await repos.grantsOfVault(vault);
    const ids = grantsInvalidatedByPolicyChange(grants, before, after);
    if (ids.length > 0) await repos.deleteGrants(ids);
    return ids.length;
  }
}
