import type { AssetKind, CardLink, CardOpResults } from './vault-ipc.cards';
import type { GrantOpResults } from './vault-ipc.grants';
// Result shapes of each vault IPC op (snake_case on the wire). The daemon returns
// exactly these; the daemon client and the CLI rely on them.

export interface VaultSummary {
  name: string;
  vault_id: string;
  device_only: boolean;
}

export interface StatusResult {
  initialized: boolean;
  unlocked: boolean;
  /** Unix ms when the unlock expires if idle (IPC-11); null when locked. */
  unlock_idle_expires_at: number | null;
  /** Whether the calling terminal (its parent process) holds sudo (IPC-12). */
  sudo: boolean;
  device_fingerprint: string | null;
  vaults: VaultSummary[];
  data_dir: string;
  pid: number;
}

export interface AssetSummary {
  asset_id: string;
  title: string;
  /** CRED-1: a credential is listed with its title and kind only. */
  kind: AssetKind;
  /** live: one head; conflicted: several heads (HIST-2); deleted: a tombstone head (HIST-4). */
  state: 'live' | 'conflicted' | 'deleted';
  heads: string[];
  updated_at: number;
}

export interface ReadResult {
  vault: string;
  asset_id: string;
  revision_id: string;
  title: string;
  body: string;
  /** Never `credential`: reading one is `forbidden` (CRED-1). */
  kind: AssetKind;
  state: 'live' | 'conflicted' | 'deleted';
  heads: string[];
  created_at: number;
  /** Cards only (MCP-11: `{{secret:label}}` markers in body and fields stay literal). */
  fields?: Record<string, string>;
  links?: CardLink[];
  /** Cards only: the labels of the card's secrets, never their values. */
  secret_labels?: string[];
}

export interface HistoryEntry {
  revision_id: string;
  parents: string[];
  tombstone: boolean;
  created_at: number;
  device_fingerprint: string;
}

/** One retrieved chunk (RAG-12): original UTF-8 byte offsets into the revision body. */
export interface RetrievedChunk {
  citation: string;
  asset_id: string;
  revision_id: string;
  chunk_id: string;
  title: string;
  text: string;
  byte_start: number;
  byte_end: number;
  score: number;
}

/** One document of a basic search: the best chunk per asset (RAG-12). */
export interface SearchHit {
  asset_id: string;
  revision_id: string;
  title: string;
  snippet: string;
  score: number;
  matching_chunks: number;
}

export interface RagStatusResult {
  vault: string;
  indexed: boolean;
  chunks: number;
  text_bytes: number;
  vector_bytes: number;
  embedder: string | null;
  cached_vaults: number;
}

export interface VaultOpResults extends CardOpResults, GrantOpResults {
  status: StatusResult;
  init: { vault: string; vault_id: string; device_fingerprint: string };
  unlock: { unlock_idle_expires_at: number };
  lock: Record<string, never>;
  sudo: { sudo_expires_at: number };
  vault_create: VaultSummary;
  vault_list: { vaults: VaultSummary[] };
  write: { vault: string; asset_id: string; revision_id: string };
  read: ReadResult;
  list: { vault: string; assets: AssetSummary[] };
  history: { vault: string; asset_id: string; revisions: HistoryEntry[] };
  /** Unified diff of title and body between two revisions of one asset. */
  diff: { vault: string; asset_id: string; from: string; to: string; diff: string };
  delete: { vault: string; asset_id: string; revision_id: string };
  resolve: { vault: string; asset_id: string; revision_id: string };
  import: { vault: string; imported: { asset_id: string; revision_id: string; title: string }[] };
  backup: { path: string; bytes: number; vaults: number; assets: number };
  restore: { vaults: VaultSummary[]; device_fingerprint: string; assets: number };
  audit_verify: { ok: boolean; entries: number; head: string | null; problem: string | null };
  shutdown: Record<string, never>;
  search: { vault: string; kind: 'lexical' | 'vector' | 'hybrid'; hits: SearchHit[] };
  retrieve: { vault: string; kind: 'lexical' | 'vector' | 'hybrid'; chunks: RetrievedChunk[] };
  rag_index: RagStatusResult;
  rag_status: RagStatusResult;
  rag_search: { vault: string; kind: 'lexical' | 'vector' | 'hybrid'; chunks: RetrievedChunk[] };
  /** `insufficient_evidence` means no chunk qualified and the model was not called (RAG-26). */
  rag_ask:
    | { vault: string; status: 'answered'; answer: string; citations: RetrievedChunk[] }
    | { vault: string; status: 'insufficient_evidence'; answer: null; citations: [] };
}
