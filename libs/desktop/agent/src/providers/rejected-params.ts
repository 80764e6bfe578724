// PROV-09: a provider that rejects an optional request parameter gets the request again without
// it, or under the name its error asks for. The decision is remembered per (base URL, model) in
// memory only, deliberately not persisted: a daemon restart tries the parameter again.

export type ParamDecision = { action: 'drop' } | { action: 'rename'; to: string };

export class RejectedParamMemory {
  private readonly decisions = new Map<string, Map<string, ParamDecision>>();

  static key(baseUrl: string, model: string): string {
    return `${baseUrl.replace(/\/+$/, '')}\u0000${model}`;
  }

  /** Decisions for one (base URL, model), keyed by the parameter's original wire name. */
  get(baseUrl: string, model: string): ReadonlyMap<string, ParamDecision> {
    return this.decisions.get(RejectedParamMemory.key(baseUrl, model)) ?? new Map();
  }

  record(baseUrl: string, model: string, param: string, decision: ParamDecision): void {
    const key = RejectedParamMemory.key(baseUrl, model);
    let forModel = this.decisions.get(key);
    if (!forModel) {
      forModel = new Map();
      this.decisions.set(key, forModel);
    }
    forModel.set(param, decision);
  }

  clear(): void {
    this.decisions.clear();
  }
}

/** Shared by every adapter instance of this process unless one is injected. */
export const processParamMemory = new RejectedParamMemory();

const REJECTION_CUE =
  /not supported|unsupported|unknown|unrecognized|unrecognised|not allowed|not permitted|does not support|doesn't support|isn't supported|deprecated|extra inputs|extra_forbidden|invalid parameter|cannot be used|can't be used|only the default|instead|cannot find field/i;

const RENAME = /\buse\s+[`'"]?([A-Za-z_][A-Za-z0-9_.]*)[`'"]?\s+instead\b/i;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function position(message: string, name: string): number {
  const variants = new Set([name, snake(name)]);
  let best = -1;
  for (const variant of variants) {
    const match = new RegExp(`(^|[^A-Za-z0-9_])${escapeRegExp(variant)}(?![A-Za-z0-9_])`).exec(message);
    if (match && (best === -1 || match.index < best)) best = match.index;
  }
  return best;
}

/**
 * Finds which of the optional parameters sent (wire names) a 400 message rejects, and the name it
 * asks for instead, if any. Undefined when the message does not clearly reject one of them.
 */
export function detectRejectedParam(
  message: string,
  sentOptional: readonly string[],
): { param: string; renameTo?: string } | undefined {
  if (!REJECTION_CUE.test(message)) return undefined;
  const rename = RENAME.exec(message)?.[1];
  let found: { param: string; at: number } | undefined;
  for (const param of sentOptional) {
    if (param === rename) continue;
    const at = position(message, param);
    if (at !== -1 && (!found || at < found.at)) found = { param, at };
  }
  if (!found) return undefined;
  if (rename && !sentOptional.includes(rename) && rename !== snake(found.param)) {
    return { param: found.param, renameTo: rename };
  }
  return { param: found.param };
}
