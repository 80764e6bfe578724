// CTX-06: the rolling summary — a compressed view of folded messages with fixed fields. It is
// a view only (CTX-10): tool evidence stays in the run record.
import { z } from 'zod';
import { estimateTokens } from './token-estimate';

const entry = z.string().min(1).max(2_000);

/** Strict: a summary with unknown or missing fields is rejected (and the fallback used). */
export const rollingSummarySchema = z.strictObject({
  goal: z.string().max(2_000),
  progress: z.array(entry).max(100),
  decisions: z.array(entry).max(100),
  filesTouched: z.array(entry).max(200),
  nextSteps: z.array(entry).max(100),
});

export type RollingSummary = z.infer<typeof rollingSummarySchema>;

export const EMPTY_SUMMARY: RollingSummary = {
  goal: '',
  progress: [],
  decisions: [],
  filesTouched: [],
  nextSteps: [],
};

const section = (title: string, items: readonly string[]): string =>
  `${title}:\n${items.length > 0 ? items.map((i) => `- ${i}`).join('\n') : '- (none)'}`;

/** The fields in a fixed order, as the model sees them in the reference block. */
export function renderSummary(summary: RollingSummary): string {
  return [
    `Goal: ${summary.goal || '(not stated)'}`,
    section('Progress', summary.progress),
    section('Decisions', summary.decisions),
    section('Files touched', summary.filesTouched),
    section('Next steps', summary.nextSteps),
  ].join('\n');
}

function cut(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, Math.max(0, maxChars - 1))}…`;
}

/**
 * CTX-03: enforces the summary's own length limit. Drops the oldest progress entries first (the
 * newest matter most), then shortens every entry; the five fields always remain.
 */
export function clampSummary(summary: RollingSummary, maxTokens: number): RollingSummary {
  let current: RollingSummary = {
    ...summary,
    filesTouched: [...new Set(summary.filesTouched)],
  };
  const fits = (s: RollingSummary): boolean => estimateTokens(renderSummary(s)) <= maxTokens;
  while (!fits(current) && current.progress.length > 1)
    current = { ...current, progress: current.progress.slice(1) };
  let maxChars = 400;
  while (!fits(current) && maxChars >= 20) {
    const short = (items: readonly string[]): string[] => items.map((i) => cut(i, maxChars));
    current = {
      goal: cut(current.goal, maxChars * 2),
      progress: short(current.progress),
      decisions: short(current.decisions),
      filesTouched: short(current.filesTouched),
      nextSteps: short(current.nextSteps),
    };
    maxChars = Math.floor(maxChars / 2);
  }
  while (!fits(current)) {
    const lists = ['filesTouched', 'decisions', 'nextSteps', 'progress'] as const;
    const longest = lists.reduce((a, b) => (current[a].length >= current[b].length ? a : b));
    if (current[longest].length === 0) return { ...EMPTY_SUMMARY, goal: cut(current.goal, maxTokens) };
    current = { ...current, [longest]: current[longest].slice(1) };
  }
  return current;
}

/**
 * Reads a model's summary reply: a JSON object, optionally fenced. Returns null when it is not a
 * valid summary (the caller then uses the deterministic fallback).
 */
export function parseSummaryReply(text: string): RollingSummary | null {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text.slice(start, end + 1)) as unknown;
  } catch {
    return null;
  }
  const parsed = rollingSummarySchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}
