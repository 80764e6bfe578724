import { StoreCipher } from './store-cipher';
import { isCenterError } from './center.errors';

describe('CTR-5 server-side store encryption', () => {
  it('round-trips, binds values to their row, and refuses a wrong store password at open', () => {
    const { cipher, file } = StoreCipher.create('correct horse battery');
    // A long marker: a short one ('s3') appears by chance in random base64 ciphertext.
    const plaintext = '{"secret":"MARKER-plaintext-must-not-survive"}';
    const sealed = cipher.seal(plaintext, 'card:v:1');
    expect(sealed).not.toContain('MARKER-plaintext');
    expect(Buffer.from(sealed, 'base64url').toString('latin1')).not.toContain('MARKER-plaintext');
    expect(StoreCipher.open('correct horse battery', file).open(sealed, 'card:v:1')).toBe(plaintext);
    expect(() => cipher.open(sealed, 'card:v:2')).toThrow();
    try {
      StoreCipher.open('wrong password!!', file);
      throw new Error('opened');
    } catch (e) {
      expect(isCenterError(e) && e.code).toBe('store_password_invalid');
    }
  });
});
