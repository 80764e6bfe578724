/** Exhaustiveness guard: the compiler proves this is never reached. */
export function assertUnreachable(value: never, context = 'value'): never {
  throw new Error(`unreachable ${context}: ${String(value)}`);
}
