// APPR-005..007, APPR-011..013, SEC-008: which options a card of a kind offers, and what each
// surface may send. Kinds outside the closed set are unknown and default-deny (APPR-012).
import { ACTION_KINDS, type ActionKind, type CardOption, type Surface } from '../ports';

/** APPR-006 (money), TOOL-20 (every remote execution is confirmed): only the first option and No. */
export const ONCE_ONLY_KINDS: ReadonlySet<ActionKind> = new Set<ActionKind>(['money', 'remote_host']);
/** APPR-007 (sandbox exit, sites, MCP tools) and SEC-008 (network after external content): never Always. */
export const NEVER_ALWAYS_KINDS: ReadonlySet<ActionKind> = new Set<ActionKind>([
  'sandbox_exit',
  'site',
  'mcp_tool',
  'network_command',
]);
/** APPR-005: site cards are task-scoped ("For this task" instead of "Once"). */
export const TASK_SCOPED_KINDS: ReadonlySet<ActionKind> = new Set<ActionKind>(['site']);
/** APPR-012: kinds the Island may approve (everything else: "Open in Arslan"). */
export const ISLAND_KINDS: ReadonlySet<ActionKind> = new Set<ActionKind>([
  'folder',
  'mcp_tool',
  'schedule',
  'site',
  'workspace_write',
  'command',
]);
/** APPR-013: approvable only in the desktop main window. */
export const WINDOW_ONLY_KINDS: ReadonlySet<ActionKind> = new Set<ActionKind>(['capability_install']);

export function isActionKind(value: unknown): value is ActionKind {
  return typeof value === 'string' && (ACTION_KINDS as readonly string[]).includes(value);
}

export function cardOptions(kind: ActionKind, taskScoped = false): CardOption[] {
  const first: CardOption = taskScoped || TASK_SCOPED_KINDS.has(kind) ? 'task' : 'once';
  if (ONCE_ONLY_KINDS.has(kind)) return [first, 'no'];
  if (NEVER_ALWAYS_KINDS.has(kind)) return [first, 'conversation', 'no'];
  return [first, 'conversation', 'always', 'no'];
}

export type SurfaceRefusal = 'surface_not_allowed' | 'option_not_allowed_on_surface';

/** APPR-011: server-side check of what a surface may send for a card. */
export function surfaceRefusal(
  surface: Surface,
  kind: ActionKind,
  option: CardOption,
  options: readonly CardOption[],
): SurfaceRefusal | null {
  if (option === 'no') return null; // every surface may refuse
  const first = options[0];
  switch (surface) {
    case 'window':
    case 'terminal':
      return null;
    case 'inbox':
      return WINDOW_ONLY_KINDS.has(kind) ? 'surface_not_allowed' : null;
    case 'island':
      if (!ISLAND_KINDS.has(kind)) return 'surface_not_allowed';
      return option === first ? null : 'option_not_allowed_on_surface';
    case 'phone':
      if (WINDOW_ONLY_KINDS.has(kind)) return 'surface_not_allowed';
      return option === first ? null : 'option_not_allowed_on_surface';
    case 'chat':
      return 'option_not_allowed_on_surface'; // APPR-008: a chat message can only say No
    default:
      return 'surface_not_allowed';
  }
}
