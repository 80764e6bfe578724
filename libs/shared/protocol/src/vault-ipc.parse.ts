import { IpcError } from './vault-ipc.errors';
import { type VaultOp, type VaultRequest, requestWrapperSchema, vaultOpArgs } from './vault-ipc.schema';

/**
 * Validates a decoded request object: the wrapper (IPC-2, unknown top-level fields
 * rejected, IPC-1), then the op's own strict argument schema. Throws IpcError
 * (`bad_request` or `unknown_op`); messages name fields, never their values.
 */
export function parseVaultRequest(value: unknown): VaultRequest {
  const wrapper = requestWrapperSchema.safeParse(value);
  if (!wrapper.success) {
    throw new IpcError('bad_request', `invalid request wrapper: ${describeIssues(wrapper.error.issues)}`);
  }
  const { id, op } = wrapper.data;
  if (!Object.hasOwn(vaultOpArgs, op)) throw new IpcError('unknown_op', `unknown op ${op}`);
  const args = vaultOpArgs[op as VaultOp].safeParse(wrapper.data.args ?? {});
  if (!args.success)
    throw new IpcError('bad_request', `invalid args for ${op}: ${describeIssues(args.error.issues)}`);
  return { v: 1, id, op, args: args.data } as VaultRequest;
}

/** Field paths and messages of zod issues, never the values (so never a token or a secret). */
export function describeIssues(
  issues: readonly { path: PropertyKey[]; message: string; code?: string }[],
): string {
  return issues
    .slice(0, 5)
    .map(
      (i) =>
        `${i.path.map(String).join('.') || '(root)'}: ${i.code === 'unrecognized_keys' ? 'unknown field' : i.message}`,
    )
    .join('; ');
}

/** The request id of a wrapper that failed validation, when it has a usable one, so the error can be matched. */
export function requestIdOf(value: unknown): number {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : 0;
}
