import { InterruptedError } from './cli-errors';

/** The parts of a TTY stdin the prompt needs (a fake in tests). */
export interface TtyInput {
  setRawMode(mode: boolean): unknown;
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  removeListener(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

export interface TextOutput {
  write(text: string): unknown;
}

const CTRL_C = '\u0003';
const CTRL_D = '\u0004';
const BACKSPACE = ['\u007f', '\b'];
const CTRL_U = '\u0015';

/**
 * Reads one secret with echo off (raw mode): the prompt goes to stderr, nothing typed is
 * echoed; Enter finishes, Backspace deletes one character, Ctrl-U clears, Ctrl-C aborts.
 */
export function promptHidden(input: TtyInput, stderr: TextOutput, prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chars: string[] = [];
    stderr.write(prompt);
    input.setRawMode(true);
    const finish = (error: Error | null): void => {
      input.removeListener('data', onData);
      input.setRawMode(false);
      input.pause();
      stderr.write('\n');
      if (error) reject(error);
      else resolve(chars.join(''));
    };
    const onData = (chunk: Buffer | string): void => {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      for (const ch of text) {
        if (ch === CTRL_C) return finish(new InterruptedError());
        if (ch === '\r' || ch === '\n' || (ch === CTRL_D && chars.length === 0)) return finish(null);
        if (BACKSPACE.includes(ch)) chars.pop();
        else if (ch === CTRL_U) chars.length = 0;
        else if (ch >= ' ') chars.push(ch);
      }
    };
    input.on('data', onData);
    input.resume();
  });
}
