import {
  createEpochKey,
  type DataKeyBinding,
  unwrapDataKey,
  unwrapEpochKey,
  wrapDataKey,
} from './epoch-keys';
import { flipByte, testOnlyRandom } from './test-only-support';
import { VaultFormatError } from './vault-core.errors';

const master = testOnlyRandom('master').randomBytes(32);

function code(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (error) {
    return error instanceof VaultFormatError ? error.code : `other: ${String(error)}`;
  }
}

describe('epoch keys (VAULT-7) and data keys (VAULT-8)', () => {
  it('VAULT-7: each epoch gets its own random key, wrapped by the master key', () => {
    const a = createEpochKey(master, 'v', 1);
    const b = createEpochKey(master, 'v', 2);
    expect(a.epochKey).not.toEqual(b.epochKey);
    expect(a.wrappedEpochKey).toHaveLength(72);
    expect(unwrapEpochKey(master, 'v', 1, a.wrappedEpochKey)).toEqual(a.epochKey);
  });

  it('VAULT-7: the wrap binds vault id and epoch; every byte flip is detected', () => {
    const { wrappedEpochKey } = createEpochKey(master, 'vault-a', 5, testOnlyRandom('e'));
    expect(code(() => unwrapEpochKey(master, 'vault-b', 5, wrappedEpochKey))).toBe('tampered');
    expect(code(() => unwrapEpochKey(master, 'vault-a', 6, wrappedEpochKey))).toBe('tampered');
    expect(
      code(() => unwrapEpochKey(testOnlyRandom('x').randomBytes(32), 'vault-a', 5, wrappedEpochKey)),
    ).toBe('tampered');
    for (let i = 0; i < wrappedEpochKey.length; i++)
      expect(code(() => unwrapEpochKey(master, 'vault-a', 5, flipByte(wrappedEpochKey, i)))).toBe('tampered');
  });

  it('VAULT-8: the data-key wrap binds vault, epoch, asset and content nonce; every byte flip is detected', () => {
    const epochKey = testOnlyRandom('ek').randomBytes(32);
    const dataKey = testOnlyRandom('dk').randomBytes(32);
    const binding: DataKeyBinding = {
      vaultId: 'v',
      epoch: 3,
      assetId: 'a',
      contentNonce: new Uint8Array(32).fill(7),
    };
    const wrapped = wrapDataKey(epochKey, dataKey, binding, testOnlyRandom('w'));
    expect(unwrapDataKey(epochKey, wrapped, binding)).toEqual(dataKey);
    for (const other of [
      { ...binding, vaultId: 'w' },
      { ...binding, epoch: 4 },
      { ...binding, assetId: 'b' },
      { ...binding, contentNonce: new Uint8Array(32).fill(8) },
    ])
      expect(code(() => unwrapDataKey(epochKey, wrapped, other))).toBe('tampered');
    for (let i = 0; i < wrapped.length; i++)
      expect(code(() => unwrapDataKey(epochKey, flipByte(wrapped, i), binding))).toBe('tampered');
  });

  it('malformed: ids, epochs and key lengths are validated', () => {
    const { wrappedEpochKey } = createEpochKey(master, 'v', 1);
    for (const [vault, epoch] of [
      ['', 1],
      ['v', -1],
      ['v', 2 ** 32],
      ['v', 1.5],
      ['x'.repeat(257), 1],
      ['\uD800', 1],
      [7, 1],
    ] as const)
      expect(code(() => unwrapEpochKey(master, vault as string, epoch, wrappedEpochKey))).toBe('malformed');
    expect(code(() => unwrapEpochKey(master, 'v', 1, wrappedEpochKey.subarray(1)))).toBe('malformed');
    expect(code(() => createEpochKey(new Uint8Array(16), 'v', 1))).toBe('malformed');
    const short = { randomBytes: () => new Uint8Array(3) };
    expect(code(() => createEpochKey(master, 'v', 1, short))).toBe('malformed');
  });
});
