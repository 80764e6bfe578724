import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type EnvelopeCrypto,
  type EnvelopeVectorCase,
  EnvelopeError,
  nobleCrypto,
  openEnvelopeText,
  parseVectorFile,
} from '@arslan/envelope';
import { hexToBytes } from '@arslan/util';
import { nodeCrypto } from './node-crypto';

// Byte-flip fuzz: every single-byte mutation of a valid wire text must be
// rejected, and only ever with the typed EnvelopeError.

const vectors = join(__dirname, '..', '..', 'envelope', 'vectors');
const validCases = ['bridge.json', 'transfer.json', 'sealed.json']
  .flatMap((name) => parseVectorFile(readFileSync(join(vectors, name), 'utf8')))
  .filter((c): c is EnvelopeVectorCase => c.result === 'ok' && !('type' in c));

/** Deterministic PRNG (mulberry32) so a failing mutation can be replayed from its index. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fuzz(
  crypto: EnvelopeCrypto,
  mutations: number,
  seed: number,
): { accepted: number; untyped: string[]; codes: Set<string> } {
  const random = prng(seed);
  const wires = validCases.map((c) => ({
    bytes: new TextEncoder().encode(JSON.stringify(c.wire)),
    options: {
      recipientExchangePrivateKey: hexToBytes(c.recipient_x25519_private),
      acceptedSenders: c.accepted_senders.map(hexToBytes),
    },
  }));
  let accepted = 0;
  const untyped: string[] = [];
  const codes = new Set<string>();
  for (let i = 0; i < mutations; i++) {
    const target = wires[Math.floor(random() * wires.length)]!;
    const mutated = target.bytes.slice();
    const at = Math.floor(random() * mutated.length);
    // XOR with a non-zero byte: the result always differs from the original.
    mutated[at] = (mutated[at] as number) ^ (1 + Math.floor(random() * 255));
    try {
      openEnvelopeText(crypto, mutated, target.options);
      accepted++;
    } catch (error) {
      if (error instanceof EnvelopeError) codes.add(error.code);
      else untyped.push(`mutation ${i}: ${String(error)}`);
    }
  }
  return { accepted, untyped, codes };
}

describe('byte-flip fuzz', () => {
  it('the unmutated wires open (the fuzz starts from valid envelopes)', () => {
    expect(validCases.length).toBeGreaterThanOrEqual(6);
    for (const c of validCases) {
      const options = {
        recipientExchangePrivateKey: hexToBytes(c.recipient_x25519_private),
        acceptedSenders: c.accepted_senders.map(hexToBytes),
      };
      expect(openEnvelopeText(nodeCrypto, JSON.stringify(c.wire), options).profile).toBe(c.profile);
    }
  });

  it('node backend: 10,000 mutations, none accepted, only typed errors', () => {
    const result = fuzz(nodeCrypto, 10_000, 0x5eed);
    expect(result.accepted).toBe(0);
    expect(result.untyped).toEqual([]);
    expect(result.codes).toEqual(
      new Set(['malformed', 'wrong_recipient', 'unknown_sender', 'bad_signature']),
    );
  });

  it('noble backend: 2,000 mutations, none accepted, only typed errors', () => {
    const result = fuzz(nobleCrypto, 2_000, 0xf00d);
    expect(result.accepted).toBe(0);
    expect(result.untyped).toEqual([]);
  });
});
