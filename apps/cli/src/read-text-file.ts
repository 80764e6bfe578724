import { readFileSync } from 'node:fs';
import { UsageError } from './cli-errors';

/** Reads a UTF-8 text file; unreadable or non-UTF-8 input is a usage error prefixed with `label`. */
export function readTextFile(path: string, label: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new UsageError(`${label}: cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`${label}: not valid UTF-8`);
  }
}
