// RAG-24..26: prepare → model → strict parse. The model is never called without evidence.
import { parseAnswer } from './answer-parser';
import { type AskOptions, type AskSource, prepareAsk } from './ask-prompt';
import { type ChatModel, type ChunkRecord } from './retrieval.ports';
import { RetrievalError } from './retrieval.errors';

export interface AskResult {
  answer: string;
  citations: string[];
  /** The cited sources only, in citation order (for the RAG-23 audit of delivered sources). */
  cited: AskSource[];
  /** Every source sent to the model (EGRESS-2). */
  sent: AskSource[];
}

/**
 * Throws `insufficient_evidence` before any model call when no chunk qualifies, and after the call when
 * the model says the sources do not answer; `bad_answer` / `unknown_citation` / `missing_citation` when
 * the reply fails RAG-25. Aborting the signal stops delivery of a late reply (RAG-28).
 */
export async function runAsk(
  question: string,
  chunks: readonly ChunkRecord[],
  model: ChatModel,
  options: AskOptions & { signal?: AbortSignal } = {},
): Promise<AskResult> {
  const prepared = prepareAsk(question, chunks, options);
  options.signal?.throwIfAborted();
  const raw = await model.complete(prepared.messages, { signal: options.signal });
  options.signal?.throwIfAborted();
  const parsed = parseAnswer(raw, prepared.allowedIds);
  if (parsed.citations.length === 0) {
    throw new RetrievalError('insufficient_evidence', 'the model found no answer in the sources');
  }
  const byId = new Map(prepared.sources.map((s) => [s.id, s]));
  return {
    answer: parsed.answer,
    citations: parsed.citations,
    cited: parsed.citations.map((id) => byId.get(id) as AskSource),
    sent: prepared.sources,
  };
}
