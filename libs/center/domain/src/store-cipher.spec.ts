import { StoreCipher } from './store-cipher';
import { isCenterError } from './center.errors';

describe('CTR-5 server-side store encryption', () => {
  it('round-trips, binds values to their row, and refuses a wrong store password at open', () => {
    const { cipher, file } = StoreCipher.create('correct horse battery');
    const sealed = cipher.seal('{"secret":"s3"}', 'card:v:1');
    expect(sealed).not.toContain('s3');
    expect(StoreCipher.open('correct horse battery', file).open(sealed, 'card:v:1')).toBe('{"secret":"s3"}');
    expect(() => cipher.open(sealed, 'card:v:2')).toThrow();
    try {
      StoreCipher.open('wrong password!!', file);
      throw new Error('opened');
    } catch (e) {
      expect(isCenterError(e) && e.code).toBe('store_password_invalid');
    }
  });
});
