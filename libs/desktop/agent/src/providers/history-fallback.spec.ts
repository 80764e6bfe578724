import type { ModelRequest, TrajectoryItem } from '../ports/model.port';
import { detectRejectedHistory, flattenTrajectory, hasToolHistory } from './history-fallback';

const trajectory: TrajectoryItem[] = [
  { role: 'user', text: 'read a' },
  {
    role: 'assistant',
    text: 'Reading.',
    toolCalls: [{ id: 'c1', name: 'read_file', argumentsJson: '{"path":"a"}' }],
  },
  { role: 'tool', callId: 'c1', name: 'read_file', content: 'A-TEXT', isError: false },
  { role: 'user', text: 'also b' },
  { role: 'assistant', text: '', toolCalls: [{ id: 'c2', name: 'read_file', argumentsJson: '' }] },
  { role: 'tool', callId: 'c2', name: 'read_file', content: 'no such file', isError: true },
];
const request = (items: TrajectoryItem[]): ModelRequest => ({
  model: 'm',
  system: '',
  trajectory: items,
  tools: [],
  maxOutputTokens: 100,
});

describe('PROV-08 history fallback', () => {
  it('PROV-08: flattening leaves only alternating user/assistant text with marked calls and results', () => {
    const flat = flattenTrajectory(trajectory);
    expect(hasToolHistory(flat)).toBe(false);
    expect(flat.map((i) => i.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(flat[1]).toEqual({
      role: 'assistant',
      text: 'Reading.\n[tool call id=c1 name=read_file]\n{"path":"a"}\n[/tool call]',
      toolCalls: [],
    });
    expect(flat[2]).toEqual({
      role: 'user',
      text: '[tool result id=c1 name=read_file status=ok]\nA-TEXT\n[/tool result]\n\nalso b',
    });
    expect((flat[3] as { text: string }).text).toBe('[tool call id=c2 name=read_file]\n{}\n[/tool call]');
    expect((flat[4] as { text: string }).text).toContain('status=error]\nno such file');
  });

  it.each([
    "Invalid 'messages[3].role': role 'tool' is not supported by this model",
    'Conversation roles must alternate user/assistant/user/assistant/...',
    "messages.1.content.1: Input tag 'tool_use' found using 'type' does not match any of the expected tags",
    'Invalid JSON payload received. Unknown name "functionCall" at \'contents[1].parts[1]\': Cannot find field.',
    'messages[2].tool_calls: Extra inputs are not permitted',
  ])('PROV-08: recognises a history rejection: %s', (message) => {
    expect(detectRejectedHistory(message, request(trajectory))).toBe(true);
  });

  it('PROV-08: never without tool history, never for declaration or parameter complaints', () => {
    const plain = request([{ role: 'user', text: 'hi' }]);
    expect(detectRejectedHistory("role 'tool' is not supported in messages", plain)).toBe(false);
    const withHistory = request(trajectory);
    expect(detectRejectedHistory('tools[0].function.parameters: invalid schema', withHistory)).toBe(false);
    expect(detectRejectedHistory('function_declarations[1].parameters: bad type', withHistory)).toBe(false);
    expect(detectRejectedHistory('temperature is not supported for this model', withHistory)).toBe(false);
    expect(detectRejectedHistory('tool_choice must be auto', withHistory)).toBe(false);
  });
});
