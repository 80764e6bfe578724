import fs from 'node:fs';
import path from 'node:path';
import { fsyncDirectory, fsyncFile, publishWithoutOverwrite } from './durable-fs';
import { tempDataDir } from './test-only-support';

describe('publishWithoutOverwrite (VAULT-16)', () => {
  const dir = tempDataDir();
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('VAULT-16: publishes a synced temp file at a free target and removes the temp name', () => {
    const tmp = path.join(dir, '.new.tmp');
    const target = path.join(dir, 'free.sqlite');
    fs.writeFileSync(tmp, 'complete database');
    fsyncFile(tmp);
    fsyncDirectory(dir);
    publishWithoutOverwrite(tmp, target, dir);
    expect(fs.readFileSync(target, 'utf8')).toBe('complete database');
    expect(fs.existsSync(tmp)).toBe(false);
  });

  it('VAULT-16: never overwrites an existing target (store_exists), and still removes the temp name', () => {
    const tmp = path.join(dir, '.other.tmp');
    const target = path.join(dir, 'taken.sqlite');
    fs.writeFileSync(target, 'existing');
    fs.writeFileSync(tmp, 'replacement');
    expect(() => publishWithoutOverwrite(tmp, target, dir)).toThrow(
      expect.objectContaining({ code: 'store_exists' }),
    );
    expect(fs.readFileSync(target, 'utf8')).toBe('existing');
    expect(fs.existsSync(tmp)).toBe(false);
  });
});
