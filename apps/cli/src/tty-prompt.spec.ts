import { InterruptedError } from './cli-errors';
import { fakeTty } from './testing/fake-cli';
import { promptHidden } from './tty-prompt';

async function prompt(
  typed: string,
): Promise<{ value: Promise<string>; stderr: () => string; modes: boolean[] }> {
  const tty = fakeTty([typed]);
  let stderr = '';
  const value = promptHidden(tty, { write: (t: string) => (stderr += t) }, 'Password: ');
  return { value, stderr: () => stderr, modes: tty.rawModes };
}

describe('promptHidden (IPC-17 TS mapping: echo off)', () => {
  it('returns what was typed, echoes nothing, restores the terminal', async () => {
    const p = await prompt('s3cret\r');
    await expect(p.value).resolves.toBe('s3cret');
    expect(p.stderr()).toBe('Password: \n');
    expect(p.modes).toEqual([true, false]);
  });

  it('handles backspace (DEL and BS), Ctrl-U and multi-byte characters', async () => {
    await expect((await prompt('abx\u007fc\r')).value).resolves.toBe('abc');
    await expect((await prompt('abx\bc\n')).value).resolves.toBe('abc');
    await expect((await prompt('junk\u0015pw\r')).value).resolves.toBe('pw');
    await expect((await prompt('pässwörd🔑\u007f\r')).value).resolves.toBe('pässwörd');
  });

  it('ignores other control characters', async () => {
    await expect((await prompt('a\u001bb\r')).value).resolves.toBe('ab');
  });

  it('rejects on Ctrl-C', async () => {
    const p = await prompt('abc\u0003');
    await expect(p.value).rejects.toBeInstanceOf(InterruptedError);
    expect(p.modes).toEqual([true, false]);
  });
});
