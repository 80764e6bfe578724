// The daemon's Center seam (CTR-1, CTR-3/4, CTR-7/8). The IPC layer only decides *when* a Center
// is consulted; the daemon implements the HTTP side. With a seam present, local self-initialisation
// is refused unless a ticket-mode Center's enrollment ticket is redeemed first (`init`, `restore`);
// with `forward`, every content op goes to the saas Center and never to the local store.
import type { LocalGrantScope, VaultOp, VaultRequest } from '@arslan/protocol';

/** Bounds an MCP-grant ticket allows for one local grant (CTR-3). */
export interface McpTicketBounds {
  /** The widest scope the daemon may issue under this ticket. */
  readonly maxScope: LocalGrantScope;
  /** The longest grant, in whole minutes, the ticket allows. */
  readonly maxMinutes: number;
  /** The grant may not outlive the ticket (epoch ms). */
  readonly notAfter: number;
}

export interface CenterSeam {
  /** CTR-7/CTR-8: set when exactly one saas Center is configured. Throws IpcError on any failure. */
  forward?(request: VaultRequest): Promise<unknown>;
  /** CTR-4: set when a ticket-mode Center gates unlocks; throws IpcError unless the ticket is a valid unlock ticket. */
  checkUnlockTicket?(ticket: string | undefined): Promise<void>;
  /**
   * CTR-1/CTR-3: set when a ticket-mode Center registers this device; redeems (consumes) an
   * enrollment ticket for the Center's vault. Throws IpcError unless it was valid.
   */
  redeemEnrollmentTicket?(ticket: string): Promise<void>;
  /** CTR-3: set when a ticket-mode Center gates MCP grants; redeems (consumes) an MCP-grant ticket. */
  redeemMcpGrantTicket?(ticket: string | undefined, vault: string): Promise<McpTicketBounds>;
}

/**
 * Ops that act on this device only and so stay local even when content is forwarded: session
 * state, the local audit, and the backup of whatever local store exists. Everything else is content
 * and goes to the Center (or fails there): never to the local store (CTR-8).
 */
export const DEVICE_LOCAL_OPS: ReadonlySet<VaultOp> = new Set<VaultOp>([
  'status',
  'init',
  'unlock',
  'lock',
  'sudo',
  'shutdown',
  'audit_verify',
  'backup',
  'restore',
]);
