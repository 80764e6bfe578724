import { MAX_PASSWORD_CHARS } from '@arslan/protocol';
import { UsageError } from './cli-errors';
import { type StdinReader } from './stdin-reader';
import { type TextOutput, type TtyInput, promptHidden } from './tty-prompt';

export interface PasswordRequest {
  /** Prompt label, e.g. "Store password". */
  label: string;
  /** On a TTY, ask twice and compare (new passwords). */
  confirm: boolean;
}

export interface PasswordInputs {
  /** --password-stdin: one line of stdin per requested password, in order. */
  fromStdin: boolean;
  isTTY: boolean;
  stdin: Partial<TtyInput>;
  stderr: TextOutput;
  reader: StdinReader;
}

/**
 * Collects the passwords a command needs (IPC-17, THREAT-9): from a hidden TTY prompt or from
 * --password-stdin lines, never from argv or the environment. Values are never printed.
 */
export async function readPasswords(
  requests: readonly PasswordRequest[],
  inputs: PasswordInputs,
): Promise<string[]> {
  const passwords: string[] = [];
  if (inputs.fromStdin) {
    for (const [index, request] of requests.entries()) {
      const line = await inputs.reader.readLine();
      if (line === null) {
        throw new UsageError(
          `--password-stdin: expected ${requests.length} line(s) on stdin, got ${index} (missing: ${request.label})`,
        );
      }
      passwords.push(checked(line, request.label));
    }
    return passwords;
  }
  const tty = inputs.stdin;
  if (!inputs.isTTY || typeof tty.setRawMode !== 'function') {
    throw new UsageError('no terminal to ask for the password; use --password-stdin');
  }
  for (const request of requests) {
    const first = await promptHidden(tty as TtyInput, inputs.stderr, `${request.label}: `);
    checked(first, request.label);
    if (request.confirm) {
      const again = await promptHidden(tty as TtyInput, inputs.stderr, `Repeat ${lower(request.label)}: `);
      if (again !== first) throw new UsageError(`the two ${lower(request.label)}s do not match`);
    }
    passwords.push(first);
  }
  return passwords;
}

function checked(password: string, label: string): string {
  if (password.length === 0) throw new UsageError(`${label} must not be empty`);
  if (password.length > MAX_PASSWORD_CHARS) {
    throw new UsageError(`${label} is longer than ${MAX_PASSWORD_CHARS} characters`);
  }
  return password;
}

function lower(label: string): string {
  return label.charAt(0).toLowerCase() + label.slice(1);
}
