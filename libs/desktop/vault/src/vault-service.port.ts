// The vault service surface the daemon's IPC layer calls (one method per data op).
// Session policy — idle expiry of unlock (IPC-11), sudo (IPC-12/13), rate limits
// while locked (IPC-14), one-writer serialisation (IPC-10) — belongs to the daemon,
// not here. Every method throws VaultServiceError (codes = IPC wire codes).
import type { AssetKind, IpcErrorCode, VaultOpArgs, VaultOpResults } from '@arslan/protocol';
import type { JsonObject, JsonValue } from './canonical-json';

export class VaultServiceError extends Error {
  readonly code: IpcErrorCode;

  constructor(code: IpcErrorCode, message: string) {
    super(message);
    this.name = 'VaultServiceError';
    this.code = code;
  }
}

export interface VaultServiceState {
  initialized: boolean;
  unlocked: boolean;
  deviceFingerprint: string | null;
  vaults: VaultOpResults['vault_list']['vaults'];
}

/** What the search index of one vault was built from (RAG-6, RAG-21): compare before and after external work. */
export interface IndexSourceStamp {
  vault: string;
  vault_id: string;
  device_only: boolean;
  /** Changes with every revision (write, delete, resolve, import), policy or epoch change of this vault. */
  content_stamp: string;
  /** Bumped by every lock and unlock of the service. */
  unlock_generation: number;
}

/** The head of one live asset, as indexed (RAG-3 exclusions already applied). */
export interface IndexSource {
  asset_id: string;
  revision_id: string;
  title: string;
  body: string;
}

export interface IndexSources extends IndexSourceStamp {
  sources: IndexSource[];
  /** Assets left out by RAG-3 (deleted, conflicted, ...). */
  excluded: number;
}

/** What the grant registry needs to know of one vault (GRANT-1, GRANT-7, GRANT-15). */
export interface GrantVaultContext {
  vault: string;
  vault_id: string;
  /** The member this device's user is in the vault (the issuer of terminal grants). */
  local_member: string;
  members: { name: string; role: 'owner' | 'admin' | 'editor' | 'reader' }[];
}

/**
 * Who writes a card: the terminal (daemon IPC) may pass a secret map; `mcp` never has one and
 * may not touch a card with secret references or write a `{{secret:` marker (MCP-12).
 */
export type CardSurface = 'terminal' | 'mcp';

export interface VaultService {
  /** No side effects; safe while locked. */
  state(): VaultServiceState;
  /** Creates the store, identity, device keys and the default vault `personal` (already_initialized if present). Leaves it unlocked. */
  init(password: string): Promise<VaultOpResults['init']>;
  unlock(password: string): Promise<void>;
  /** True if the password is the store password; for sudo (IPC-12). Never changes state. */
  verifyPassword(password: string): Promise<boolean>;
  /** Wipes keys (VAULT-19); idempotent. */
  lock(): void;
  vaultCreate(args: VaultOpArgs<'vault_create'>): VaultOpResults['vault_create'];
  write(args: VaultOpArgs<'write'>): VaultOpResults['write'];
  read(args: VaultOpArgs<'read'>): VaultOpResults['read'];
  list(args: VaultOpArgs<'list'>): VaultOpResults['list'];
  history(args: VaultOpArgs<'history'>): VaultOpResults['history'];
  diff(args: VaultOpArgs<'diff'>): VaultOpResults['diff'];
  delete(args: VaultOpArgs<'delete'>): VaultOpResults['delete'];
  resolve(args: VaultOpArgs<'resolve'>): VaultOpResults['resolve'];
  import(args: VaultOpArgs<'import'>): VaultOpResults['import'];
  backup(args: VaultOpArgs<'backup'>): Promise<VaultOpResults['backup']>;
  /** Only when no store exists yet: recovers a backup into a new identity (BAK-2..5). Leaves it unlocked. */
  restore(args: VaultOpArgs<'restore'>): Promise<VaultOpResults['restore']>;
  auditVerify(): VaultOpResults['audit_verify'];
  /**
   * The kind of an asset, also of a deleted one (throws `locked`, `not_found`). Reading a
   * `credential` is `forbidden` (CRED-1); gateways decide about `private` (MCP-8).
   */
  assetKind(vault: string | undefined, assetId: string): AssetKind;
  /**
   * Creates (no `card_id`) or updates a card. Omitted body/fields keep their value, '' clears
   * (OTP-9). `terminal`: `secrets` label → value become credential assets, every marker must name
   * a label. `mcp`: `bad_request` if `secrets` is given, the card has secret references, or the
   * new body/fields hold a `{{secret:` marker (MCP-12). Errors: not_found, bad_request, conflicted.
   */
  cardWrite(args: VaultOpArgs<'card_write'>, surface: CardSurface): VaultOpResults['card_write'];
  /** Adds (idempotent) or removes a link on `from`; both live cards of the vault (limit_reached at 256). */
  cardLink(args: VaultOpArgs<'card_link'>): VaultOpResults['card_link'];
  /** The cards around `card_id` up to `depth` (1..3) links in both directions, at most 200 nodes; a read intent. */
  cardGraph(args: VaultOpArgs<'card_graph'>): VaultOpResults['card_graph'];
  /** Cheap: the current stamp of a vault's index sources (throws `locked`, `not_found`). */
  indexStamp(vault?: string): IndexSourceStamp;
  /**
   * Read-only: the decrypted heads of every indexable asset of a vault (RAG-3: only live, not
   * conflicted; each routed through `eligibleForIndex`). Not a delivery: callers MUST commit a
   * `read` intent (`recordIntent`) before any of this text leaves the daemon (VAULT-13, RAG-22).
   */
  indexSources(vault?: string): IndexSources;
  /** The unlock generation (bumped on lock and unlock); safe while locked. */
  unlockGeneration(): number;
  /** VAULT-13 / RAG-22: commits a signed intent; throws `intent_failed` (then do not deliver) or `locked`. */
  recordIntent(kind: 'read' | 'inference', details: JsonObject): void;
  /** AUD-5 / RAG-23: an audit event (outcome, source ids). Never prompts, answers or keys. */
  recordEvent(kind: string, details: JsonObject): void;
  /** IPC-15: while unlocked, record a failed operation in the signed audit (no secrets). */
  recordFailure(op: string, code: IpcErrorCode): void;
  /** The vault's id and current members (throws `locked`, `not_found`). */
  grantContext(vault: string): GrantVaultContext;
  /** The sealed grant log, oldest first (GRANT-12: grants survive lock and restart, never in backups). */
  readGrantLog(): JsonValue[];
  /** Appends entries as rows `firstSeq`, `firstSeq + 1`, ... in one commit (`commit_failed` changes nothing). */
  appendGrantLog(entries: readonly JsonObject[], firstSeq: number): void;
  /** Replaces the whole log (compaction) in one commit; rows are renumbered from 1. */
  rewriteGrantLog(entries: readonly JsonObject[]): void;
  /** Locks, closes the database and releases the directory lock. */
  close(): void;
}
