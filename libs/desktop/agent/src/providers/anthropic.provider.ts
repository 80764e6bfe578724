// Anthropic Messages: POST {baseUrl}/v1/messages, `anthropic-version: 2023-06-01`, `x-api-key`,
// streaming events message_start … message_stop, native `tool_use` / `tool_result` blocks.
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
import { argsObject, isObj, num, parseData, str, streamError, type Obj } from './wire-util';

export const ANTHROPIC_VERSION = '2023-06-01';

export class AnthropicProvider extends StreamingProvider {
  readonly kind = 'anthropic' as const;
  protected readonly label = 'Anthropic';

  protected buildRequest(request: ModelRequest, params: OptionalParams): WireRequest {
    const body: Obj = {
      model: request.model,
      max_tokens: request.maxOutputTokens,
      messages: renderAnthropicMessages(request),
      stream: true,
    };
    if (request.system) body['system'] = request.system;
    params.set(body, 'temperature', request.temperature);
    if (request.tools.length > 0) {
      body['tools'] = request.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        input_schema: toolSchemaFor(tool, 'anthropic'),
      }));
    }
    const headers: Record<string, string> = {
      'anthropic-version': ANTHROPIC_VERSION,
      ...this.options.headers,
    };
    if (this.apiKey) headers['x-api-key'] = this.apiKey;
    return { url: `${this.baseUrl}/v1/messages`, headers, body };
  }

  protected decoder(_request: ModelRequest, out: ResponseBuilder): WireDecoder {
    const label = this.label;
    let finished = false;
    let input: number | undefined;
    const toolBlocks = new Set<number>();
    return {
      get finished() {
        return finished;
      },
      event(event: SseEvent): boolean {
        if (event.event === 'ping') return false;
        const data = parseData(label, event.data);
        const type = str(data['type']) ?? event.event;
        switch (type) {
          case 'message_start': {
            const message = isObj(data['message']) ? data['message'] : {};
            const usage = isObj(message['usage']) ? message['usage'] : {};
            input =
              (num(usage['input_tokens']) ?? 0) +
              (num(usage['cache_creation_input_tokens']) ?? 0) +
              (num(usage['cache_read_input_tokens']) ?? 0);
            out.setUsage({ inputTokens: input, outputTokens: num(usage['output_tokens']) ?? 0 });
            return false;
          }
          case 'content_block_start': {
            const index = num(data['index']) ?? 0;
            const block = isObj(data['content_block']) ? data['content_block'] : {};
            if (block['type'] === 'tool_use') {
              toolBlocks.add(index);
              out.call(String(index), str(block['id']), str(block['name']));
              const initial = block['input'];
              if (isObj(initial) && Object.keys(initial).length > 0)
                out.appendArgs(String(index), JSON.stringify(initial));
            } else if (block['type'] === 'text') {
              out.addText(str(block['text']) ?? '');
            }
            return false;
          }
          case 'content_block_delta': {
            const index = num(data['index']) ?? 0;
            const delta = isObj(data['delta']) ? data['delta'] : {};
            if (delta['type'] === 'text_delta') out.addText(str(delta['text']) ?? '');
            else if (delta['type'] === 'input_json_delta' && toolBlocks.has(index)) {
              out.appendArgs(String(index), str(delta['partial_json']) ?? '');
            }
            return false;
          }
          case 'message_delta': {
            const delta = isObj(data['delta']) ? data['delta'] : {};
            const reason = str(delta['stop_reason']);
            if (reason) {
              finished = true;
              out.stopReason = anthropicStop(reason, out.toolCalls().length > 0);
            }
            const usage = isObj(data['usage']) ? data['usage'] : {};
            const newInput = num(usage['input_tokens']);
            out.setUsage({
              inputTokens: newInput !== undefined ? Math.max(newInput, input ?? 0) : input,
              outputTokens: num(usage['output_tokens']),
            });
            return false;
          }
          case 'message_stop':
            finished = true;
            return true;
          case 'error':
            throw streamError(label, data['error'], out.hasOutput());
          default:
            // content_block_stop, thinking blocks and unknown future events carry nothing we need
            return false;
        }
      },
    };
  }
}

function anthropicStop(reason: string, hasCalls: boolean): StopReason {
  if (reason === 'max_tokens' || reason === 'model_context_window_exceeded') return 'max_tokens';
  if (reason === 'tool_use') return 'tool_calls';
  if (reason === 'end_turn' || reason === 'stop_sequence') return hasCalls ? 'tool_calls' : 'end';
  return 'other';
}

/**
 * PROV-07: assistant turns carry `tool_use` blocks, results go back as `tool_result` blocks with
 * `tool_use_id` and `is_error`. Consecutive same-role turns are merged (strict alternation).
 */
export function renderAnthropicMessages(request: ModelRequest): Obj[] {
  const messages: { role: 'user' | 'assistant'; content: Obj[] }[] = [];
  const push = (role: 'user' | 'assistant', blocks: Obj[]): void => {
    if (blocks.length === 0) return;
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const item of request.trajectory) {
    if (item.role === 'user') {
      push('user', item.text ? [{ type: 'text', text: item.text }] : []);
    } else if (item.role === 'assistant') {
      push('assistant', [
        ...(item.text ? [{ type: 'text', text: item.text }] : []),
        ...item.toolCalls.map((call) => ({
          type: 'tool_use',
          id: call.id,
          name: call.name,
          input: argsObject(call.argumentsJson),
        })),
      ]);
    } else {
      push('user', [
        {
          type: 'tool_result',
          tool_use_id: item.callId,
          content: item.content,
          ...(item.isError ? { is_error: true } : {}),
        },
      ]);
    }
  }
  return messages;
}
