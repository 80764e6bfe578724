// Tools (TOOL-*): a registry maps names to executors; the loop gates every call (LOOP-04) and the
// executor only acts. Results are data (SEC-002/003): the loop wraps them, tools never do.
import type { z } from 'zod';

/**
 * Closed set of approval card kinds (APPR-001, the TS mapping of security-bridge-release §4.3).
 * `null` on a tool means it needs no card (reads inside the permitted scope).
 */
export const ACTION_KINDS = [
  'workspace_write',
  'command',
  'network_command',
  'sandbox_exit',
  'delete',
  'send',
  'money',
  'mcp_tool',
  'folder',
  'site',
  'schedule',
  'remote_host',
  'system_change',
  'capability_install',
] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

/** Per-turn state every executor receives (SEC-005: the external-content flag lives here). */
export interface TurnState {
  /** Set before external content reaches the model; stays set for the rest of the turn. */
  externalContentRead: boolean;
}

export interface ToolContext {
  /** Absolute, real path of the workspace root (symlinks resolved). */
  workspace: string;
  /** App data dir for long outputs etc. (DATA-03). */
  dataDir: string;
  runId: string;
  callId: string;
  turn: TurnState;
  /** Aborted on stop (CKPT-08) or when the reply's time runs out. */
  signal: AbortSignal;
  /** Milliseconds the reply may still run (TOOL-21: never beyond it). */
  remainingMs: number;
  /** Whether the run may ask the user (false: headless/scheduled → fail closed, APPR-017). */
  attended: boolean;
  /**
   * Kinds the user pre-approved for this headless run (`arslan run --allow`); always empty for
   * interactive and scheduled runs (scheduled runs take no approval steps at all, APPR-017).
   */
  preApproved?: readonly ActionKind[];
  /** WEB-01/02, PROV-06: the turn's model and the endpoint origin its requests go to (no key). */
  turnModel?: { provider: string; origin?: string; model: string };
  /**
   * CKPT-11: awaited by a tool right before it first changes the working folder (writes a file,
   * runs a command); the turn's undo checkpoint saves the folder once, as it was. Never throws.
   */
  beforeWorkspaceChange?: () => Promise<void>;
}

export interface ToolArtifact {
  path: string;
  sha256: string;
  bytes: number;
}

export interface ToolResult {
  /** What the model reads (the loop wraps it as tool output or external data). */
  content: string;
  isError?: boolean;
  /** The result carries external content (web page, file, MCP): sets the turn flag (SEC-005). */
  external?: boolean;
  artifacts?: ToolArtifact[];
  /** ARCH-18 / MEM-10: the stored items (asset id + revision) this result carries, never their text. */
  sources?: ToolSource[];
}

/** A memory/material item a tool result carries (e.g. a vault passage `recall` returned). */
export interface ToolSource {
  assetId: string;
  revisionId: string;
}

/** Why a call needs a card, decided from its arguments before execution. */
export interface ApprovalNeed {
  kind: ActionKind;
  /** One line for the card, e.g. the command or the path. Never secrets. */
  summary: string;
  /** Task-scoped cards offer "For this task" instead of "Once" (APPR-005). */
  taskScoped?: boolean;
}

export interface Tool<Args = unknown> {
  name: string;
  description: string;
  /** Strict zod schema of the arguments; its JSON Schema is what providers see. */
  schema: z.ZodType<Args>;
  /** LOOP-16: read-class calls may run 4 at a time; anything else runs alone, in order. */
  readOnly: boolean;
  /** TOOL-03: offered every turn; otherwise reached through find_tools/use_tool. */
  resident: boolean;
  /** Does this call need a card? Checked after validation, before execution (LOOP-04). */
  approval(args: Args, ctx: ToolContext): ApprovalNeed | null;
  /** Refuse (isError result) rather than throw for expected failures. */
  execute(args: Args, ctx: ToolContext): Promise<ToolResult>;
}
