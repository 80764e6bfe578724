// The agent's `recall` tool over the daemon's own vault retrieval (KNOW-04). It is the same RAG
// path the vault IPC `retrieve` op uses, so index eligibility (RAG-3: no private memories, no
// credentials, no deleted or conflicted assets), the lock checks (RAG-6/21) and the audit
// (VAULT-13 read intent + RAG-23 `rag.result`) all come from there and are not re-implemented.
// Which vault: only the one `[agent] recall_vault` names (KNOW-05: retrieval runs only where a
// collection is linked); the model cannot pick another one.
import type { RecallHit, RecallPort } from '@arslan/desktop-agent';
import type { VaultService } from '@arslan/desktop-vault';
import type { RagService } from '@arslan/vault-rag';

export interface VaultRecallOptions {
  service: Pick<VaultService, 'indexStamp'>;
  rag: Pick<RagService, 'retrieve'>;
  vault: string;
  /** The agent's model endpoint stays on this machine (loopback); EGRESS-11 needs it for device-only vaults. */
  modelOnDevice: boolean;
}

/** A failed recall: the message is what the model (and the trajectory) sees. Never vault text. */
export class RecallError extends Error {
  constructor(
    readonly code: 'locked' | 'no_vault' | 'device_only' | 'stale' | 'failed',
    message: string,
  ) {
    super(message);
    this.name = 'RecallError';
  }
}

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1']);

/** True for http(s) URLs on 127.0.0.0/8, ::1 or localhost. */
export function isLoopbackUrl(raw: string): boolean {
  let host: string;
  try {
    host = new URL(raw).hostname.toLowerCase();
  } catch {
    return false;
  }
  return LOOPBACK_HOSTS.has(host) || /^127(?:\.\d{1,3}){3}$/.test(host);
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function mapped(error: unknown, vault: string): RecallError {
  switch (codeOf(error)) {
    case 'locked':
      return new RecallError(
        'locked',
        'the vault is locked; the user must unlock it before it can be searched',
      );
    case 'not_found':
      return new RecallError('no_vault', `there is no vault named "${vault}"`);
    case 'stale':
      return new RecallError('stale', 'the vault changed during the search; try again');
    default:
      return new RecallError('failed', 'the vault search failed');
  }
}

export function createVaultRecall(options: VaultRecallOptions): RecallPort {
  const { service, rag, vault, modelOnDevice } = options;
  return {
    async retrieve(query: string, limit: number): Promise<RecallHit[]> {
      let deviceOnly: boolean;
      try {
        deviceOnly = service.indexStamp(vault).device_only;
      } catch (error) {
        throw mapped(error, vault);
      }
      // EGRESS-11: a device-only vault's text must not reach a model off this device; refused
      // before retrieval, so nothing is read or audited as delivered.
      if (deviceOnly && !modelOnDevice) {
        throw new RecallError(
          'device_only',
          `the vault "${vault}" is device-only and the model is not on this device`,
        );
      }
      try {
        const result = await rag.retrieve('retrieve', { vault, query, limit });
        return result.chunks.map((chunk) => ({
          citation: chunk.citation,
          title: chunk.title,
          text: chunk.text,
          assetId: chunk.asset_id,
          revisionId: chunk.revision_id,
        }));
      } catch (error) {
        throw mapped(error, vault);
      }
    },
  };
}
