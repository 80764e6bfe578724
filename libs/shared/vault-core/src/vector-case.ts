// The schema of vectors/*.json and the one checker every implementation runs (vectors/README.md).
import { constantTimeEqual, fromBase64UrlStrict, hexToBytes, utf8Encode } from '@arslan/util';
import { unwrapEpochKey } from './epoch-keys';
import { unlockKeyring } from './keyring';
import type { PasswordKdf } from './ports';
import { readRevision } from './revision';
import { decodeRevisionRow } from './revision-binary';
import { parseRevisionJson, revisionToJson } from './revision-json';
import { openState, type SealedTable } from './sealed-state';
import { isVaultFormatError, type VaultFormatErrorCode } from './vault-core.errors';

export type VectorResult = 'ok' | VaultFormatErrorCode;

export interface KeyringVectorCase {
  type: 'keyring';
  description: string;
  /** Which PasswordKdf made the header: 'test-only-hkdf-sha256' (NOT Argon2id) in shipped files. */
  kdf: string;
  /** UTF-8 password. */
  password: string;
  header: unknown;
  result: VectorResult;
  /** hex; only when result is ok. */
  master_key?: string;
}

export interface SealedStateVectorCase {
  type: 'sealed_state';
  description: string;
  master_key: string;
  table: SealedTable;
  purpose: string;
  /** base64url of nonce || ciphertext || tag. */
  sealed: string;
  result: VectorResult;
  /** base64url; only when result is ok. */
  plaintext?: string;
}

export interface EpochKeyVectorCase {
  type: 'epoch_key';
  description: string;
  master_key: string;
  vault_id: string;
  epoch: number;
  wrapped_epoch_key: string;
  result: VectorResult;
  epoch_key?: string;
}

export interface RevisionVectorCase {
  type: 'revision';
  description: string;
  vault_id: string;
  epoch_key: string;
  /** The vault policy's device allowlist (device signing keys, hex). */
  allowed_devices: string[];
  revision: unknown;
  result: VectorResult;
  /** base64url; only when result is ok. */
  content?: string;
}

/**
 * A sealed revision row (AAD `memories/revisions/rev.<seq, 12 digits>/v1`): opened, decoded
 * (binary row layout), then the revision is verified and its content opened.
 */
export interface RevisionRowVectorCase {
  type: 'revision_row';
  description: string;
  master_key: string;
  seq: number;
  /** base64url of nonce || ciphertext || tag. */
  sealed: string;
  epoch_key: string;
  allowed_devices: string[];
  result: VectorResult;
  /** Only when result is ok: the decoded row, its revision in the JSON form. */
  row?: { vault_id: string; created_at: number; title: string; kind: string; revision: unknown };
  /** base64url; only when result is ok. */
  content?: string;
}

export type VaultVectorCase =
  KeyringVectorCase | SealedStateVectorCase | EpochKeyVectorCase | RevisionVectorCase | RevisionRowVectorCase;

/** The AAD purpose of revision row `seq` (as the desktop store numbers them). */
export function revisionRowPurpose(seq: number): string {
  return `rev.${String(seq).padStart(12, '0')}`;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export interface VaultVectorOutcome {
  description: string;
  passed: boolean;
  reason?: string;
}

function bytesMatch(actual: Uint8Array, expected: string | undefined, encoding: 'hex' | 'b64'): boolean {
  if (expected === undefined) return false;
  const want = encoding === 'hex' ? hexToBytes(expected) : fromBase64UrlStrict(expected);
  return want !== undefined && constantTimeEqual(actual, want);
}

async function run(kdf: PasswordKdf, c: VaultVectorCase): Promise<boolean> {
  switch (c.type) {
    case 'keyring': {
      const key = await unlockKeyring(kdf, utf8Encode(c.password), c.header);
      return bytesMatch(key, c.master_key, 'hex');
    }
    case 'sealed_state': {
      const sealed = fromBase64UrlStrict(c.sealed) ?? new Uint8Array(0);
      const plain = openState(hexToBytes(c.master_key), sealed, { table: c.table, purpose: c.purpose });
      return bytesMatch(plain, c.plaintext, 'b64');
    }
    case 'epoch_key': {
      const wrapped = fromBase64UrlStrict(c.wrapped_epoch_key) ?? new Uint8Array(0);
      const key = unwrapEpochKey(hexToBytes(c.master_key), c.vault_id, c.epoch, wrapped);
      return bytesMatch(key, c.epoch_key, 'hex');
    }
    case 'revision': {
      const allowed = new Set(c.allowed_devices);
      const content = readRevision(parseRevisionJson(c.revision), {
        vaultId: c.vault_id,
        epochKey: hexToBytes(c.epoch_key),
        isDeviceAllowed: (device) => allowed.has(device),
      });
      return bytesMatch(content, c.content, 'b64');
    }
    case 'revision_row': {
      const sealed = fromBase64UrlStrict(c.sealed) ?? new Uint8Array(0);
      const plain = openState(hexToBytes(c.master_key), sealed, {
        table: 'revisions',
        purpose: revisionRowPurpose(c.seq),
      });
      const row = decodeRevisionRow(plain);
      const allowed = new Set(c.allowed_devices);
      const content = readRevision(row.revision, {
        vaultId: row.vault_id,
        epochKey: hexToBytes(c.epoch_key),
        isDeviceAllowed: (device) => allowed.has(device),
      });
      const decoded = { ...row, revision: revisionToJson(row.revision) };
      return sameJson(decoded, c.row) && bytesMatch(content, c.content, 'b64');
    }
    default:
      return false;
  }
}

/** Passes when the case's outcome (ok with the expected bytes, or the exact error code) is reproduced. */
export async function checkVaultVectorCase(
  kdf: PasswordKdf,
  c: VaultVectorCase,
): Promise<VaultVectorOutcome> {
  const description = String(c?.description);
  try {
    const matched = await run(kdf, c);
    if (c.result !== 'ok') return { description, passed: false, reason: `expected ${c.result}, got ok` };
    return matched ? { description, passed: true } : { description, passed: false, reason: 'output differs' };
  } catch (error) {
    if (!isVaultFormatError(error))
      return { description, passed: false, reason: `unexpected ${String(error)}` };
    if (error.code === c.result) return { description, passed: true };
    return { description, passed: false, reason: `expected ${c.result}, got ${error.code}` };
  }
}

/** Parses one vector file (a JSON array of cases); shape beyond `type` is checked by the runner. */
export function parseVaultVectorFile(text: string): VaultVectorCase[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) throw new TypeError('vector file must be a JSON array');
  for (const c of parsed)
    if (
      typeof c !== 'object' ||
      c === null ||
      !['keyring', 'sealed_state', 'epoch_key', 'revision', 'revision_row'].includes(c.type)
    )
      throw new TypeError('vector case has an unknown type');
  return parsed as VaultVectorCase[];
}
