import { UsageError } from './cli-errors';
import { COMMAND_GROUPS, type CommandSpec, FLAG_TYPES, GLOBAL_FLAGS, findCommand } from './command-specs';

export interface GlobalOptions {
  data?: string;
  config?: string;
  json: boolean;
  help: boolean;
}

export interface ParsedArgs {
  global: GlobalOptions;
  /** Undefined only with --help and no command. */
  command?: CommandSpec;
  positionals: Record<string, string>;
  flags: Record<string, string | boolean | string[]>;
}

const PASSWORD_LIKE = /pass|pwd|secret|phrase/i;

/** Flags that look like passwords but carry none: `--secret LABEL` names a secret whose value is prompted. */
const NOT_PASSWORDS = ['password-stdin', 'secret'];

/** IPC-17 / THREAT-9: a password never comes from argv; any such flag is refused by name. */
function refusePasswordFlag(name: string): void {
  if (!NOT_PASSWORDS.includes(name) && PASSWORD_LIKE.test(name)) {
    throw new UsageError(
      `--${name} is not accepted: passwords are never taken from the command line; ` +
        'answer the prompt, or use --password-stdin',
    );
  }
}

/** Whether argv asks for JSON output; used to format errors raised while parsing. */
export function wantsJson(argv: readonly string[]): boolean {
  return argv.includes('--json');
}

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const words: string[] = [];
  const flags: Record<string, string | boolean | string[]> = {};
  let onlyPositionals = false;
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    if (onlyPositionals || token === '-' || !token.startsWith('-')) {
      words.push(token);
      continue;
    }
    if (token === '--') {
      onlyPositionals = true;
      continue;
    }
    if (token === '-h') {
      flags['help'] = true;
      continue;
    }
    if (!token.startsWith('--')) {
      if (token === '-p') refusePasswordFlag('password');
      refusePasswordFlag(token.slice(1));
      throw new UsageError(`unknown option ${token}`);
    }
    const eq = token.indexOf('=');
    const name = eq === -1 ? token.slice(2) : token.slice(2, eq);
    refusePasswordFlag(name);
    if (name === 'center-ticket' || name === 'ticket')
      throw new UsageError(
        `--${name} is not accepted: Center tickets are never taken from the command line; ` +
          'use --center-ticket-file FILE or --center-ticket-env VAR',
      );
    const type = FLAG_TYPES[name];
    if (type === undefined) throw new UsageError(`unknown option --${name}`);
    if (Object.hasOwn(flags, name) && type !== 'list') throw new UsageError(`--${name} given more than once`);
    if (type === 'list') {
      const value = eq !== -1 ? token.slice(eq + 1) : argv[i + 1];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      if (eq === -1) i++;
      const list = flags[name];
      flags[name] = [...(Array.isArray(list) ? list : []), value];
    } else if (type === 'boolean') {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      flags[name] = true;
    } else if (eq !== -1) {
      flags[name] = token.slice(eq + 1);
    } else {
      const value = argv[i + 1];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      flags[name] = value;
      i++;
    }
  }

  const global: GlobalOptions = {
    json: flags['json'] === true,
    help: flags['help'] === true,
    ...(typeof flags['data'] === 'string' ? { data: nonEmpty('data', flags['data']) } : {}),
    ...(typeof flags['config'] === 'string' ? { config: nonEmpty('config', flags['config']) } : {}),
  };
  for (const g of GLOBAL_FLAGS) delete flags[g];

  if (words.length === 0) {
    if (global.help) return { global, positionals: {}, flags };
    throw new UsageError('no command given; see `memories --help`');
  }
  const first = words[0] as string;
  const isGroup = (COMMAND_GROUPS as readonly string[]).includes(first);
  if (isGroup && words.length < 2 && !global.help) {
    throw new UsageError(`\`${first}\` needs a subcommand; see \`memories --help\``);
  }
  const name = isGroup && words.length >= 2 ? `${first} ${words[1]}` : first;
  const command = findCommand(name);
  if (command === undefined) {
    if (isGroup && words.length < 2) return { global, positionals: {}, flags };
    throw new UsageError(`unknown command \`${name}\`; see \`memories --help\``);
  }
  const rest = words.slice(name.split(' ').length);

  if (global.help) return { global, command, positionals: {}, flags };
  for (const flag of Object.keys(flags)) {
    if (!command.flags.includes(flag)) throw new UsageError(`\`${command.name}\` does not take --${flag}`);
  }
  if (rest.length !== command.positionals.length) {
    throw new UsageError(`usage: memories ${command.usage}`);
  }
  const positionals = Object.fromEntries(command.positionals.map((p, i) => [p, rest[i] as string]));
  return { global, command, positionals, flags };
}

function nonEmpty(name: string, value: string): string {
  if (value === '') throw new UsageError(`--${name} needs a non-empty value`);
  return value;
}
