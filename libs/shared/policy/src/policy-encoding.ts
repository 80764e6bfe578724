// Canonical bytes of a policy entry. Every field is length-prefixed
// (`lp(x) = u32be(len(x)) || x`), lists carry their count, and the order of
// fields is fixed, so two different entries never share signed bytes.
//
//   tbs  = lp("arslan-policy/v1") || lp(utf8 vaultId) || lp(u32be seq)
//       || lp(prevHash 32 bytes | empty for genesis) || lp(u32be epoch)
//       || lp(list(member...)) || lp(list(revoked fp...)) || lp(signer 32 bytes)
//   member = lp(id 32 bytes) || lp(utf8 name) || lp(ascii role) || lp(list(device fp...))
//         || lp(u8 selfEnrollment: 0x01 true, 0x00 false)
//   list(x1..xn) = u32be(n) || lp(x1) || ... || lp(xn)
//   signature = Ed25519(signer identity key, tbs)
//   entry hash = SHA-256(tbs || lp(signature 64 bytes))
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes, u32be, utf8Encode } from '@arslan/util';
import {
  parsePolicyEntry,
  POLICY_DOMAIN,
  type PolicyBody,
  type PolicyEntry,
  type PolicyMember,
} from './policy-entry';

function lp(bytes: Uint8Array): Uint8Array {
  return concatBytes(u32be(bytes.length), bytes);
}

function list(items: readonly Uint8Array[]): Uint8Array {
  return concatBytes(u32be(items.length), ...items.map(lp));
}

function encodeMember(member: PolicyMember): Uint8Array {
  return concatBytes(
    lp(hexToBytes(member.id)),
    lp(utf8Encode(member.name)),
    lp(utf8Encode(member.role)),
    lp(list(member.devices.map(hexToBytes))),
    lp(Uint8Array.of(member.selfEnrollment ? 1 : 0)),
  );
}

/**
 * The bytes the signer signs. The caller passes a body that already went
 * through `parsePolicyBody`/`parsePolicyEntry` (canonical order, valid hex).
 */
export function policySigningBytes(body: PolicyBody, signer: string): Uint8Array {
  return concatBytes(
    lp(utf8Encode(POLICY_DOMAIN)),
    lp(utf8Encode(body.vaultId)),
    lp(u32be(body.seq)),
    lp(body.prevHash === null ? new Uint8Array(0) : hexToBytes(body.prevHash)),
    lp(u32be(body.epoch)),
    lp(list(body.members.map(encodeMember))),
    lp(list(body.revoked.map(hexToBytes))),
    lp(hexToBytes(signer)),
  );
}

/** SHA-256 hex over the signed bytes and the signature: what `prevHash` points to. */
export function policyEntryHashUnchecked(entry: PolicyEntry): string {
  const tbs = policySigningBytes(entry, entry.signer);
  return bytesToHex(sha256(concatBytes(tbs, lp(hexToBytes(entry.signature)))));
}

/** Validates `entry` and returns its hash (what the next entry's `prevHash` must be). */
export function policyEntryHash(entry: PolicyEntry): string {
  return policyEntryHashUnchecked(parsePolicyEntry(entry));
}
