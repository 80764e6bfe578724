import { resolve } from 'node:path';
import { IPC_EXIT_CODES } from '@arslan/protocol';
import {
  type CommandContext,
  type CommandOutcome,
  askPasswords,
  boolFlag,
  ensureDaemonListening,
  checkArgs,
  positional,
  withSession,
} from './cli-context';
import { centerTicket } from './center-ticket';
import { isoTime, statusText, vaultTable } from './output-format';

export function statusCommand(ctx: CommandContext): Promise<CommandOutcome> {
  return withSession(ctx, async (s) => {
    const result = await s.call('status', {});
    return { json: result, text: statusText(result) };
  });
}

export async function initCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const ticket = centerTicket(ctx);
  await ensureDaemonListening(ctx);
  const [password] = await askPasswords(ctx, [{ label: 'New store password', confirm: true }]);
  const args = checkArgs('init', {
    password: password as string,
    ...(ticket !== undefined ? { center_ticket: ticket } : {}),
  });
  return withSession(ctx, async (s) => {
    const result = await s.call('init', args);
    return {
      json: result,
      text: `initialized vault ${result.vault} (${result.vault_id})\ndevice fingerprint: ${result.device_fingerprint}`,
    };
  });
}

export async function unlockCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const ticket = centerTicket(ctx);
  await ensureDaemonListening(ctx);
  const [password] = await askPasswords(ctx, [{ label: 'Store password', confirm: false }]);
  const args = checkArgs('unlock', {
    password: password as string,
    ...(ticket !== undefined ? { center_ticket: ticket } : {}),
  });
  return withSession(ctx, async (s) => {
    const result = await s.call('unlock', args);
    return { json: result, text: `unlocked (locks when idle at ${isoTime(result.unlock_idle_expires_at)})` };
  });
}

export function lockCommand(ctx: CommandContext): Promise<CommandOutcome> {
  return withSession(ctx, async (s) => ({ json: await s.call('lock', {}), text: 'locked' }));
}

export async function sudoCommand(ctx: CommandContext): Promise<CommandOutcome> {
  await ensureDaemonListening(ctx);
  const [password] = await askPasswords(ctx, [{ label: 'Store password', confirm: false }]);
  const args = checkArgs('sudo', { password: password as string });
  return withSession(ctx, async (s) => {
    const result = await s.call('sudo', args);
    return { json: result, text: `sudo granted for this terminal until ${isoTime(result.sudo_expires_at)}` };
  });
}

export async function backupCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const path = resolve(ctx.io.cwd, positional(ctx, 'file'));
  await ensureDaemonListening(ctx);
  const [backupPassword] = await askPasswords(ctx, [{ label: 'Backup password', confirm: true }]);
  const args = checkArgs('backup', { path, backup_password: backupPassword as string });
  return withSession(ctx, async (s) => {
    const result = await s.call('backup', args);
    return {
      json: result,
      text: `backup written to ${result.path} (${result.bytes} bytes, ${result.vaults} vaults, ${result.assets} assets)`,
    };
  });
}

export async function restoreCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const path = resolve(ctx.io.cwd, positional(ctx, 'file'));
  const ticket = centerTicket(ctx);
  await ensureDaemonListening(ctx);
  const [backupPassword, password] = await askPasswords(ctx, [
    { label: 'Backup password', confirm: false },
    { label: 'New store password', confirm: true },
  ]);
  const args = checkArgs('restore', {
    path,
    backup_password: backupPassword as string,
    password: password as string,
    ...(ticket !== undefined ? { center_ticket: ticket } : {}),
  });
  return withSession(ctx, async (s) => {
    const result = await s.call('restore', args);
    return {
      json: result,
      text: `restored ${result.assets} assets into ${result.vaults.map((v) => v.name).join(', ') || 'no vaults'}\ndevice fingerprint: ${result.device_fingerprint}`,
    };
  });
}

/** A broken chain is reported as data and exits with the `corrupt` code. */
export function auditVerifyCommand(ctx: CommandContext): Promise<CommandOutcome> {
  return withSession(ctx, async (s) => {
    const result = await s.call('audit_verify', {});
    if (result.ok) {
      return { json: result, text: `audit chain ok: ${result.entries} entries, head ${result.head ?? '-'}` };
    }
    return {
      json: result,
      text: `audit chain BROKEN after ${result.entries} entries: ${result.problem ?? 'unknown problem'}`,
      exitCode: IPC_EXIT_CODES.corrupt,
    };
  });
}

export function vaultCreateCommand(ctx: CommandContext): Promise<CommandOutcome> {
  const deviceOnly = boolFlag(ctx, 'device-only');
  const args = checkArgs('vault_create', {
    name: positional(ctx, 'name'),
    ...(deviceOnly ? { device_only: true } : {}),
  });
  return withSession(ctx, async (s) => {
    const result = await s.call('vault_create', args);
    return {
      json: result,
      text: `created vault ${result.name} (${result.vault_id})${result.device_only ? ', device-only' : ''}`,
    };
  });
}

export function vaultListCommand(ctx: CommandContext): Promise<CommandOutcome> {
  return withSession(ctx, async (s) => {
    const result = await s.call('vault_list', {});
    return { json: result, text: vaultTable(result.vaults) };
  });
}
