// OpenAI-compatible Chat Completions (hosted: `Authorization: Bearer`; local servers: no key).
// POST {baseUrl}/chat/completions, stream: true, stream_options.include_usage, native tools.
import type { ModelRequest, StopReason } from '../ports/model.port';
import type { ResponseBuilder } from './response-builder';
import { toolSchemaFor } from './schema-sanitize';
import type { SseEvent } from './sse';
import {
  StreamingProvider,
  type OptionalParams,
  type WireDecoder,
  type WireRequest,
} from './streaming-provider';
import { isObj, num, parseData, str, streamError, type Obj } from './wire-util';

export class OpenAiCompatibleProvider extends StreamingProvider {
  readonly kind = 'openai-compatible' as const;
  protected readonly label = 'OpenAI-compatible';

  protected buildRequest(request: ModelRequest, params: OptionalParams): WireRequest {
    const body: Obj = { model: request.model, messages: renderOpenAiMessages(request), stream: true };
    params.set(body, 'stream_options', { include_usage: true });
    params.set(body, 'max_tokens', request.maxOutputTokens);
    params.set(body, 'temperature', request.temperature);
    if (request.tools.length > 0) {
      body['tools'] = request.tools.map((tool) => ({
        type: 'function',
        function: {
          name: tool.name,
          description: tool.description,
          parameters: toolSchemaFor(tool, 'openai-compatible'),
        },
      }));
    }
    const headers: Record<string, string> = { ...this.options.headers };
    if (this.apiKey) headers['authorization'] = `Bearer ${this.apiKey}`;
    return { url: `${this.baseUrl}/chat/completions`, headers, body };
  }

  protected decoder(_request: ModelRequest, out: ResponseBuilder): WireDecoder {
    const label = this.label;
    let finished = false;
    let lastKey: string | undefined;
    return {
      get finished() {
        return finished;
      },
      event(event: SseEvent): boolean {
        if (event.data.trim() === '[DONE]') return true;
        const chunk = parseData(label, event.data);
        if (chunk['error'] !== undefined) throw streamError(label, chunk['error'], out.hasOutput());
        const usage = chunk['usage'];
        if (isObj(usage)) {
          out.setUsage({
            inputTokens: num(usage['prompt_tokens']),
            outputTokens: num(usage['completion_tokens']),
          });
        }
        const choices = Array.isArray(chunk['choices']) ? chunk['choices'] : [];
        for (const choice of choices) {
          if (!isObj(choice) || (num(choice['index']) ?? 0) !== 0) continue;
          const delta = isObj(choice['delta']) ? choice['delta'] : {};
          const content = str(delta['content']);
          if (content) out.addText(content);
          const toolCalls = Array.isArray(delta['tool_calls']) ? delta['tool_calls'] : [];
          toolCalls.forEach((tc, position) => {
            if (!isObj(tc)) return;
            const fn = isObj(tc['function']) ? tc['function'] : {};
            const id = str(tc['id']) || undefined;
            // Some local servers omit `index`: fall back to the id, then to the position.
            const index = num(tc['index']);
            const key = index !== undefined ? String(index) : id ? `id:${id}` : (lastKey ?? String(position));
            lastKey = key;
            out.call(key, id, str(fn['name']) || undefined);
            const args = str(fn['arguments']);
            if (args) out.appendArgs(key, args);
          });
          const reason = str(choice['finish_reason']);
          if (reason) {
            finished = true;
            out.stopReason = openAiStop(reason, out.toolCalls().length > 0);
          }
        }
        return false;
      },
    };
  }
}

function openAiStop(reason: string, hasCalls: boolean): StopReason {
  if (reason === 'length') return 'max_tokens';
  if (reason === 'tool_calls' || reason === 'function_call') return 'tool_calls';
  if (reason === 'stop' || reason === 'eos' || reason === 'end_turn') return hasCalls ? 'tool_calls' : 'end';
  return 'other';
}

/** PROV-07: assistant tool calls as `tool_calls`, results as `role: tool` with their call id. */
export function renderOpenAiMessages(request: ModelRequest): Obj[] {
  const messages: Obj[] = [];
  if (request.system) messages.push({ role: 'system', content: request.system });
  for (const item of request.trajectory) {
    if (item.role === 'user') messages.push({ role: 'user', content: item.text });
    else if (item.role === 'assistant') {
      const message: Obj = { role: 'assistant', content: item.text === '' ? null : item.text };
      if (item.toolCalls.length > 0) {
        message['tool_calls'] = item.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.argumentsJson },
        }));
      }
      messages.push(message);
    } else {
      messages.push({ role: 'tool', tool_call_id: item.callId, content: item.content });
    }
  }
  return messages;
}
