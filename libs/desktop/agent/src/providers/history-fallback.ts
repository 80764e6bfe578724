// PROV-08: some endpoints (older local servers, strict chat templates, proxies) reject native
// tool-call history in the request: `role: tool` messages, `tool_calls`, `tool_use` /
// `tool_result` blocks or `functionCall` / `functionResponse` parts. The adapter then resends the
// request with that history flattened into plain user/assistant text (the legacy composition)
// and keeps it flattened for the rest of the turn. Tools stay offered, so new calls stay native.
import type { ModelRequest, TrajectoryItem } from '../ports/model.port';

/** Wire vocabulary of native tool history, across the three formats. */
const HISTORY_TERM =
  /\btool_calls?\b|\btool_call_id\b|\btool_use(?:_id)?\b|\btool_result\b|\bfunction_?call\b|\bfunction_?response\b|\brole\W{0,4}tool\b|\btool\W{0,4}role\b|roles must alternate/i;
/** Where the complaint points: the history, not the tool declarations. */
const HISTORY_PLACE = /\bmessages?\b|\bcontents?\b|\broles?\b|\bhistory\b|\bconversation\b|\bparts?\b/i;
/** A complaint about tool declarations is PROV-10/11's business, never a history rejection. */
const DECLARATION_PLACE = /\btools\s*(?:\.|\[)\s*\d+|function_?declarations|input_schema|invalid schema/i;

export function hasToolHistory(trajectory: readonly TrajectoryItem[]): boolean {
  return trajectory.some(
    (item) => item.role === 'tool' || (item.role === 'assistant' && item.toolCalls.length > 0),
  );
}

/** True when a 400/422 message rejects the native tool history this request carried. */
export function detectRejectedHistory(message: string, request: ModelRequest): boolean {
  if (!hasToolHistory(request.trajectory)) return false;
  if (DECLARATION_PLACE.test(message)) return false;
  return HISTORY_TERM.test(message) && HISTORY_PLACE.test(message);
}

function callText(call: { id: string; name: string; argumentsJson: string }): string {
  return `[tool call id=${call.id} name=${call.name}]\n${call.argumentsJson || '{}'}\n[/tool call]`;
}

function resultText(item: Extract<TrajectoryItem, { role: 'tool' }>): string {
  const status = item.isError ? 'error' : 'ok';
  return `[tool result id=${item.callId} name=${item.name} status=${status}]\n${item.content}\n[/tool result]`;
}

/**
 * The legacy composition: tool calls become marked text in the assistant turn, results become
 * marked text in a user turn. Consecutive same-role turns are merged so strict templates that
 * demand user/assistant alternation accept it.
 */
export function flattenTrajectory(trajectory: readonly TrajectoryItem[]): TrajectoryItem[] {
  const out: TrajectoryItem[] = [];
  const append = (role: 'user' | 'assistant', text: string): void => {
    if (text === '') return;
    const last = out[out.length - 1];
    if (last && last.role !== 'tool' && last.role === role) {
      last.text = `${last.text}\n\n${text}`;
      return;
    }
    out.push(role === 'user' ? { role, text } : { role, text, toolCalls: [] });
  };
  for (const item of trajectory) {
    if (item.role === 'user') append('user', item.text);
    else if (item.role === 'assistant')
      append('assistant', [item.text, ...item.toolCalls.map(callText)].filter((t) => t !== '').join('\n'));
    else append('user', resultText(item));
  }
  return out;
}
