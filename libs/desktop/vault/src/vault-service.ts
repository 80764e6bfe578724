// createVaultService: the vault data ops over one VaultStore (VAULT, DEV-1/2, HIST, BAK, AUD).
// Layout of the sealed state and rows: README.md, "Vault service".
import fs from 'node:fs';
import type { AssetKind, IpcErrorCode, VaultOpArgs, VaultOpResults } from '@arslan/protocol';
import { createGenesisPolicy, verifyPolicyHistory, type PolicyEntry } from '@arslan/policy';
import { verifyAgainstPolicy } from './revision-verify';
import { bytesToHex, hexToBytes, utf8Encode, wipe } from '@arslan/util';
import {
  type DeviceCertificate,
  type PasswordKdf,
  type RandomSource,
  type RevisionRecord,
  generateUserIdentity,
  issueDeviceCertificate,
  openRevisionContent,
  systemRandom,
  ed25519PublicKey,
} from '@arslan/vault-core';
import { argon2idKdf } from './argon2-kdf';
import { forgetEd25519SigningKeys } from './node-ed25519';
import { type AssetContent, decodeContent, emptyCard, kindOfContent } from './asset-content';
import { cardDiffBody, cardIndexBody, checkMarkersResolve } from './card-content';
import { cardGraph, cardLink, cardWrite } from './card-service';
import { certificateFromJson, certificateToJson, deviceFingerprintOf } from './device-identity';
import { storePath } from './store-schema';
import { initStore } from './store-init';
import { assetText, unifiedDiff } from './text-diff';
import {
  type ServiceStateJson,
  type VaultIndex,
  DEFAULT_VAULT,
  IDENTITY_ROW,
  SERVICE_STATE_VERSION,
  asServiceState,
  findVault,
  isBootstrapped,
  legacySnapshot,
} from './vault-index';
import { type AssetIndex, AssetIndexes, assetStateOf, newestHead } from './asset-index';
import { parseRevisionRow } from './revision-rows';
import { mapErrors, mapErrorsAsync, serviceError } from './vault-service.errors';
import type {
  CardSurface,
  GrantVaultContext,
  IndexSource,
  IndexSourceStamp,
  IndexSources,
  VaultService,
  VaultServiceState,
} from './vault-service.port';
import { eligibleForIndex } from '@arslan/retrieval-node';
import type { AuditEntry } from './audit-chain';
import { type SealedRowInput, type VaultStore, openStore } from './vault-store';
import type { JsonObject, JsonValue } from './canonical-json';
import { backupVaults, restoreFromBackup } from './vault-backup';
import { type RevisionItem, appendRevisions, compactAssetIndex } from './revision-append';

export interface VaultServiceOptions {
  kdf?: PasswordKdf;
  now?: () => number;
  random?: RandomSource;
}

/** A verified, opened revision. */
export interface LoadedRevision {
  record: RevisionRecord;
  createdAt: number;
  fingerprint: string;
}

/** Per-unlock caches; epoch keys are wiped on lock (VAULT-19). */
interface Caches {
  policies: Map<string, { head: PolicyEntry; headHash: string }>;
  epochKeys: Map<string, Uint8Array>;
  certificate?: DeviceCertificate;
  /** Read-only view of the decrypted state for one state generation (frozen: never mutated). */
  state?: { store: VaultStore; generation: number; value: ServiceStateJson };
  /** The asset index, rebuilt at unlock (asset-index.ts). */
  assets?: { store: VaultStore; index: AssetIndexes; tailRows: number };
  /** `vault_id/asset_id` → kind (an asset never changes kind; filled on first use). */
  kinds?: Map<string, AssetKind>;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Owner display name in every policy this service creates. */
const OWNER_NAME = 'owner';
/** Grant log rows live in `state` under `grants.<seq, 12 digits>`: never in backups (GRANT-16). */
const GRANT_LOG_FROM = 'grants.';
const GRANT_LOG_TO = 'grants/';
function grantLogPurpose(seq: number): string {
  return `${GRANT_LOG_FROM}${String(seq).padStart(12, '0')}`;
}

function withPasswordBytes<T>(password: string, use: (bytes: Uint8Array) => Promise<T>): Promise<T> {
  if (typeof password !== 'string' || password.length === 0)
    throw serviceError('bad_request', 'password must be a non-empty string');
  const bytes = utf8Encode(password);
  return use(bytes).finally(() => wipe(bytes));
}

export function createVaultService(dataDir: string, options: VaultServiceOptions = {}): LocalVaultService {
  return new LocalVaultService(dataDir, options);
}

export class LocalVaultService implements VaultService {
  readonly dataDir: string;
  /** @internal used by vault-backup.ts */
  readonly kdf: PasswordKdf;
  /** @internal */
  readonly now: () => number;
  /** @internal */
  readonly random: RandomSource;
  private store: VaultStore | undefined;
  private caches: Caches = { policies: new Map(), epochKeys: new Map() };
  private fingerprint: string | null = null;
  /** Bumped on every lock, unlock and close (RAG-21 re-checks). */
  private unlockGen = 0;

  constructor(dataDir: string, options: VaultServiceOptions = {}) {
    this.dataDir = dataDir;
    this.kdf = options.kdf ?? argon2idKdf;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? systemRandom;
    if (fs.existsSync(storePath(dataDir))) this.store = mapErrors('open', () => this.openOwnStore());
  }

  // ---------------------------------------------------------------- lifecycle

  state(): VaultServiceState {
    const unlocked = this.store?.isUnlocked === true;
    return {
      initialized: this.store !== undefined,
      unlocked,
      deviceFingerprint: this.fingerprint,
      vaults: unlocked ? this.vaultSummaries() : [],
    };
  }

  async init(password: string): Promise<VaultOpResults['init']> {
    if (this.store || fs.existsSync(storePath(this.dataDir)))
      throw serviceError('already_initialized', 'a vault store already exists');
    return withPasswordBytes(password, (pw) =>
      mapErrorsAsync('init', async () => {
        await initStore(this.dataDir, pw, this.kdf, { random: this.random });
        this.store = this.openOwnStore();
        await this.unlockStore(pw);
        const vault = findVault(this.serviceState(), DEFAULT_VAULT);
        return {
          vault: DEFAULT_VAULT,
          vault_id: vault.vault_id,
          device_fingerprint: this.fingerprint as string,
        };
      }),
    );
  }

  async unlock(password: string): Promise<void> {
    const store = this.requireStore();
    await withPasswordBytes(password, (pw) => mapErrorsAsync('unlock', () => this.unlockStore(pw, store)));
  }

  async verifyPassword(password: string): Promise<boolean> {
    const store = this.requireStore();
    return withPasswordBytes(password, (pw) =>
      mapErrorsAsync('verify password', () => store.checkPassword(pw)),
    );
  }

  lock(): void {
    this.unlockGen++;
    this.compactIndex();
    this.store?.lock();
    this.dropCaches();
  }

  close(): void {
    this.unlockGen++;
    this.compactIndex();
    this.dropCaches();
    this.store?.close();
    this.store = undefined;
  }

  // ---------------------------------------------------------------- vaults

  vaultCreate(args: VaultOpArgs<'vault_create'>): VaultOpResults['vault_create'] {
    return mapErrors('vault_create', () => {
      const state = this.serviceState();
      if (Object.hasOwn(state.vaults, args.name))
        throw serviceError('bad_request', 'vault name already in use');
      const index = this.withUserSeed((seed) => this.newVaultIndex(seed, args.device_only === true));
      this.commit((draft) => {
        draft.vaults[args.name] = index;
      });
      return { name: args.name, vault_id: index.vault_id, device_only: index.device_only };
    });
  }

  // ---------------------------------------------------------------- assets

  write(args: VaultOpArgs<'write'>): VaultOpResults['write'] {
    return mapErrors('write', () => {
      const name = args.vault ?? DEFAULT_VAULT;
      const vault = findVault(this.serviceState(), name);
      let assetId = args.asset_id;
      let parents: string[] = [];
      let kind: AssetKind = args.kind ?? 'memory';
      if (assetId === undefined) {
        assetId = bytesToHex(this.random.randomBytes(16));
      } else {
        const asset = this.asset(vault, assetId);
        // An asset keeps its kind; cards change only through card_write (MCP-12).
        const existing = this.kindIn(vault, assetId, asset);
        if (existing === 'card') throw serviceError('bad_request', 'the asset is a card; use card_write');
        if (args.kind !== undefined && args.kind !== existing)
          throw serviceError('bad_request', `the asset is a ${existing}; its kind cannot change`);
        kind = existing;
        if (assetStateOf(asset) === 'conflicted')
          throw serviceError('conflicted', 'the asset is conflicted; use resolve');
        parents = asset.heads.map((h) => h.id);
      }
      if ((kind as string) === 'card') throw serviceError('bad_request', 'cards are written with card_write');
      const id = this.appendRevisions(name, [
        { assetId, parents, content: { kind, title: args.title, body: args.body }, tombstone: false },
      ]);
      this.rememberKind(vault, assetId, kind);
      return { vault: name, asset_id: assetId, revision_id: id[0] as string };
    });
  }

  /**
   * Lower-level write with explicit parents (what a sync merge or a second writer produces).
   * Parents must be revisions of this asset; it may create a conflict (HIST-2).
   */
  writeWithParents(args: {
    vault?: string;
    asset_id: string;
    parents: string[];
    title: string;
    body: string;
  }): VaultOpResults['write'] {
    return mapErrors('write', () => {
      const name = args.vault ?? DEFAULT_VAULT;
      const vault = findVault(this.serviceState(), name);
      for (const p of args.parents) {
        const loaded = this.loadRevision(vault, p);
        if (loaded.record.asset_id !== args.asset_id)
          throw serviceError('bad_request', 'parent of another asset');
      }
      const existing = this.assetIndex().find(vault.vault_id, args.asset_id);
      const kind = existing ? this.kindIn(vault, args.asset_id, existing) : 'memory';
      if (kind === 'card') throw serviceError('bad_request', 'the asset is a card; use card_write');
      const content = { kind, title: args.title, body: args.body };
      const id = this.appendRevisions(name, [
        { assetId: args.asset_id, parents: args.parents, content, tombstone: false },
      ]);
      this.rememberKind(vault, args.asset_id, kind);
      return { vault: name, asset_id: args.asset_id, revision_id: id[0] as string };
    });
  }

  read(args: VaultOpArgs<'read'>): VaultOpResults['read'] {
    return mapErrors('read', () => {
      const name = args.vault ?? DEFAULT_VAULT;
      const vault = findVault(this.serviceState(), name);
      const asset = this.asset(vault, args.asset_id);
      const state = assetStateOf(asset);
      let revisionId = args.revision_id;
      if (revisionId === undefined) {
        if (state === 'deleted') throw serviceError('not_found', 'the asset is deleted');
        revisionId = newestHead(asset).id;
      }
      // CRED-1: a credential's plaintext never leaves through read (only credential_copy).
      const kind = this.kindIn(vault, args.asset_id, asset);
      if (kind === 'credential') throw serviceError('forbidden', 'credentials cannot be read (CRED-1)');
      const loaded = this.loadRevision(vault, revisionId);
      if (loaded.record.asset_id !== args.asset_id) throw serviceError('not_found', 'no such revision');
      const content = this.openContent(vault, loaded.record);
      if (kindOfContent(content) === 'credential')
        throw serviceError('forbidden', 'credentials cannot be read');
      const details = { vault: name, asset_id: args.asset_id, revision_id: revisionId };
      // MCP-11: card markers stay literal; only secret labels are shown, never values.
      const card = content.kind === 'card' ? (content.card ?? emptyCard()) : undefined;
      // VAULT-13: the intent is committed before the plaintext leaves this method.
      return this.requireStore().withIntent('read', details, () => ({
        ...details,
        title: content.title,
        body: content.body,
        kind: kindOfContent(content),
        state,
        heads: asset.heads.map((h) => h.id),
        created_at: loaded.createdAt,
        ...(card
          ? {
              fields: { ...card.fields },
              links: card.links.map((l) => ({ ...l })),
              secret_labels: Object.keys(card.secrets).sort(),
            }
          : {}),
      }));
    });
  }

  list(args: VaultOpArgs<'list'>): VaultOpResults['list'] {
    return mapErrors('list', () => {
      const name = args.vault ?? DEFAULT_VAULT;
      const vault = findVault(this.serviceState(), name);
      const assets = [...this.assetIndex().assets(vault.vault_id)]
        .map(([assetId, asset]) => ({
          asset_id: assetId,
          title: newestHead(asset).title,
          kind: this.listedKind(vault, assetId, asset),
          state: assetStateOf(asset),
          heads: asset.heads.map((h) => h.id),
          updated_at: asset.updated_at,
        }))
        .filter((a) => args.include_deleted === true || a.state !== 'deleted')
        .sort((a, b) => b.updated_at - a.updated_at || (a.asset_id < b.asset_id ? -1 : 1));
      return { vault: name, assets };
    });
  }

  history(args: VaultOpArgs<'history'>): VaultOpResults['history'] {
    return mapErrors('history', () => {
      const name = args.vault ?? DEFAULT_VAULT;
      const vault = findVault(this.serviceState(), name);
      const asset = this.asset(vault, args.asset_id);
      const revisions = this.assetRevisions(vault, args.asset_id, asset).map((r) => ({
        revision_id: r.record.id,
        parents: [...r.record.parents],
        tombstone: r.record.tombstone,
        created_at: r.createdAt,
        device_fingerprint: r.fingerprint,
      }));
      revisions.sort((a, b) => a.created_at - b.created_at || (a.revision_id < b.revision_id ? -1 : 1));
      return { vault: name, asset_id: args.asset_id, revisions };
    });
  }

  diff(args: VaultOpArgs<'diff'>): VaultOpResults['diff'] {
    return mapErrors('diff', () => {
      const name = args.vault ?? DEFAULT_VAULT;
      const vault = findVault(this.serviceState(), name);
      const asset = this.asset(vault, args.asset_id);
      if (this.kindIn(vault, args.asset_id, asset) === 'credential')
        throw serviceError('forbidden', 'credentials cannot be diffed (CRED-1)');
      const [from, to] = [args.from, args.to].map((id) => {
        const loaded = this.loadRevision(vault, id);
        if (loaded.record.asset_id !== args.asset_id) throw serviceError('not_found', 'no such revision');
        const content = this.openContent(vault, loaded.record);
        if (kindOfContent(content) === 'credential')
          throw serviceError('forbidden', 'credentials cannot be diffed');
        return content.card ? { ...content, body: cardDiffBody(content.body, content.card) } : content;
      }) as [AssetContent, AssetContent];
      const details = { vault: name, asset_id: args.asset_id, from: args.from, to: args.to };
      return this.requireStore().withIntent('read', details, () => ({
        ...details,
        diff: unifiedDiff(assetText(from.title, from.body), assetText(to.title, to.body), args.from, args.to),
      }));
    });
  }

  delete(args: VaultOpArgs<'delete'>): VaultOpResults['delete'] {
    return mapErrors('delete', () => {
      const name = args.vault ?? DEFAULT_VAULT;
      const asset = this.asset(findVault(this.serviceState(), name), args.asset_id);
      const state = assetStateOf(asset);
      if (state === 'conflicted') throw serviceError('conflicted', 'the asset is conflicted; use resolve');
      if (state === 'deleted') throw serviceError('not_found', 'the asset is already deleted');
      const head = newestHead(asset);
      // The tombstone keeps the kind, so a deleted credential is still listed as one.
      const kind = this.kindIn(findVault(this.serviceState(), name), args.asset_id, asset);
      const id = this.appendRevisions(name, [
        {
          assetId: args.asset_id,
          parents: [head.id],
          content: { kind, title: '', body: '', ...(kind === 'card' ? { card: emptyCard() } : {}) },
          tombstone: true,
          indexTitle: head.title,
        },
      ]);
      return { vault: name, asset_id: args.asset_id, revision_id: id[0] as string };
    });
  }

  resolve(args: VaultOpArgs<'resolve'>): VaultOpResults['resolve'] {
    return mapErrors('resolve', () => {
      const name = args.vault ?? DEFAULT_VAULT;
      const vault = findVault(this.serviceState(), name);
      const asset = this.asset(vault, args.asset_id);
      // The resolution keeps the asset's kind; a card keeps the fields, links and secrets of its newest head.
      const kind = this.kindIn(vault, args.asset_id, asset);
      const content: AssetContent = { kind, title: args.title, body: args.body };
      if (kind === 'card') {
        content.card = this.headContent(vault, args.asset_id, asset).card ?? emptyCard();
        checkMarkersResolve(args.body, content.card);
      }
      // HIST-3: the resolution names every head this writer can see.
      const id = this.appendRevisions(name, [
        {
          assetId: args.asset_id,
          parents: asset.heads.map((h) => h.id),
          content,
          tombstone: false,
        },
      ]);
      return { vault: name, asset_id: args.asset_id, revision_id: id[0] as string };
    });
  }

  import(args: VaultOpArgs<'import'>): VaultOpResults['import'] {
    return mapErrors('import', () => {
      const name = args.vault ?? DEFAULT_VAULT;
      findVault(this.serviceState(), name);
      const items = args.items.map((item) => ({
        assetId: bytesToHex(this.random.randomBytes(16)),
        parents: [],
        content: { title: item.title, body: item.body },
        tombstone: false,
      }));
      const ids = this.appendRevisions(name, items);
      return {
        vault: name,
        imported: items.map((item, i) => ({
          asset_id: item.assetId,
          revision_id: ids[i] as string,
          title: item.content.title,
        })),
      };
    });
  }

  // ---------------------------------------------------------------- backup / audit

  async backup(args: VaultOpArgs<'backup'>): Promise<VaultOpResults['backup']> {
    this.serviceState();
    return withPasswordBytes(args.backup_password, (pw) =>
      mapErrorsAsync('backup', () => backupVaults(this, args.path, pw)),
    );
  }

  async restore(args: VaultOpArgs<'restore'>): Promise<VaultOpResults['restore']> {
    if (this.store || fs.existsSync(storePath(this.dataDir)))
      throw serviceError('already_initialized', 'restore needs an empty data directory');
    return withPasswordBytes(args.backup_password, (backupPw) =>
      withPasswordBytes(args.password, (pw) =>
        mapErrorsAsync('restore', () => restoreFromBackup(this, args.path, backupPw, pw)),
      ),
    );
  }

  auditVerify(): VaultOpResults['audit_verify'] {
    return mapErrors('audit_verify', () => {
      const result = this.requireStore().verifyAuditChain();
      if (result.ok) return { ok: true, entries: result.count, head: result.head, problem: null };
      return { ok: false, entries: Math.max(0, result.seq - 1), head: null, problem: result.problem };
    });
  }

  // ---------------------------------------------------------------- retrieval sources (RAG-3, RAG-6, RAG-21)

  unlockGeneration(): number {
    return this.unlockGen;
  }

  indexStamp(vaultName?: string): IndexSourceStamp {
    return mapErrors('index_stamp', () => {
      const name = vaultName ?? DEFAULT_VAULT;
      const vault = findVault(this.serviceState(), name);
      let revisions = 0;
      const assets = this.assetIndex().assets(vault.vault_id);
      for (const asset of assets.values()) revisions += asset.revisions;
      return {
        vault: name,
        vault_id: vault.vault_id,
        device_only: vault.device_only,
        // Revisions are insert-only, so the count grows with every write/delete/resolve/import.
        content_stamp: `${vault.epoch}:${vault.policy.length}:${assets.size}:${revisions}`,
        unlock_generation: this.unlockGen,
      };
    });
  }

  indexSources(vaultName?: string): IndexSources {
    return mapErrors('index_sources', () => {
      const stamp = this.indexStamp(vaultName);
      const vault = findVault(this.serviceState(), stamp.vault);
      const sources: IndexSource[] = [];
      let excluded = 0;
      for (const [assetId, asset] of this.assetIndex().assets(vault.vault_id)) {
        const state = assetStateOf(asset);
        // RAG-3: private memories and credentials are never indexed; a card only as its
        // marker-free text (OTP-10: `safeCard`, its secrets are separate credential assets).
        const kind = state === 'deleted' ? 'memory' : this.kindIn(vault, assetId, asset);
        const candidate = {
          kind,
          tombstone: state === 'deleted',
          conflicted: state === 'conflicted',
          quarantined: false,
          safeCard: kind === 'card',
        };
        if (!eligibleForIndex(candidate)) {
          excluded++;
          continue;
        }
        const head = newestHead(asset);
        const loaded = this.loadRevision(vault, head.id);
        if (loaded.record.asset_id !== assetId || loaded.record.tombstone) {
          excluded++;
          continue;
        }
        const content = this.openContent(vault, loaded.record);
        const contentKind = kindOfContent(content);
        if (contentKind !== 'memory' && contentKind !== 'card') {
          excluded++;
          continue;
        }
        const body = content.card ? cardIndexBody(content.body, content.card) : content.body;
        sources.push({ asset_id: assetId, revision_id: head.id, title: content.title, body });
      }
      sources.sort((a, b) => (a.asset_id < b.asset_id ? -1 : a.asset_id > b.asset_id ? 1 : 0));
      return { ...stamp, sources, excluded };
    });
  }

  // ---------------------------------------------------------------- grant log (GRANT-11/12/16)

  grantContext(vaultName: string): GrantVaultContext {
    return mapErrors('grant_context', () => {
      const vault = findVault(this.serviceState(), vaultName);
      const head = this.policyOf(vault).head;
      return {
        vault: vaultName,
        vault_id: vault.vault_id,
        local_member: OWNER_NAME,
        members: head.members.map((m) => ({ name: m.name, role: m.role })),
      };
    });
  }

  readGrantLog(): JsonValue[] {
    return mapErrors('grant_log', () => {
      this.serviceState();
      return this.requireStore()
        .readRowRange(GRANT_LOG_FROM, GRANT_LOG_TO)
        .map((row) => row.value);
    });
  }

  appendGrantLog(entries: readonly JsonObject[], firstSeq: number): void {
    mapErrors('grant_log', () => {
      this.serviceState();
      this.requireStore().appendRows(
        entries.map((value, i) => ({ purpose: grantLogPurpose(firstSeq + i), value })),
      );
    });
  }

  rewriteGrantLog(entries: readonly JsonObject[]): void {
    mapErrors('grant_log', () => {
      this.serviceState();
      this.requireStore().replaceRowRange(
        GRANT_LOG_FROM,
        GRANT_LOG_TO,
        entries.map((value, i) => ({ purpose: grantLogPurpose(i + 1), value })),
      );
    });
  }

  // ---------------------------------------------------------------- kinds and cards (CRED-1, MCP-11..13)

  assetKind(vaultName: string | undefined, assetId: string): AssetKind {
    return mapErrors('asset_kind', () => {
      const vault = findVault(this.serviceState(), vaultName);
      return this.kindIn(vault, assetId, this.asset(vault, assetId));
    });
  }

  cardWrite(args: VaultOpArgs<'card_write'>, surface: CardSurface): VaultOpResults['card_write'] {
    return mapErrors('card_write', () => cardWrite(this, args, surface));
  }

  cardLink(args: VaultOpArgs<'card_link'>): VaultOpResults['card_link'] {
    return mapErrors('card_link', () => cardLink(this, args));
  }

  cardGraph(args: VaultOpArgs<'card_graph'>): VaultOpResults['card_graph'] {
    return mapErrors('card_graph', () => cardGraph(this, args));
  }

  recordIntent(kind: 'read' | 'inference', details: JsonObject): void {
    mapErrors('intent', () => {
      this.serviceState();
      this.requireStore().recordIntent(kind, details);
    });
  }

  recordEvent(kind: string, details: JsonObject): void {
    mapErrors('audit', () => {
      this.serviceState();
      this.requireStore().recordAudit(kind, details);
    });
  }

  /** @internal (specs, diagnostics): the decrypted audit entries, oldest first. */
  auditEntries(): AuditEntry[] {
    return mapErrors('audit_entries', () => this.requireStore().auditEntries());
  }

  recordFailure(op: string, code: IpcErrorCode): void {
    const store = this.store;
    if (!store?.isUnlocked) return;
    try {
      store.recordAudit('op_failed', { op: String(op).slice(0, 64), code });
    } catch {
      // IPC-15 is best effort: a failing audit write must not mask the original error.
    }
  }

  // ---------------------------------------------------------------- internals (also used by vault-backup.ts)

  /** @internal */
  requireStore(): VaultStore {
    if (!this.store) throw serviceError('not_initialized', 'no vault store in this data directory');
    return this.store;
  }

  /** @internal the decrypted service index (throws `locked`). */
  serviceState(): ServiceStateJson {
    const store = this.requireStore();
    if (!store.isUnlocked) throw serviceError('locked', 'the vault is locked');
    // One frozen view per state generation (writes do not change the state), no copy.
    const cached = this.caches.state;
    if (cached && cached.store === store && cached.generation === store.stateGeneration) return cached.value;
    // The asset index snapshot is read once per rebuild (assetIndex), not kept in this view.
    const { asset_index: _snapshot, ...rest } = asServiceState(store.peekState() as JsonObject);
    const value = deepFreeze(rest);
    this.caches.state = { store, generation: store.stateGeneration, value };
    return value;
  }

  /** @internal the in-memory asset index (rebuilt on first use after unlock). */
  assetIndex(): AssetIndexes {
    const store = this.requireStore();
    this.serviceState();
    const cached = this.caches.assets;
    if (cached && cached.store === store) return cached.index;
    const state = asServiceState(store.peekState() as JsonObject);
    const snapshot = state.asset_index ?? legacySnapshot(state);
    const tail = store.readRevisionsAfter(snapshot?.upto ?? 0);
    // AUD-2: the rows after the snapshot must reach the checkpoint's revision count.
    const index = AssetIndexes.rebuild(snapshot, tail, store.revisionCount);
    this.caches.assets = { store, index, tailRows: tail.length };
    return index;
  }

  /** @internal revision rows opened at the last index rebuild (unlock work beyond the KDF). */
  indexTailRows(): number {
    this.assetIndex();
    return this.caches.assets?.tailRows ?? 0;
  }

  /** @internal */
  asset(vault: VaultIndex, assetId: string): AssetIndex {
    const asset = this.assetIndex().find(vault.vault_id, assetId);
    if (!asset) throw serviceError('not_found', 'no such asset');
    return asset;
  }

  /** @internal the decrypted content of an asset's newest head. */
  headContent(vault: VaultIndex, assetId: string, asset: AssetIndex): AssetContent {
    const loaded = this.loadRevision(vault, newestHead(asset).id);
    if (loaded.record.asset_id !== assetId) throw serviceError('corrupt', 'revision of another asset');
    return this.openContent(vault, loaded.record);
  }

  /** @internal an asset's kind (every head must agree; fails closed as `corrupt`), cached per unlock. */
  kindIn(vault: VaultIndex, assetId: string, asset: AssetIndex): AssetKind {
    const key = `${vault.vault_id}/${assetId}`;
    const kinds = (this.caches.kinds ??= new Map());
    const cached = kinds.get(key);
    if (cached !== undefined) return cached;
    let kind: AssetKind | undefined;
    // The index knows each head's kind (sealed with its revision row); heads from an older
    // snapshot without kinds are opened.
    if (asset.heads.every((h) => h.kind !== undefined)) {
      for (const head of asset.heads) {
        if (kind !== undefined && kind !== head.kind)
          throw serviceError('corrupt', 'heads of different kinds');
        kind = head.kind;
      }
      if (kind !== undefined) {
        kinds.set(key, kind);
        return kind;
      }
    }
    for (const head of asset.heads) {
      const loaded = this.loadRevision(vault, head.id);
      if (loaded.record.asset_id !== assetId) throw serviceError('corrupt', 'revision of another asset');
      const headKind = kindOfContent(this.openContent(vault, loaded.record));
      if (kind !== undefined && kind !== headKind) throw serviceError('corrupt', 'heads of different kinds');
      kind = headKind;
    }
    if (kind === undefined) throw serviceError('corrupt', 'asset without heads');
    kinds.set(key, kind);
    return kind;
  }

  /** @internal records the kind of an asset just written. */
  rememberKind(vault: VaultIndex, assetId: string, kind: AssetKind): void {
    (this.caches.kinds ??= new Map()).set(`${vault.vault_id}/${assetId}`, kind);
  }

  /** list: an asset whose head cannot be opened is shown as `private` (fails closed, list still works). */
  private listedKind(vault: VaultIndex, assetId: string, asset: AssetIndex): AssetKind {
    try {
      return this.kindIn(vault, assetId, asset);
    } catch {
      return 'private';
    }
  }

  /** @internal installs a freshly created store (restore). */
  adoptStore(store: VaultStore): void {
    this.store = store;
  }

  /** @internal */
  openOwnStore(): VaultStore {
    return openStore(this.dataDir, { kdf: this.kdf, random: this.random, now: this.now });
  }

  /** @internal commits a change of the service state plus extra sealed rows (one transaction). */
  commit(mutate: (draft: ServiceStateJson) => void, rows: SealedRowInput[] = []): void {
    this.requireStore().commitState(
      (draft) => {
        mutate(draft as unknown as ServiceStateJson);
      },
      { rows },
    );
  }

  /** @internal runs `use` with the user identity seed (wiped afterwards). */
  withUserSeed<T>(use: (seed: Uint8Array) => T): T {
    const row = this.requireStore().readRow(IDENTITY_ROW) as { seed?: unknown } | undefined;
    if (typeof row?.seed !== 'string') throw serviceError('corrupt', 'identity key missing');
    const seed = hexToBytes(row.seed);
    try {
      return use(seed);
    } finally {
      wipe(seed);
      forgetEd25519SigningKeys();
    }
  }

  /** @internal a new vault: random 16-byte id, policy genesis (this user Owner, this device allowed), epoch 0 key. */
  newVaultIndex(userSeed: Uint8Array, deviceOnly: boolean): VaultIndex {
    const vaultId = bytesToHex(this.random.randomBytes(16));
    const genesis = createGenesisPolicy({
      vaultId,
      owner: { name: OWNER_NAME, devices: [this.deviceFingerprint()] },
      ownerSeed: userSeed,
    });
    const created = this.requireStore().createEpochKey(vaultId, 0);
    wipe(created.epochKey);
    return {
      vault_id: vaultId,
      device_only: deviceOnly,
      created_at: this.now(),
      epoch: 0,
      epoch_keys: { '0': bytesToHex(created.wrappedEpochKey) },
      policy: [JSON.parse(JSON.stringify(genesis)) as PolicyEntry],
    };
  }

  /** @internal this device's fingerprint (policy allow-list id). */
  deviceFingerprint(): string {
    const keys = this.requireStore().devicePublicKeys();
    return deviceFingerprintOf(keys.signing, keys.exchange);
  }

  /** @internal the device certificate issued by `userSeed` (DEV-1). */
  issueCertificate(userSeed: Uint8Array): DeviceCertificate {
    const keys = this.requireStore().devicePublicKeys();
    return issueDeviceCertificate(userSeed, {
      deviceSigningKey: keys.signing,
      deviceExchangeKey: keys.exchange,
      createdAt: this.now(),
    });
  }

  /** @internal the verified policy head of a vault (cached per unlock). */
  policyOf(vault: VaultIndex): { head: PolicyEntry; headHash: string } {
    let cached = this.caches.policies.get(vault.vault_id);
    if (!cached) {
      const verified = verifyPolicyHistory(vault.policy, { expectedVaultId: vault.vault_id });
      cached = { head: verified.head, headHash: verified.headHash };
      this.caches.policies.set(vault.vault_id, cached);
    }
    return cached;
  }

  /** @internal the (cached) epoch key of a vault; wiped on lock. */
  epochKey(vault: VaultIndex, epoch: number): Uint8Array {
    const cacheKey = `${vault.vault_id}:${epoch}`;
    let key = this.caches.epochKeys.get(cacheKey);
    if (!key) {
      const wrapped = vault.epoch_keys[String(epoch)];
      if (wrapped === undefined) throw serviceError('corrupt', 'unknown epoch');
      key = this.requireStore().unwrapEpochKey(vault.vault_id, epoch, hexToBytes(wrapped));
      this.caches.epochKeys.set(cacheKey, key);
    }
    return key;
  }

  /** @internal reads one revision row and verifies it (VAULT-10, DEV-1/2, HIST-1). */
  loadRevision(vault: VaultIndex, revisionId: string): LoadedRevision {
    const value = this.requireStore().readRevision(revisionId)?.value;
    const { createdAt, record } = parseRevisionRow(value, revisionId, vault.vault_id);
    const fingerprint = verifyAgainstPolicy(record, this.policyOf(vault).head);
    return { record, createdAt, fingerprint };
  }

  /** @internal decrypts a verified revision's content. */
  openContent(vault: VaultIndex, record: RevisionRecord): AssetContent {
    const plain = openRevisionContent(record, {
      vaultId: vault.vault_id,
      epochKey: this.epochKey(vault, record.epoch),
    });
    try {
      return decodeContent(plain);
    } finally {
      wipe(plain);
    }
  }

  /** @internal every revision of an asset, walking parents from its heads. */
  assetRevisions(vault: VaultIndex, assetId: string, asset: AssetIndex): LoadedRevision[] {
    const seen = new Map<string, LoadedRevision>();
    const todo = asset.heads.map((h) => h.id);
    while (todo.length > 0) {
      const id = todo.pop() as string;
      if (seen.has(id)) continue;
      const loaded = this.loadRevision(vault, id);
      if (loaded.record.asset_id !== assetId) throw serviceError('corrupt', 'revision of another asset');
      seen.set(id, loaded);
      todo.push(...loaded.record.parents);
    }
    if (seen.size !== asset.revisions) throw serviceError('corrupt', 'asset history is incomplete');
    return [...seen.values()];
  }

  /** @internal signs and stores new revisions of one vault in ONE commit; returns their ids. */
  appendRevisions(vaultName: string, items: readonly RevisionItem[]): string[] {
    return appendRevisions(this, vaultName, items);
  }

  /** @internal */
  certificate(): DeviceCertificate {
    this.caches.certificate ??= certificateFromJson(this.serviceState().certificate);
    return this.caches.certificate;
  }

  private async unlockStore(pw: Uint8Array, store: VaultStore = this.requireStore()): Promise<void> {
    this.dropCaches();
    this.unlockGen++;
    await store.unlock(pw);
    this.unlockGen++;
    if (!isBootstrapped(store.peekState() as JsonObject)) this.bootstrap();
    this.fingerprint = this.deviceFingerprint();
    // Rebuilt here so unlock, not the first read, pays for it (snapshot + meta rows after it).
    this.assetIndex();
  }

  /**
   * @internal First unlock of a new store: user identity (new, or the recovered seed),
   * device certificate, default vault — one commit.
   */
  bootstrap(userSeed?: Uint8Array): void {
    const identity = userSeed
      ? { seed: userSeed.slice(), publicKey: ed25519PublicKey(userSeed) }
      : generateUserIdentity(this.random);
    try {
      const certificate = this.issueCertificate(identity.seed);
      const personal = this.newVaultIndex(identity.seed, false);
      this.requireStore().commitState(
        (): JsonObject =>
          ({
            service_version: SERVICE_STATE_VERSION,
            certificate: certificateToJson(certificate),
            user_key: bytesToHex(identity.publicKey),
            vaults: { [DEFAULT_VAULT]: personal },
          }) as unknown as JsonObject,
        { rows: [{ purpose: IDENTITY_ROW, value: { seed: bytesToHex(identity.seed) } }] },
      );
    } finally {
      wipe(identity.seed);
      forgetEd25519SigningKeys();
    }
    this.fingerprint = this.deviceFingerprint();
  }

  /** @internal */
  vaultSummaries(): VaultServiceState['vaults'] {
    try {
      const state = this.serviceState();
      return Object.entries(state.vaults)
        .map(([name, v]) => ({ name, vault_id: v.vault_id, device_only: v.device_only }))
        .sort((a, b) => (a.name < b.name ? -1 : 1));
    } catch {
      return [];
    }
  }

  /** Index snapshot before lock/close (revision-append.ts), only if the index is loaded. */
  private compactIndex(): void {
    const cached = this.caches.assets;
    if (this.store?.isUnlocked && cached?.store === this.store) compactAssetIndex(this);
  }

  private dropCaches(): void {
    for (const key of this.caches.epochKeys.values()) wipe(key);
    this.caches = { policies: new Map(), epochKeys: new Map() };
  }
}
