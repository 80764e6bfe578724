import { toBase64Url } from '@arslan/util';
import { openAttachment, sealAttachment } from './attachments';
import { EnvelopeError } from './envelope.errors';
import { MAX_ATTACHMENT_BYTES } from './limits';
import { nobleCrypto } from './noble-crypto';

const file = {
  id: 'f-1',
  name: 'notes.md',
  mime: 'text/markdown',
  content: new TextEncoder().encode('# notes\n'),
};

function code(run: () => unknown): string {
  try {
    run();
    return 'ok';
  } catch (error) {
    return error instanceof EnvelopeError ? error.code : 'untyped';
  }
}

describe('attachments', () => {
  it('round-trips a file and binds it to its id', () => {
    const { descriptor, blob } = sealAttachment(nobleCrypto, file);
    expect(openAttachment(nobleCrypto, descriptor, blob)).toEqual(file.content);
    expect(code(() => openAttachment(nobleCrypto, { ...descriptor, id: 'f-2' }, blob))).toBe(
      'attachment_mismatch',
    );
  });

  it('refuses a descriptor with a missing or mistyped member', () => {
    const { descriptor, blob } = sealAttachment(nobleCrypto, file);
    const { key: _key, ...noKey } = descriptor;
    expect(code(() => openAttachment(nobleCrypto, noKey, blob))).toBe('attachment_mismatch');
    expect(code(() => openAttachment(nobleCrypto, { ...descriptor, size: '8' }, blob))).toBe(
      'attachment_mismatch',
    );
    expect(
      code(() => openAttachment(nobleCrypto, { ...descriptor, key: toBase64Url(new Uint8Array(31)) }, blob)),
    ).toBe('attachment_mismatch');
    expect(
      code(() => openAttachment(nobleCrypto, { ...descriptor, size: MAX_ATTACHMENT_BYTES + 1 }, blob)),
    ).toBe('attachment_mismatch');
  });

  it('refuses to seal a file over 20 MiB', () => {
    const big = { ...file, content: new Uint8Array(MAX_ATTACHMENT_BYTES + 1) };
    expect(code(() => sealAttachment(nobleCrypto, big))).toBe('too_large');
  });
});
