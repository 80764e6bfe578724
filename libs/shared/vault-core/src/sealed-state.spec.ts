import { utf8Encode } from '@arslan/util';
import { openState, sealedValueAad, sealState } from './sealed-state';
import { flipByte, testOnlyRandom } from './test-only-support';
import { VaultFormatError } from './vault-core.errors';

const key = testOnlyRandom('master').randomBytes(32);
const label = { table: 'state', purpose: 'vault-state' } as const;

function code(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (error) {
    return error instanceof VaultFormatError ? error.code : `other: ${String(error)}`;
  }
}

describe('sealed state (VAULT-2, VAULT-3, VAULT-6, VAULT-11)', () => {
  it('VAULT-6: round trip; nonce(24) || ct || tag(16); fresh nonce each time', () => {
    const plain = utf8Encode('{"a":1}');
    const sealed = sealState(key, plain, label);
    expect(sealed).toHaveLength(24 + plain.length + 16);
    expect(openState(key, sealed, label)).toEqual(plain);
    expect(sealState(key, plain, label).subarray(0, 24)).not.toEqual(sealed.subarray(0, 24));
    expect(openState(key, sealState(key, new Uint8Array(0), label), label)).toEqual(new Uint8Array(0));
  });

  it('VAULT-2: AAD is table + purpose + format version', () => {
    expect(sealedValueAad(label)).toBe('memories/state/vault-state/v1');
    expect(sealedValueAad({ table: 'checkpoints', purpose: 'checkpoint.42' })).toBe(
      'memories/checkpoints/checkpoint.42/v1',
    );
    expect(sealedValueAad({ table: 'revisions', purpose: 'rev.000000000007' })).toBe(
      'memories/revisions/rev.000000000007/v1',
    );
  });

  it('VAULT-2/THREAT-3: a flip of every single byte is detected (tampered)', () => {
    const sealed = sealState(key, utf8Encode('state!'), label, testOnlyRandom('s'));
    for (let i = 0; i < sealed.length; i++)
      expect(code(() => openState(key, flipByte(sealed, i), label))).toBe('tampered');
  });

  it('VAULT-2: a value moved to another table or purpose, or opened with another key, is tampered', () => {
    const sealed = sealState(key, utf8Encode('state!'), label);
    expect(code(() => openState(key, sealed, { table: 'checkpoints', purpose: 'vault-state' }))).toBe(
      'tampered',
    );
    expect(code(() => openState(key, sealed, { table: 'state', purpose: 'vault-state2' }))).toBe('tampered');
    expect(code(() => openState(testOnlyRandom('other').randomBytes(32), sealed, label))).toBe('tampered');
    expect(code(() => openState(key, sealed.subarray(0, sealed.length - 1), label))).toBe('tampered');
  });

  it('malformed: key length, label, non-bytes and too-short values', () => {
    const sealed = sealState(key, utf8Encode('x'), label);
    expect(code(() => sealState(new Uint8Array(31), utf8Encode('x'), label))).toBe('malformed');
    expect(code(() => sealState(key, 'x' as unknown as Uint8Array, label))).toBe('malformed');
    for (const bad of [
      { table: 'header', purpose: 'x' },
      { table: 'state', purpose: '' },
      { table: 'state', purpose: 'a/b' },
      { table: 'state', purpose: 'UPPER' },
      { table: 'state', purpose: 'x'.repeat(65) },
      null,
    ])
      expect(code(() => openState(key, sealed, bad as never))).toBe('malformed');
    expect(code(() => openState(key, sealed.subarray(0, 39), label))).toBe('malformed');
  });
});
