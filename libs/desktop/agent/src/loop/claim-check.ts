// LOOP-11: a statement that an action happened must match a real successful tool result, and for
// files an artifact reference. The answer is streamed unchanged (LOOP-14); this post-answer check
// lists the claims no evidence of this run supports, so the loop can append a correction.
import * as path from 'node:path';

export interface ClaimEvidence {
  /** Files this run produced: artifact references of successful tool results (absolute paths). */
  artifacts: readonly string[];
  /** Names of tools that returned a successful result in this run. */
  succeededTools: ReadonlySet<string>;
  workspace: string;
}

export interface UnverifiedClaim {
  kind: 'file' | 'command';
  /** The claimed file, or the claiming sentence for commands. */
  subject: string;
}

const FILE_CLAIM =
  /\b(?:saved|wrote|written|created|updated|edited|modified|generated|exported|stored|added|renamed|moved)\b|保存しました|作成しました|書き込みました|更新しました/i;
const COMMAND_CLAIM =
  /\bI(?:'ve| have)?\s+(?:ran|run|executed|installed)\b|\b(?:tests?|build|command)\s+(?:passed|succeeded|ran)\b|実行しました/i;
const COMMAND_TOOLS = ['terminal'];
/** A path-looking token: has an extension, optionally folders; quoted in backticks or bare. */
const FILE_TOKEN =
  /`([^`\s]+\.[A-Za-z0-9]{1,10})`|(?<![\w/.-])((?:[\w.-]+\/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,9})(?![\w/])/g;

function sentences(text: string): string[] {
  // Code blocks are content, not claims.
  const prose = text.replace(/```[\s\S]*?```/g, ' ');
  return prose.split(/(?<=[.!?。！？])\s+|\n+/).filter((s) => s.trim().length > 0);
}

function isUrlPart(sentence: string, token: string): boolean {
  return new RegExp(`https?://\\S*${token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`).test(sentence);
}

function backed(token: string, evidence: ClaimEvidence): boolean {
  const wanted = token.replace(/^\.\//, '');
  return evidence.artifacts.some((a) => {
    const rel = path.relative(evidence.workspace, a).split(path.sep).join('/');
    return rel === wanted || a === wanted || rel.endsWith(`/${wanted}`) || path.basename(a) === wanted;
  });
}

/** Claims in the final answer that no successful tool result of this run supports. */
export function findUnverifiedClaims(answer: string, evidence: ClaimEvidence): UnverifiedClaim[] {
  const out: UnverifiedClaim[] = [];
  const seen = new Set<string>();
  for (const sentence of sentences(answer)) {
    if (FILE_CLAIM.test(sentence)) {
      for (const m of sentence.matchAll(FILE_TOKEN)) {
        const token = m[1] ?? m[2] ?? '';
        if (!token || /^\d+(\.\d+)+$/.test(token) || isUrlPart(sentence, token)) continue;
        if (seen.has(token) || backed(token, evidence)) continue;
        seen.add(token);
        out.push({ kind: 'file', subject: token });
      }
    }
    if (COMMAND_CLAIM.test(sentence) && !COMMAND_TOOLS.some((t) => evidence.succeededTools.has(t))) {
      const subject = sentence.trim().slice(0, 200);
      if (!seen.has(subject)) {
        seen.add(subject);
        out.push({ kind: 'command', subject });
      }
    }
  }
  return out;
}

/** The correction appended after the answer (LOOP-14): what the evidence does not show. */
export function describeUnverifiedClaims(claims: readonly UnverifiedClaim[]): string {
  const files = claims.filter((c) => c.kind === 'file').map((c) => c.subject);
  const commands = claims.filter((c) => c.kind === 'command');
  const parts: string[] = [];
  if (files.length > 0) parts.push(`no file was produced by a successful tool call for: ${files.join(', ')}`);
  if (commands.length > 0) parts.push('no command was run successfully in this reply');
  return `Check: the answer claims actions this run has no evidence for (${parts.join('; ')}). Treat them as not done.`;
}
