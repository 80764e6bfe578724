import { aeadSeal } from './aead';
import { chunkCount, decryptContent, encryptContent, type ChunkBinding } from './content-chunks';
import { CHUNK_SIZE } from './format-constants';
import { chunkAad } from './key-binding';
import { flipByte, testOnlyRandom } from './test-only-support';
import { constantTimeEqual, utf8Encode } from '@arslan/util';
import { VaultFormatError } from './vault-core.errors';

const key = testOnlyRandom('data-key').randomBytes(32);
const binding: ChunkBinding = { vaultId: 'v', assetId: 'a', contentNonce: new Uint8Array(32).fill(1) };
const big = testOnlyRandom('content').randomBytes(2 * CHUNK_SIZE);

function code(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (error) {
    return error instanceof VaultFormatError ? error.code : `other: ${String(error)}`;
  }
}

describe('content chunks (VAULT-9)', () => {
  const two = encryptContent(key, big, binding);

  it('VAULT-9: splits into 256 KiB chunks; round trips at the boundaries', () => {
    expect(CHUNK_SIZE).toBe(262144);
    expect([0, 1, CHUNK_SIZE, CHUNK_SIZE + 1, 2 * CHUNK_SIZE].map(chunkCount)).toEqual([1, 1, 1, 2, 2]);
    for (const n of [0, 1, CHUNK_SIZE - 1, CHUNK_SIZE, CHUNK_SIZE + 1]) {
      const content = big.subarray(0, n);
      const chunks = encryptContent(key, content, binding);
      expect(chunks).toHaveLength(chunkCount(n));
      expect(constantTimeEqual(decryptContent(key, chunks, binding), content)).toBe(true);
    }
    expect(two.map((c) => c.length)).toEqual([CHUNK_SIZE + 40, CHUNK_SIZE + 40]);
    expect(constantTimeEqual(decryptContent(key, two, binding), big)).toBe(true);
  });

  it('VAULT-9: empty content is exactly one empty chunk', () => {
    const chunks = encryptContent(key, new Uint8Array(0), binding);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toHaveLength(40);
  });

  it('VAULT-9: reordering chunks fails', () => {
    expect(code(() => decryptContent(key, [two[1]!, two[0]!], binding))).toBe('tampered');
  });

  it('VAULT-9: dropping a chunk fails (first or last)', () => {
    expect(code(() => decryptContent(key, [two[0]!], binding))).toBe('tampered');
    expect(code(() => decryptContent(key, [two[1]!], binding))).toBe('tampered');
  });

  it('VAULT-9: duplicating or appending a chunk fails', () => {
    expect(code(() => decryptContent(key, [two[0]!, two[0]!], binding))).toBe('tampered');
    expect(code(() => decryptContent(key, [...two, two[1]!], binding))).toBe('tampered');
    const extra = encryptContent(key, big.subarray(0, 10), binding);
    expect(code(() => decryptContent(key, [...two, extra[0]!], binding))).toBe('tampered');
  });

  it('VAULT-9: chunks are bound to vault, asset and content nonce, and to the data key', () => {
    const chunks = encryptContent(key, utf8Encode('x'), binding);
    expect(code(() => decryptContent(key, chunks, { ...binding, vaultId: 'w' }))).toBe('tampered');
    expect(code(() => decryptContent(key, chunks, { ...binding, assetId: 'b' }))).toBe('tampered');
    expect(code(() => decryptContent(key, chunks, { ...binding, contentNonce: new Uint8Array(32) }))).toBe(
      'tampered',
    );
    expect(code(() => decryptContent(testOnlyRandom('k2').randomBytes(32), chunks, binding))).toBe(
      'tampered',
    );
  });

  it('THREAT-3: a flip of every byte of a small chunk is detected', () => {
    const [chunk] = encryptContent(key, utf8Encode('small value'), binding, testOnlyRandom('n'));
    for (let i = 0; i < chunk!.length; i++)
      expect(code(() => decryptContent(key, [flipByte(chunk!, i)], binding))).toBe('tampered');
  });

  it('malformed: no chunks, short or oversized chunks, non-canonical split', () => {
    expect(code(() => decryptContent(key, [], binding))).toBe('malformed');
    expect(code(() => decryptContent(key, [new Uint8Array(39)], binding))).toBe('malformed');
    expect(code(() => decryptContent(key, [new Uint8Array(CHUNK_SIZE + 41)], binding))).toBe('malformed');
    expect(code(() => decryptContent(key, ['x' as unknown as Uint8Array], binding))).toBe('malformed');
    // Validly sealed, but a short first chunk: the split is not canonical.
    const ids = [utf8Encode('v'), utf8Encode('a'), binding.contentNonce] as const;
    const rnd = testOnlyRandom('nc');
    const odd = [
      aeadSeal(key, utf8Encode('short'), chunkAad(...ids, 0, 2), rnd),
      aeadSeal(key, utf8Encode('tail'), chunkAad(...ids, 1, 2), rnd),
    ];
    expect(code(() => decryptContent(key, odd, binding))).toBe('malformed');
    const emptyLast = [two[0]!, aeadSeal(key, new Uint8Array(0), chunkAad(...ids, 1, 2), rnd)];
    expect(code(() => decryptContent(key, [two[0]!, two[1]!], binding))).toBe('ok');
    expect(code(() => decryptContent(key, emptyLast, binding))).toBe('malformed');
    expect(code(() => encryptContent(new Uint8Array(31), big, binding))).toBe('malformed');
    expect(code(() => encryptContent(key, big, { ...binding, contentNonce: new Uint8Array(31) }))).toBe(
      'malformed',
    );
  });
});
