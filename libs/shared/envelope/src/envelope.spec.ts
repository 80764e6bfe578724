import { toBase64Url, utf8Encode } from '@arslan/util';
import type { EnvelopeCrypto } from './crypto-backend';
import { generateDeviceKeys, deviceFingerprint } from './device-keys';
import { EnvelopeError } from './envelope.errors';
import { nobleCrypto } from './noble-crypto';
import { openEnvelope, openEnvelopeText } from './open';
import { buildPlaintext } from './plaintext';
import type { EnvelopeProfile } from './profiles';
import { sealEnvelope } from './seal';

const sender = generateDeviceKeys(nobleCrypto);
const recipient = generateDeviceKeys(nobleCrypto);
const HEADERS: Record<EnvelopeProfile, string[]> = {
  bridge: ['event', sender.fingerprint, recipient.fingerprint, '7', '1', '1767225600000'],
  transfer: [sender.fingerprint, recipient.fingerprint, 'vault-1', 'pairing', '1767225600000'],
  sealed: ['card-1', 'rev-1', sender.fingerprint, recipient.fingerprint, '1767225600000'],
};
const openOptions = {
  recipientExchangePrivateKey: recipient.exchangePrivateKey,
  acceptedSenders: [sender.signingPublicKey],
};

function sealFor(profile: EnvelopeProfile, body = {}) {
  const header = HEADERS[profile];
  return sealEnvelope(nobleCrypto, {
    profile,
    header,
    plaintext: buildPlaintext(profile, header, body),
    senderSigningSeed: sender.signingSeed,
    recipientExchangePublicKey: recipient.exchangePublicKey,
  });
}

function codeOf(run: () => unknown): string {
  try {
    run();
    return 'ok';
  } catch (error) {
    expect(error).toBeInstanceOf(EnvelopeError);
    return (error as EnvelopeError).code;
  }
}

/** Wraps a backend and counts calls, to prove what runs before any cryptography. */
function countingCrypto(): { crypto: EnvelopeCrypto; calls: string[] } {
  const calls: string[] = [];
  const crypto = Object.fromEntries(
    Object.entries(nobleCrypto).map(([name, value]) => [
      name,
      typeof value === 'function'
        ? (...args: unknown[]) => {
            calls.push(name);
            return (value as (...a: unknown[]) => unknown)(...args);
          }
        : value,
    ]),
  ) as unknown as EnvelopeCrypto;
  return { crypto, calls };
}

describe('envelope seal/open (noble backend)', () => {
  it.each(['bridge', 'transfer', 'sealed'] as const)('round-trips the %s profile', (profile) => {
    const wire = sealFor(profile, { text: 'こんにちは 🌏' });
    expect(Object.keys(wire)).toEqual(['v', 'p', 'h', 's', 'r', 'e', 'c', 'g']);
    const opened = openEnvelope(nobleCrypto, wire, openOptions);
    expect(opened.profile).toBe(profile);
    expect(opened.header).toEqual(HEADERS[profile]);
    expect(opened.message['text']).toBe('こんにちは 🌏');
    expect(opened.sender).toEqual(sender.signingPublicKey);
  });

  it('uses a fresh ephemeral key for every envelope', () => {
    const a = sealFor('bridge');
    const b = sealFor('bridge');
    expect(a.e).not.toBe(b.e);
    expect(a.c).not.toBe(b.c);
  });

  it('opens wire text and bytes, and refuses invalid UTF-8 or JSON as malformed', () => {
    const text = JSON.stringify(sealFor('transfer'));
    expect(openEnvelopeText(nobleCrypto, text, openOptions).profile).toBe('transfer');
    expect(openEnvelopeText(nobleCrypto, utf8Encode(text), openOptions).profile).toBe('transfer');
    expect(codeOf(() => openEnvelopeText(nobleCrypto, new Uint8Array([0x7b, 0xff]), openOptions))).toBe(
      'malformed',
    );
    expect(codeOf(() => openEnvelopeText(nobleCrypto, '{"v":1', openOptions))).toBe('malformed');
  });

  it('checks the recipient before the sender, and the sender before the signature', () => {
    const wire = sealFor('bridge');
    const stranger = generateDeviceKeys(nobleCrypto);
    const badSig = { ...wire, g: toBase64Url(new Uint8Array(64)) };
    expect(
      codeOf(() =>
        openEnvelope(nobleCrypto, badSig, {
          ...openOptions,
          recipientExchangePrivateKey: stranger.exchangePrivateKey,
        }),
      ),
    ).toBe('wrong_recipient');
    expect(codeOf(() => openEnvelope(nobleCrypto, badSig, { ...openOptions, acceptedSenders: [] }))).toBe(
      'unknown_sender',
    );
    expect(codeOf(() => openEnvelope(nobleCrypto, badSig, openOptions))).toBe('bad_signature');
  });

  it('enforces the size limit before any cryptography', () => {
    const big = sealEnvelope(nobleCrypto, {
      profile: 'bridge',
      header: HEADERS.bridge,
      plaintext: buildPlaintext('bridge', HEADERS.bridge, { pad: 'x'.repeat(5000) }),
      senderSigningSeed: sender.signingSeed,
      recipientExchangePublicKey: recipient.exchangePublicKey,
    });
    const { crypto, calls } = countingCrypto();
    expect(codeOf(() => openEnvelope(crypto, big, { ...openOptions, maxCiphertextBytes: 4096 }))).toBe(
      'too_large',
    );
    expect(codeOf(() => openEnvelopeText(crypto, 'x'.repeat(3 * 1024 * 1024), openOptions))).toBe(
      'too_large',
    );
    expect(codeOf(() => openEnvelope(crypto, { ...big, v: 2 }, openOptions))).toBe('malformed');
    expect(calls).toEqual([]);
    expect(
      openEnvelope(crypto, big, { ...openOptions, maxCiphertextBytes: 8192 }).message['pad'],
    ).toHaveLength(5000);
  });

  it('refuses to seal what the receiver would reject', () => {
    const base = {
      profile: 'bridge' as const,
      header: HEADERS.bridge,
      senderSigningSeed: sender.signingSeed,
      recipientExchangePublicKey: recipient.exchangePublicKey,
    };
    expect(codeOf(() => sealEnvelope(nobleCrypto, { ...base, plaintext: '{"header":{}}' }))).toBe(
      'header_mismatch',
    );
    expect(
      codeOf(() => sealEnvelope(nobleCrypto, { ...base, header: HEADERS.bridge.slice(1), plaintext: '{}' })),
    ).toBe('malformed');
    expect(
      codeOf(() =>
        sealEnvelope(nobleCrypto, {
          ...base,
          plaintext: buildPlaintext('bridge', HEADERS.bridge, { p: 'x'.repeat(2000) }),
          maxCiphertextBytes: 1024,
        }),
      ),
    ).toBe('too_large');
    expect(
      codeOf(() =>
        sealEnvelope(nobleCrypto, {
          ...base,
          recipientExchangePublicKey: new Uint8Array(32),
          plaintext: buildPlaintext('bridge', HEADERS.bridge),
        }),
      ),
    ).toBe('low_order_key');
    expect(
      codeOf(() =>
        sealEnvelope(nobleCrypto, {
          ...base,
          header: [...HEADERS.bridge.slice(0, 5), '\ud800'],
          plaintext: '{}',
        }),
      ),
    ).toBe('malformed');
  });

  it('asserts key types and lengths at every entry point with TypeError', () => {
    const wire = sealFor('bridge');
    expect(() =>
      openEnvelope(nobleCrypto, wire, { ...openOptions, recipientExchangePrivateKey: new Uint8Array(31) }),
    ).toThrow(TypeError);
    expect(() =>
      openEnvelope(nobleCrypto, wire, { ...openOptions, acceptedSenders: ['abc' as unknown as Uint8Array] }),
    ).toThrow(TypeError);
    expect(() =>
      sealEnvelope(nobleCrypto, {
        profile: 'bridge',
        header: HEADERS.bridge,
        plaintext: '{}',
        senderSigningSeed: new Uint8Array(33),
        recipientExchangePublicKey: recipient.exchangePublicKey,
      }),
    ).toThrow(TypeError);
    expect(() => deviceFingerprint(nobleCrypto, new Uint8Array(32), new Uint8Array(16))).toThrow(TypeError);
  });

  it('rejects a lone surrogate in a header value (its UTF-8 form would be ambiguous)', () => {
    const wire = sealFor('bridge');
    const tampered = { ...wire, h: [...wire.h.slice(0, 5), '\udc00'] };
    expect(codeOf(() => openEnvelope(nobleCrypto, tampered, openOptions))).toBe('malformed');
  });

  it('computes the device fingerprint as 64 hex characters over both public keys', () => {
    expect(sender.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(deviceFingerprint(nobleCrypto, sender.signingPublicKey, recipient.exchangePublicKey)).not.toBe(
      sender.fingerprint,
    );
  });

  it('error messages never carry key or plaintext bytes', () => {
    const wire = sealFor('bridge', { secret: 'hunter2-secret' });
    for (const run of [
      () => openEnvelope(nobleCrypto, { ...wire, c: wire.c.slice(0, -2) + 'AA' }, openOptions),
      () => openEnvelope(nobleCrypto, { ...wire, s: 'x' }, openOptions),
    ]) {
      let caught: unknown;
      try {
        run();
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(EnvelopeError);
      const text = `${(caught as Error).message} ${(caught as EnvelopeError).detail ?? ''}`;
      expect(text).not.toContain('hunter2');
      expect(text).not.toContain(wire.s);
      expect(text).not.toContain(wire.c.slice(0, 20));
    }
  });
});
