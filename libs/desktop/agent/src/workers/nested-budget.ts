// WORK-05 / BUD-06: a worker's budget. Every request, token, dollar and tool call a worker spends
// is charged to the parent task's budget as it happens, and the worker stops as soon as either its
// own limits or the parent's are reached.
import { Budget, type BudgetOptions, type BudgetVerdict } from '../budget/budget';
import type { Usage } from '../ports';

export class NestedBudget extends Budget {
  constructor(
    private readonly parent: Budget,
    private readonly parentModel: string,
    options: BudgetOptions = {},
  ) {
    super(options);
  }

  override chargeResponse(model: string, usage: Usage): number {
    this.parent.chargeResponse(this.parentModel, usage);
    return super.chargeResponse(model, usage);
  }

  override chargeFailedRequest(): void {
    this.parent.chargeFailedRequest();
    super.chargeFailedRequest();
  }

  override chargeToolCall(): void {
    this.parent.chargeToolCall();
    super.chargeToolCall();
  }

  /** The stricter of the worker's own verdict and the parent's. */
  override check(): BudgetVerdict {
    const own = super.check();
    const parent = this.parent.check();
    const rank = { ok: 0, wrap_up: 1, stop: 2 } as const;
    return rank[parent.state] > rank[own.state] ? parent : own;
  }
}
