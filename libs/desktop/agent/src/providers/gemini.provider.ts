// Gemini: POST {baseUrl}/v1beta/models/{model}:streamGenerateContent?alt=sse, `x-goog-api-key`,
// `contents` with native functionCall / functionResponse parts. Gemini usually sends no call
// ids: the adapter synthesises stable ones (`gcall_…`) and maps results back to their call by id.
import type { ModelRequest, StopReason } from '../ports/model.port';
import { newCallId, type ResponseBuilder } from './response-builder';
import { toolSchemaFor } from './schema-sanitize';
import type { SseEvent } from './sse';
import {
  StreamingProvider,
  type OptionalParams,
  type WireDecoder,
  type WireRequest,
} from './streaming-provider';
import { argsObject, isObj, num, parseData, str, streamError, type Obj } from './wire-util';

/** Prefix of ids the adapter made up; these are never sent back to Gemini. */
export const GEMINI_SYNTHETIC_ID_PREFIX = 'gcall_';
const MAX_SIGNATURES = 2000;

export class GeminiProvider extends StreamingProvider {
  readonly kind = 'gemini' as const;
  protected readonly label = 'Gemini';
  /** Thought signatures Gemini attaches to function calls must be echoed back with them. */
  private readonly signatures = new Map<string, string>();

  protected buildRequest(request: ModelRequest, params: OptionalParams): WireRequest {
    const generationConfig: Obj = {};
    params.set(generationConfig, 'maxOutputTokens', request.maxOutputTokens);
    params.set(generationConfig, 'temperature', request.temperature);
    const body: Obj = { contents: renderGeminiContents(request, this.signatures), generationConfig };
    if (request.system) body['systemInstruction'] = { parts: [{ text: request.system }] };
    if (request.tools.length > 0) {
      body['tools'] = [
        {
          functionDeclarations: request.tools.map((tool) => {
            const parameters = toolSchemaFor(tool, 'gemini');
            const empty =
              tool.source === 'mcp' &&
              (!isObj(parameters['properties']) || Object.keys(parameters['properties']).length === 0);
            return { name: tool.name, description: tool.description, ...(empty ? {} : { parameters }) };
          }),
        },
      ];
    }
    const headers: Record<string, string> = { ...this.options.headers };
    if (this.apiKey) headers['x-goog-api-key'] = this.apiKey;
    const model = encodeURIComponent(request.model.replace(/^models\//, ''));
    return { url: `${this.baseUrl}/v1beta/models/${model}:streamGenerateContent?alt=sse`, headers, body };
  }

  protected decoder(_request: ModelRequest, out: ResponseBuilder): WireDecoder {
    const label = this.label;
    const custom = this.makeCallId;
    const makeId = custom ? () => `${GEMINI_SYNTHETIC_ID_PREFIX}${custom()}` : () => newCallId('gcall');
    let finished = false;
    let calls = 0;
    return {
      get finished() {
        return finished;
      },
      event: (event: SseEvent): boolean => {
        const chunk = parseData(label, event.data);
        if (chunk['error'] !== undefined) throw streamError(label, chunk['error'], out.hasOutput());
        const usage = chunk['usageMetadata'];
        if (isObj(usage)) {
          out.setUsage({
            inputTokens: num(usage['promptTokenCount']) ?? 0,
            outputTokens: (num(usage['candidatesTokenCount']) ?? 0) + (num(usage['thoughtsTokenCount']) ?? 0),
          });
        }
        const feedback = isObj(chunk['promptFeedback']) ? chunk['promptFeedback'] : {};
        const candidates = Array.isArray(chunk['candidates']) ? chunk['candidates'] : [];
        if (candidates.length === 0 && str(feedback['blockReason'])) {
          finished = true;
          out.stopReason = 'other';
        }
        const candidate = candidates.find(isObj);
        if (!candidate) return false;
        const content = isObj(candidate['content']) ? candidate['content'] : {};
        const parts = Array.isArray(content['parts']) ? content['parts'] : [];
        for (const part of parts) {
          if (!isObj(part) || part['thought'] === true) continue;
          const text = str(part['text']);
          if (text) out.addText(text);
          const call = part['functionCall'];
          if (isObj(call)) {
            const key = String(calls++);
            const id = str(call['id']) || makeId();
            out.call(key, id, str(call['name']));
            out.appendArgs(key, JSON.stringify(isObj(call['args']) ? call['args'] : {}));
            const signature = str(part['thoughtSignature']);
            if (signature) this.remember(id, signature);
          }
        }
        const reason = str(candidate['finishReason']);
        if (reason && reason !== 'FINISH_REASON_UNSPECIFIED') {
          finished = true;
          out.stopReason = geminiStop(reason, out.toolCalls().length > 0);
        }
        return false;
      },
    };
  }

  private remember(id: string, signature: string): void {
    if (this.signatures.size >= MAX_SIGNATURES) {
      const oldest = this.signatures.keys().next().value;
      if (oldest !== undefined) this.signatures.delete(oldest);
    }
    this.signatures.set(id, signature);
  }
}

function geminiStop(reason: string, hasCalls: boolean): StopReason {
  if (reason === 'MAX_TOKENS') return 'max_tokens';
  if (reason === 'STOP') return hasCalls ? 'tool_calls' : 'end';
  return 'other';
}

const wireId = (id: string): Obj => (id.startsWith(GEMINI_SYNTHETIC_ID_PREFIX) ? {} : { id });

/**
 * PROV-07: model turns carry `functionCall` parts; results go back as `functionResponse` parts
 * (`{output}` or `{error}`), named after the call their id points to and kept in call order.
 */
export function renderGeminiContents(
  request: ModelRequest,
  signatures: ReadonlyMap<string, string> = new Map(),
): Obj[] {
  const contents: { role: 'user' | 'model'; parts: Obj[] }[] = [];
  const callsById = new Map<string, { name: string; order: number }>();
  const push = (role: 'user' | 'model', parts: Obj[]): void => {
    if (parts.length === 0) return;
    const last = contents[contents.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  const pendingResults: { order: number; part: Obj }[] = [];
  const flushResults = (): void => {
    if (pendingResults.length === 0) return;
    pendingResults.sort((a, b) => a.order - b.order);
    push(
      'user',
      pendingResults.map((r) => r.part),
    );
    pendingResults.length = 0;
  };
  for (const item of request.trajectory) {
    if (item.role === 'tool') {
      const call = callsById.get(item.callId);
      pendingResults.push({
        order: call?.order ?? Number.MAX_SAFE_INTEGER,
        part: {
          functionResponse: {
            ...wireId(item.callId),
            name: call?.name ?? item.name,
            response: item.isError ? { error: item.content } : { output: item.content },
          },
        },
      });
      continue;
    }
    flushResults();
    if (item.role === 'user') {
      push('user', item.text ? [{ text: item.text }] : []);
    } else {
      item.toolCalls.forEach((call, order) => callsById.set(call.id, { name: call.name, order }));
      push('model', [
        ...(item.text ? [{ text: item.text }] : []),
        ...item.toolCalls.map((call) => {
          const signature = signatures.get(call.id);
          return {
            functionCall: { ...wireId(call.id), name: call.name, args: argsObject(call.argumentsJson) },
            ...(signature ? { thoughtSignature: signature } : {}),
          };
        }),
      ]);
    }
  }
  flushResults();
  return contents;
}
