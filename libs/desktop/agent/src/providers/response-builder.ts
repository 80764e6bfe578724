// Accumulates one streamed response (text, tool calls assembled from deltas, stop reason, usage)
// and emits the stream events the loop shows as they arrive (LOOP-14).
import { randomUUID } from 'node:crypto';
import type {
  ModelResponse,
  ModelStreamEvent,
  StopReason,
  ToolCallRequest,
  Usage,
} from '../ports/model.port';

interface PendingCall {
  id: string | undefined;
  name: string;
  args: string;
  emitted: boolean;
}

export function newCallId(prefix = 'call'): string {
  return `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
}

export class ResponseBuilder {
  private text = '';
  private readonly calls = new Map<string, PendingCall>();
  private usage: Usage | undefined;
  stopReason: StopReason | undefined;

  constructor(
    private readonly onEvent: (event: ModelStreamEvent) => void,
    private readonly makeId: () => string = () => newCallId(),
  ) {}

  addText(delta: string): void {
    if (!delta) return;
    this.text += delta;
    this.onEvent({ type: 'text', delta });
  }

  /** Starts or updates the call at `key` (a stream index); emits `tool_call` once its name is known. */
  call(key: string, id: string | undefined, name: string | undefined): void {
    let call = this.calls.get(key);
    if (!call) {
      call = { id: undefined, name: '', args: '', emitted: false };
      this.calls.set(key, call);
    }
    if (id && !call.emitted && !call.id) call.id = id;
    if (name && !call.name) call.name = name;
    if (call.name && !call.emitted) {
      call.id ??= this.makeId();
      call.emitted = true;
      this.onEvent({ type: 'tool_call', id: call.id, name: call.name });
    }
  }

  appendArgs(key: string, delta: string): void {
    const call = this.calls.get(key);
    if (call) call.args += delta;
  }

  hasCall(key: string): boolean {
    return this.calls.has(key);
  }

  setUsage(usage: Partial<Usage>): void {
    this.usage = {
      inputTokens: usage.inputTokens ?? this.usage?.inputTokens ?? 0,
      outputTokens: usage.outputTokens ?? this.usage?.outputTokens ?? 0,
    };
  }

  /** Text or a tool call reached the caller: a failure now is a broken stream (LOOP-15). */
  hasOutput(): boolean {
    return this.text.length > 0 || this.calls.size > 0;
  }

  toolCalls(): ToolCallRequest[] {
    return [...this.calls.values()]
      .filter((c) => c.name)
      .map((c) => ({
        id: c.id ?? this.makeId(),
        name: c.name,
        argumentsJson: c.args.trim() === '' ? '{}' : c.args,
      }));
  }

  /**
   * The response. Usage the provider did not report is estimated (≈4 characters per token) so token
   * limits still apply to endpoints that send none.
   */
  build(estimatedInputTokens: number, stopReason?: StopReason): ModelResponse {
    const toolCalls = this.toolCalls();
    const reason = stopReason ?? this.stopReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'end');
    const outputChars =
      this.text.length + toolCalls.reduce((n, c) => n + c.name.length + c.argumentsJson.length, 0);
    const usage = this.usage ?? {
      inputTokens: estimatedInputTokens,
      outputTokens: Math.ceil(outputChars / 4),
    };
    return { text: this.text, toolCalls, stopReason: reason, usage: { ...usage } };
  }
}
