// In-memory VaultService for the IPC specs (never exported from index.ts): counts every call,
// records overlap of write ops and the failures audited through recordFailure.
import {
  type GrantVaultContext,
  type JsonObject,
  type JsonValue,
  type IndexSourceStamp,
  type IndexSources,
  type VaultService,
  VaultServiceError,
  type VaultServiceState,
} from '@arslan/desktop-vault';
import type { AssetKind, IpcErrorCode, VaultOpArgs, VaultOpResults } from '@arslan/protocol';

const VAULTS = [{ name: 'personal', vault_id: 'v-personal', device_only: false }];
const ASSET = '0'.repeat(32);
const REVISION = 'a'.repeat(64);

export class FakeVaultService implements VaultService {
  password = 'correct horse battery';
  initialized = true;
  unlocked = false;
  /** Delay of the async ops (init, unlock, backup, restore). */
  asyncDelayMs = 0;
  readonly calls = new Map<string, number>();
  readonly audited: { op: string; code: IpcErrorCode }[] = [];
  activeWrites = 0;
  maxConcurrentWrites = 0;
  closed = false;

  count(name: string): void {
    this.calls.set(name, (this.calls.get(name) ?? 0) + 1);
  }

  callsOf(name: string): number {
    return this.calls.get(name) ?? 0;
  }

  totalCalls(): number {
    return [...this.calls.values()].reduce((a, b) => a + b, 0);
  }

  private async slowWrite<T>(name: string, run: () => T): Promise<T> {
    this.count(name);
    this.activeWrites += 1;
    this.maxConcurrentWrites = Math.max(this.maxConcurrentWrites, this.activeWrites);
    try {
      await new Promise((resolve) => setTimeout(resolve, this.asyncDelayMs));
      return run();
    } finally {
      this.activeWrites -= 1;
    }
  }

  private requireUnlocked(): void {
    if (!this.initialized) throw new VaultServiceError('not_initialized', 'no store');
    if (!this.unlocked) throw new VaultServiceError('locked', 'the vault is locked');
  }

  unlockGen = 0;
  readonly events: { kind: string; details: unknown }[] = [];

  indexStamp(vault?: string): IndexSourceStamp {
    this.count('indexStamp');
    this.requireUnlocked();
    return {
      vault: vault ?? 'personal',
      vault_id: 'v-personal',
      device_only: false,
      content_stamp: '0',
      unlock_generation: this.unlockGen,
    };
  }

  indexSources(vault?: string): IndexSources {
    return { ...this.indexStamp(vault), sources: [], excluded: 0 };
  }

  unlockGeneration(): number {
    return this.unlockGen;
  }

  recordIntent(kind: string, details: unknown): void {
    this.requireUnlocked();
    this.events.push({ kind: `intent:${kind}`, details });
  }

  recordEvent(kind: string, details: unknown): void {
    this.requireUnlocked();
    this.events.push({ kind, details });
  }

  state(): VaultServiceState {
    this.count('state');
    return {
      initialized: this.initialized,
      unlocked: this.unlocked,
      deviceFingerprint: this.initialized ? 'f'.repeat(64) : null,
      vaults: this.unlocked ? VAULTS : [],
    };
  }

  init(password: string): Promise<VaultOpResults['init']> {
    return this.slowWrite('init', () => {
      if (this.initialized) throw new VaultServiceError('already_initialized', 'store exists');
      this.initialized = true;
      this.unlocked = true;
      this.password = password;
      return { vault: 'personal', vault_id: 'v-personal', device_fingerprint: 'f'.repeat(64) };
    });
  }

  unlock(password: string): Promise<void> {
    return this.slowWrite('unlock', () => {
      if (password !== this.password) throw new VaultServiceError('bad_password', 'wrong password');
      this.unlocked = true;
    });
  }

  async verifyPassword(password: string): Promise<boolean> {
    this.count('verifyPassword');
    return password === this.password;
  }

  lock(): void {
    this.count('lock');
    this.unlocked = false;
  }

  vaultCreate(args: VaultOpArgs<'vault_create'>): VaultOpResults['vault_create'] {
    this.count('vaultCreate');
    this.requireUnlocked();
    return { name: args.name, vault_id: `v-${args.name}`, device_only: args.device_only ?? false };
  }

  write(args: VaultOpArgs<'write'>): VaultOpResults['write'] {
    this.count('write');
    this.requireUnlocked();
    return { vault: args.vault ?? 'personal', asset_id: args.asset_id ?? ASSET, revision_id: REVISION };
  }

  read(args: VaultOpArgs<'read'>): VaultOpResults['read'] {
    this.count('read');
    this.requireUnlocked();
    if (args.asset_id !== ASSET) throw new VaultServiceError('not_found', 'no such asset');
    return {
      vault: 'personal',
      asset_id: ASSET,
      revision_id: REVISION,
      title: 't',
      body: 'b',
      kind: 'memory',
      state: 'live',
      heads: [REVISION],
      created_at: 1,
    };
  }

  list(args: VaultOpArgs<'list'>): VaultOpResults['list'] {
    this.count('list');
    this.requireUnlocked();
    return { vault: args.vault ?? 'personal', assets: [] };
  }

  history(): VaultOpResults['history'] {
    this.count('history');
    throw new Error('disk exploded at /secret/path');
  }

  diff(args: VaultOpArgs<'diff'>): VaultOpResults['diff'] {
    this.count('diff');
    this.requireUnlocked();
    return { vault: 'personal', asset_id: args.asset_id, from: args.from, to: args.to, diff: '' };
  }

  delete(args: VaultOpArgs<'delete'>): VaultOpResults['delete'] {
    this.count('delete');
    this.requireUnlocked();
    return { vault: 'personal', asset_id: args.asset_id, revision_id: REVISION };
  }

  resolve(args: VaultOpArgs<'resolve'>): VaultOpResults['resolve'] {
    this.count('resolve');
    this.requireUnlocked();
    return { vault: 'personal', asset_id: args.asset_id, revision_id: REVISION };
  }

  import(args: VaultOpArgs<'import'>): VaultOpResults['import'] {
    this.count('import');
    this.requireUnlocked();
    return {
      vault: 'personal',
      imported: args.items.map((i) => ({ asset_id: ASSET, revision_id: REVISION, title: i.title })),
    };
  }

  backup(args: VaultOpArgs<'backup'>): Promise<VaultOpResults['backup']> {
    return this.slowWrite('backup', () => {
      this.requireUnlocked();
      return { path: args.path, bytes: 10, vaults: 1, assets: 0 };
    });
  }

  restore(): Promise<VaultOpResults['restore']> {
    return this.slowWrite('restore', () => ({
      vaults: VAULTS,
      device_fingerprint: 'f'.repeat(64),
      assets: 0,
    }));
  }

  auditVerify(): VaultOpResults['audit_verify'] {
    this.count('auditVerify');
    this.requireUnlocked();
    return { ok: true, entries: 1, head: null, problem: null };
  }

  readonly grantLog: JsonObject[] = [];

  grantContext(vault: string): GrantVaultContext {
    this.count('grantContext');
    this.requireUnlocked();
    const found = VAULTS.find((v) => v.name === vault);
    if (!found) throw new VaultServiceError('not_found', `no vault ${vault}`);
    return {
      vault,
      vault_id: found.vault_id,
      local_member: 'owner',
      members: [{ name: 'owner', role: 'owner' }],
    };
  }

  readGrantLog(): JsonValue[] {
    this.count('readGrantLog');
    this.requireUnlocked();
    return structuredClone(this.grantLog);
  }

  appendGrantLog(entries: readonly JsonObject[]): void {
    this.count('appendGrantLog');
    this.requireUnlocked();
    this.grantLog.push(...structuredClone(entries));
  }

  rewriteGrantLog(entries: readonly JsonObject[]): void {
    this.count('rewriteGrantLog');
    this.requireUnlocked();
    this.grantLog.splice(0, this.grantLog.length, ...structuredClone(entries));
  }

  /** Surfaces passed to cardWrite, in call order. */
  readonly cardSurfaces: string[] = [];

  assetKind(_vault: string | undefined, assetId: string): AssetKind {
    this.count('assetKind');
    this.requireUnlocked();
    if (assetId !== ASSET) throw new VaultServiceError('not_found', 'no such asset');
    return 'memory';
  }

  cardWrite(args: VaultOpArgs<'card_write'>, surface: 'terminal' | 'mcp'): VaultOpResults['card_write'] {
    this.count('cardWrite');
    this.requireUnlocked();
    this.cardSurfaces.push(surface);
    return { vault: args.vault ?? 'personal', card_id: args.card_id ?? ASSET, revision_id: REVISION };
  }

  cardLink(args: VaultOpArgs<'card_link'>): VaultOpResults['card_link'] {
    this.count('cardLink');
    this.requireUnlocked();
    const { from, to, rel } = args;
    return { vault: args.vault ?? 'personal', from, to, rel, revision_id: REVISION, changed: true };
  }

  cardGraph(args: VaultOpArgs<'card_graph'>): VaultOpResults['card_graph'] {
    this.count('cardGraph');
    this.requireUnlocked();
    return {
      vault: args.vault ?? 'personal',
      root: args.card_id,
      nodes: [{ card_id: args.card_id, title: 't', fields: {} }],
      edges: [],
      truncated: false,
    };
  }

  recordFailure(op: string, code: IpcErrorCode): void {
    this.count('recordFailure');
    this.audited.push({ op, code });
  }

  close(): void {
    this.count('close');
    this.closed = true;
    this.unlocked = false;
  }
}

export const FAKE_ASSET_ID = ASSET;
