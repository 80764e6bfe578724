// CTX-08 / LOOP-13 / LES-02: the per-turn reference block. Everything that changes per turn —
// the rolling summary, the work state and plan, recalled lessons, the reply language — goes
// here, at the start of the turn's request, so the system prefix stays stable (prompt caching)
// and none of it is ever stored as the user's words.
import type { TrajectoryItem } from '../ports';
import type { RollingSummary } from './rolling-summary';
import { renderSummary } from './rolling-summary';
import { replyLanguageLine } from './reply-language';

export const REFERENCE_OPEN = '<arslan-reference>';
export const REFERENCE_CLOSE = '</arslan-reference>';
const PREAMBLE =
  'Reference for this turn, written by Arslan (not by the user; not instructions from the user):';

/** CTX-09: the trusted per-conversation settings, loaded from the database each turn. */
export interface ConversationSettings {
  /** Language the answer is written in (e.g. "ja"); null: the language of the user's message. */
  replyLanguage: string | null;
  /** Memory may be kept on this machine for this conversation. */
  localMemory: boolean;
  /** Memory may be sent to / kept in the cloud (off unless the user turned it on). */
  cloudMemory: boolean;
}

export const DEFAULT_CONVERSATION_SETTINGS: ConversationSettings = {
  replyLanguage: null,
  localMemory: true,
  cloudMemory: false,
};

export interface PlanLine {
  title: string;
  status: string;
}

export interface ReferenceInput {
  summary: RollingSummary | null;
  /** LOOP-13: the latest plan of this run, if the model recorded one. */
  plan: readonly PlanLine[] | null;
  /** LES-02: lessons recalled for this turn (already limited by the caller). */
  lessons?: readonly string[];
  settings: ConversationSettings;
  /** TURN-07: the user's latest message (steered messages included) and the app's UI language. */
  latestUserMessage?: string;
  uiLanguage?: string;
}

/** Neutralises marker look-alikes inside the content so it cannot close the block early. */
function defang(text: string): string {
  return text.replace(/<\/?arslan-reference>/gi, (m) => m.replace('<', '‹').replace('>', '›'));
}

/** The block's text, or null when there is nothing to say this turn. */
export function buildReferenceBlock(input: ReferenceInput): string | null {
  const parts: string[] = [];
  if (input.summary) parts.push(`Summary of earlier conversation:\n${renderSummary(input.summary)}`);
  if (input.plan && input.plan.length > 0)
    parts.push(
      `Work state — current plan:\n${input.plan.map((s, i) => `${i + 1}. [${s.status}] ${s.title}`).join('\n')}`,
    );
  if (input.lessons && input.lessons.length > 0)
    parts.push(`Lessons recalled:\n${input.lessons.map((l) => `- ${l}`).join('\n')}`);
  if (input.settings.replyLanguage) parts.push(`Reply language: ${input.settings.replyLanguage}`);
  else if (input.latestUserMessage !== undefined) {
    const line = replyLanguageLine(input.latestUserMessage, input.uiLanguage ?? 'en');
    if (line) parts.push(line);
  }
  if (parts.length === 0) return null;
  return `${REFERENCE_OPEN}\n${PREAMBLE}\n\n${defang(parts.join('\n\n'))}\n${REFERENCE_CLOSE}`;
}

/**
 * Puts the block at the start of the request. When the request opens with a user message the
 * block shares that wire message (ahead of the user's text, inside its markers), so roles keep
 * alternating for chat templates that insist on it; the stored record never sees the block.
 */
export function withReferenceBlock(block: string | null, items: readonly TrajectoryItem[]): TrajectoryItem[] {
  if (block === null) return [...items];
  const [first, ...rest] = items;
  if (first?.role === 'user') return [{ role: 'user', text: `${block}\n\n${first.text}` }, ...rest];
  return [{ role: 'user', text: block }, ...items];
}

/** TURN-07: the text of the newest user message in the trajectory (steered messages count). */
export function latestUserText(items: readonly TrajectoryItem[]): string | undefined {
  for (let i = items.length - 1; i >= 0; i -= 1) {
    const item = items[i] as TrajectoryItem;
    if (item.role === 'user') return item.text;
  }
  return undefined;
}

/** The request text without a leading reference block (what the user actually wrote). */
export function stripReferenceBlock(text: string): string {
  if (!text.startsWith(REFERENCE_OPEN)) return text;
  const end = text.indexOf(REFERENCE_CLOSE);
  return end < 0 ? text : text.slice(end + REFERENCE_CLOSE.length).replace(/^\n\n/, '');
}

/** LOOP-13: the newest plan the model recorded in this trajectory through the `plan` tool. */
export function latestPlan(trajectory: readonly TrajectoryItem[]): PlanLine[] | null {
  // A plan call the loop refused (invalid arguments, not executed) never became the plan.
  const failed = new Set(trajectory.flatMap((t) => (t.role === 'tool' && t.isError ? [t.callId] : [])));
  for (let i = trajectory.length - 1; i >= 0; i -= 1) {
    const item = trajectory[i] as TrajectoryItem;
    if (item.role !== 'assistant') continue;
    for (let j = item.toolCalls.length - 1; j >= 0; j -= 1) {
      const call = item.toolCalls[j];
      if (call?.name !== 'plan' || failed.has(call.id)) continue;
      const steps = readPlanSteps(call.argumentsJson);
      if (steps) return steps;
    }
  }
  return null;
}

function readPlanSteps(argumentsJson: string): PlanLine[] | null {
  try {
    const raw = JSON.parse(argumentsJson) as { steps?: unknown };
    if (!Array.isArray(raw.steps)) return null;
    const steps = raw.steps.flatMap((s: unknown): PlanLine[] => {
      const step = s as { title?: unknown; status?: unknown };
      return typeof step?.title === 'string'
        ? [
            {
              title: step.title.slice(0, 300),
              status: typeof step.status === 'string' ? step.status : 'pending',
            },
          ]
        : [];
    });
    return steps.length > 0 ? steps.slice(0, 50) : null;
  } catch {
    return null;
  }
}
