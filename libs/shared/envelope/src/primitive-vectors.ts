import { bytesToHex, hexToBytes, utf8Encode } from '@arslan/util';
import type { EnvelopeCrypto } from './crypto-backend';
import type { VectorOutcome } from './vector-case';

/**
 * Published vectors for the primitives under the envelope, in the text formats
 * their publishers use (see vectors/README.md for where each file came from).
 */
export type PrimitiveVectorKind = 'chacha20poly1305' | 'ed25519-sign-input' | 'x25519' | 'hkdf-sha256';

/** Picks the format from the shipped file name, or undefined for a file that is no primitive vector file. */
export function primitiveVectorKind(fileName: string): PrimitiveVectorKind | undefined {
  if (/^chacha20poly1305-.*\.txt$/.test(fileName)) return 'chacha20poly1305';
  if (/^ed25519-sign\.input$/.test(fileName)) return 'ed25519-sign-input';
  if (/^x25519-.*\.txt$/.test(fileName)) return 'x25519';
  if (/^hkdf-sha256-.*\.txt$/.test(fileName)) return 'hkdf-sha256';
  return undefined;
}

type Block = Record<string, string>;

/**
 * NIST-style `NAME = value` lines; each `COUNT` line starts a vector (blank lines
 * may fall inside one, as in the RFC 5869 file); `#` lines are comments.
 */
function parseBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  let current: Block | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const eq = line.indexOf('=');
    if (line.startsWith('#') || eq < 0) continue;
    const name = line.slice(0, eq).trim().toUpperCase();
    if (name === 'COUNT') {
      current = {};
      blocks.push(current);
    }
    if (current) current[name] = line.slice(eq + 1).trim();
  }
  return blocks;
}

/** Hex, or a double-quoted ASCII string as in BoringSSL's files. */
function field(block: Block, ...names: string[]): Uint8Array {
  for (const name of names) {
    const value = block[name];
    if (value === undefined) continue;
    if (value.startsWith('"') && value.endsWith('"')) return utf8Encode(value.slice(1, -1));
    return hexToBytes(value.toLowerCase());
  }
  throw new TypeError(`vector block lacks ${names.join('/')}`);
}

function outcome(description: string, failure: string | undefined): VectorOutcome {
  return failure === undefined
    ? { description, passed: true }
    : { description, passed: false, reason: failure };
}

function checkChaCha(crypto: EnvelopeCrypto, block: Block, label: string): VectorOutcome {
  const key = field(block, 'KEY');
  const nonce = field(block, 'NONCE', 'IV');
  const aad =
    block['AD'] !== undefined || block['AAD'] !== undefined ? field(block, 'AD', 'AAD') : new Uint8Array(0);
  const plaintext = field(block, 'IN', 'PLAINTEXT');
  const ciphertext = field(block, 'CT', 'CIPHERTEXT');
  const tag = field(block, 'TAG');
  const sealed = new Uint8Array([...ciphertext, ...tag]);
  const mustFail = block['RESULT'] !== undefined;
  const opened = crypto.chacha20Poly1305Open(key, nonce, sealed, aad);
  if (mustFail) return outcome(label, opened === undefined ? undefined : 'forged tag accepted');
  if (!opened || bytesToHex(opened) !== bytesToHex(plaintext)) return outcome(label, 'decryption differs');
  const resealed = crypto.chacha20Poly1305Seal(key, nonce, plaintext, aad);
  return outcome(label, bytesToHex(resealed) === bytesToHex(sealed) ? undefined : 'encryption differs');
}

function checkX25519(crypto: EnvelopeCrypto, block: Block, label: string): VectorOutcome {
  const out = crypto.x25519SharedSecret(field(block, 'INPUT_SCALAR'), field(block, 'INPUT_U'));
  return outcome(
    label,
    bytesToHex(out) === bytesToHex(field(block, 'OUTPUT_U')) ? undefined : 'output differs',
  );
}

function checkHkdf(crypto: EnvelopeCrypto, block: Block, label: string): VectorOutcome {
  const length = Number(block['L']);
  const okm = crypto.hkdfSha256(field(block, 'IKM'), field(block, 'SALT'), field(block, 'INFO'), length);
  return outcome(label, bytesToHex(okm) === bytesToHex(field(block, 'OKM')) ? undefined : 'okm differs');
}

/** djb's sign.input: `seed||pub:pub:msg:sig||msg:` per line. */
function checkEd25519Line(crypto: EnvelopeCrypto, line: string, label: string): VectorOutcome {
  const [seedPub, pubHex, msgHex, sigMsg] = line.split(':');
  if (!seedPub || !pubHex || msgHex === undefined || !sigMsg) return outcome(label, 'unparseable line');
  const seed = hexToBytes(seedPub.slice(0, 64));
  const pub = hexToBytes(pubHex);
  const msg = hexToBytes(msgHex);
  const sig = hexToBytes(sigMsg.slice(0, 128));
  if (bytesToHex(crypto.ed25519PublicKey(seed)) !== pubHex) return outcome(label, 'public key differs');
  if (bytesToHex(crypto.ed25519Sign(seed, msg)) !== sigMsg.slice(0, 128))
    return outcome(label, 'signature differs');
  if (!crypto.ed25519Verify(pub, msg, sig)) return outcome(label, 'valid signature rejected');
  const forged = sig.slice();
  forged[0] = (forged[0] as number) ^ 1;
  return outcome(label, crypto.ed25519Verify(pub, msg, forged) ? 'forged signature accepted' : undefined);
}

/** Runs every vector of one published file against one backend. */
export function checkPrimitiveVectorFile(
  crypto: EnvelopeCrypto,
  kind: PrimitiveVectorKind,
  text: string,
): VectorOutcome[] {
  if (kind === 'ed25519-sign-input') {
    return text
      .split(/\r?\n/)
      .filter((line) => line.trim() !== '')
      .map((line, i) => checkEd25519Line(crypto, line.trim(), `ed25519 sign.input line ${i + 1}`));
  }
  const check = kind === 'chacha20poly1305' ? checkChaCha : kind === 'x25519' ? checkX25519 : checkHkdf;
  return parseBlocks(text).map((block, i) => check(crypto, block, `${kind} #${block['COUNT'] ?? i + 1}`));
}
