// The one adapter interface between the loop and a model (PROV-01). Providers own their wire
// format, streaming parser, tool-call encoding and usage; the loop sees only these types.
// The trajectory is provider-neutral (PROV-07): each provider renders it natively.

/** JSON Schema (draft 2020-12 subset) of a tool's arguments, as sent to providers. */
export type JsonSchema = Record<string, unknown>;

export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  /** `mcp` schemas are reshaped per provider (PROV-10); built-in ones are sent unchanged. */
  source: 'builtin' | 'mcp';
}

/** One tool call as the model requested it; `argumentsJson` is not parsed or validated yet. */
export interface ToolCallRequest {
  id: string;
  name: string;
  argumentsJson: string;
}

export type TrajectoryItem =
  | { role: 'user'; text: string }
  /** Text that came with tool calls is narration (LOOP-07), kept so the provider sees its own turn. */
  | { role: 'assistant'; text: string; toolCalls: ToolCallRequest[] }
  /** LOOP-09: every result carries the id of its call. */
  | { role: 'tool'; callId: string; name: string; content: string; isError: boolean };

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export type StopReason =
  /** The model finished (no tool calls, or tool calls complete). */
  | 'end'
  | 'tool_calls'
  /** LOOP-06: cut off by the output limit; a tool batch in this turn must never run. */
  | 'max_tokens'
  | 'other';

export interface ModelRequest {
  model: string;
  system: string;
  trajectory: readonly TrajectoryItem[];
  tools: readonly ToolSpec[];
  maxOutputTokens: number;
  /** Optional parameters the adapter may drop or rename when rejected (PROV-09). */
  temperature?: number;
}

export interface ModelResponse {
  text: string;
  toolCalls: ToolCallRequest[];
  stopReason: StopReason;
  usage: Usage;
}

export type ModelStreamEvent =
  | { type: 'text'; delta: string }
  | { type: 'tool_call'; id: string; name: string }
  | { type: 'usage'; usage: Usage };

export type ProviderErrorKind =
  /** Bad credentials: never retried. */
  | 'auth'
  /** The provider refused one tool (or all, `tool` undefined) — PROV-11. */
  | 'rejected_tool'
  /** 429 / overloaded / selected 5xx / connect reset: retried within budget (LOOP-21). */
  | 'transient'
  /** Timeout of the whole request or of the stream going silent. */
  | 'timeout'
  /** The stream broke after partial output (LOOP-15). */
  | 'stream_broken'
  | 'cancelled'
  | 'bad_response'
  | 'bad_request';

export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly details: { tool?: string; status?: number; partial?: ModelResponse } = {},
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export interface ModelProvider {
  /** 'openai-compatible' | 'anthropic' | 'gemini' */
  readonly kind: string;
  /**
   * ARCH-18 / CTX-02: the origin (scheme://host:port) requests go to — never a path, query or
   * key. It names the endpoint in request records and tells local models from cloud ones.
   * Absent: unknown (treated as a cloud endpoint).
   */
  readonly origin?: string;
  /**
   * Streams one model response. Calls `onEvent` as text and tool calls arrive (LOOP-14), resolves
   * with the complete response. Rejects with ProviderError; honours `signal` (stop, CKPT-08).
   * A rejected optional parameter is handled inside (dropped or renamed, retried, remembered per
   * model until restart: PROV-09) and never surfaces.
   */
  stream(
    request: ModelRequest,
    onEvent: (event: ModelStreamEvent) => void,
    signal: AbortSignal,
  ): Promise<ModelResponse>;
}

/** Dollars per million tokens; unknown models are unpriced (BUD-12). */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
}
