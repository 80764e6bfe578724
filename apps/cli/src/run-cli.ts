import { resolve } from 'node:path';
import { parseArgs, wantsJson } from './cli-args';
import { type CliDeps, type CliIo, type CommandContext, type CommandOutcome } from './cli-context';
import { loadConfig } from './cli-config';
import { DaemonNotRunningError, EXIT_OK, describeFailure } from './cli-errors';
import { type CommandName, commandHelp, generalHelp } from './command-specs';
import {
  deleteCommand,
  diffCommand,
  historyCommand,
  importCommand,
  listCommand,
  readCommand,
  resolveCommand,
  writeCommand,
} from './asset.command';
import { cardGraphCommand, cardLinkCommand, cardWriteCommand } from './card.command';
import { daemonStartCommand, daemonStatusCommand, daemonStopCommand } from './daemon.command';
import {
  ragAskCommand,
  ragIndexCommand,
  ragModelInstallCommand,
  ragSearchCommand,
  ragStatusCommand,
  retrieveCommand,
  searchCommand,
} from './rag.command';
import {
  mcpApproveCommand,
  mcpDenyCommand,
  mcpGrantCommand,
  mcpListCommand,
  mcpRequestsCommand,
  mcpRevokeCommand,
  mcpServeCommand,
} from './mcp.command';
import { StdinReader } from './stdin-reader';
import {
  auditVerifyCommand,
  backupCommand,
  initCommand,
  lockCommand,
  restoreCommand,
  statusCommand,
  sudoCommand,
  unlockCommand,
  vaultCreateCommand,
  vaultListCommand,
} from './store.command';
import { defaultConfigFile, defaultDataDir } from '@arslan/daemon-client';

export type { CliDeps, CliIo } from './cli-context';

const HANDLERS: Record<CommandName, (ctx: CommandContext) => Promise<CommandOutcome>> = {
  'daemon start': daemonStartCommand,
  'daemon stop': daemonStopCommand,
  'daemon status': daemonStatusCommand,
  init: initCommand,
  unlock: unlockCommand,
  lock: lockCommand,
  status: statusCommand,
  sudo: sudoCommand,
  write: writeCommand,
  read: readCommand,
  list: listCommand,
  history: historyCommand,
  diff: diffCommand,
  delete: deleteCommand,
  resolve: resolveCommand,
  import: importCommand,
  backup: backupCommand,
  restore: restoreCommand,
  'audit verify': auditVerifyCommand,
  'vault create': vaultCreateCommand,
  'vault list': vaultListCommand,
  search: searchCommand,
  retrieve: retrieveCommand,
  'rag index': ragIndexCommand,
  'rag status': ragStatusCommand,
  'rag search': ragSearchCommand,
  'rag ask': ragAskCommand,
  'rag model-install': ragModelInstallCommand,
  'card write': cardWriteCommand,
  'card link': cardLinkCommand,
  'card graph': cardGraphCommand,
  'mcp grant': mcpGrantCommand,
  'mcp serve': mcpServeCommand,
  'mcp list': mcpListCommand,
  'mcp revoke': mcpRevokeCommand,
  'mcp requests': mcpRequestsCommand,
  'mcp approve': mcpApproveCommand,
  'mcp deny': mcpDenyCommand,
};

/**
 * Parses argv, loads the config (CFG-2: all of it is checked before any daemon contact),
 * runs one command and prints its outcome. Returns the process exit code.
 */
export async function runCli(argv: readonly string[], io: CliIo, deps: CliDeps): Promise<number> {
  // Before parsing succeeds, a literal --json in argv decides how a usage error is printed.
  let json = wantsJson(argv);
  const reader = new StdinReader(io.stdin);
  try {
    const args = parseArgs(argv);
    json = args.global.json;
    if (args.global.help || args.command === undefined) {
      const help = args.command ? commandHelp(args.command) : generalHelp();
      io.stdout.write(json ? `${JSON.stringify({ usage: help })}\n` : help);
      return EXIT_OK;
    }
    const platform = { platform: deps.platform, homedir: deps.homedir, env: io.env };
    const config = loadConfig(args.global.config, defaultConfigFile(platform), io.cwd);
    const dataDir =
      args.global.data !== undefined
        ? resolve(io.cwd, args.global.data)
        : (config.dataDir ?? defaultDataDir(platform));
    const outcome = await HANDLERS[args.command.name]({
      args,
      dataDir,
      configPath: config.path,
      io,
      deps,
      reader,
    });
    if (!outcome.silent)
      io.stdout.write(json ? `${JSON.stringify(outcome.json)}\n` : withNewline(outcome.text));
    return outcome.exitCode ?? EXIT_OK;
  } catch (error) {
    const failure = describeFailure(error);
    io.stderr.write(`memories: ${failure.code}: ${failure.message}\n`);
    if (error instanceof DaemonNotRunningError && !failure.message.includes('memories daemon start')) {
      io.stderr.write('hint: start it with `memories daemon start`\n');
    }
    if (json) {
      io.stdout.write(
        `${JSON.stringify({ ok: false, error: { code: failure.code, message: failure.message } })}\n`,
      );
    }
    return failure.exitCode;
  } finally {
    reader.release();
  }
}

function withNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}
