import { IpcError } from './vault-ipc.errors';
import { parseVaultRequest } from './vault-ipc.parse';

function code(value: unknown): string {
  try {
    parseVaultRequest(value);
    return 'ok';
  } catch (error) {
    return error instanceof IpcError ? error.code : 'untyped';
  }
}

describe('vault IPC request schema', () => {
  it('IPC-1/IPC-2: accepts a version-1 wrapper with a known snake_case op', () => {
    const req = parseVaultRequest({ v: 1, id: 7, op: 'write', args: { title: 't', body: 'b' } });
    expect(req).toEqual({ v: 1, id: 7, op: 'write', args: { title: 't', body: 'b' } });
    expect(parseVaultRequest({ v: 1, id: 1, op: 'status' }).args).toEqual({});
  });

  it('IPC-1: rejects unknown top-level fields and unknown argument fields', () => {
    expect(code({ v: 1, id: 1, op: 'status', extra: true })).toBe('bad_request');
    expect(code({ v: 1, id: 1, op: 'lock', args: { force: true } })).toBe('bad_request');
    expect(code({ v: 1, id: 1, op: 'import', args: { items: [{ title: 'a', body: 'b', tag: 'x' }] } })).toBe(
      'bad_request',
    );
  });

  it('rejects other versions, camelCase or unknown ops, and wrong types', () => {
    expect(code({ v: 2, id: 1, op: 'status' })).toBe('bad_request');
    expect(code({ v: 1, id: 1, op: 'auditVerify' })).toBe('bad_request');
    expect(code({ v: 1, id: 1, op: 'format_disk' })).toBe('unknown_op');
    expect(code({ v: 1, id: -1, op: 'status' })).toBe('bad_request');
    expect(code({ v: 1, id: 1, op: 'read', args: { asset_id: 5 } })).toBe('bad_request');
    expect(code({ v: 1, id: 1, op: 'backup', args: { path: 'relative/file', backup_password: 'x' } })).toBe(
      'bad_request',
    );
    expect(code([])).toBe('bad_request');
    expect(code(null)).toBe('bad_request');
  });

  it('never echoes a password in an error message', () => {
    try {
      parseVaultRequest({ v: 1, id: 1, op: 'unlock', args: { password: 'hunter2-secret', x: 1 } });
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
      return;
    }
    throw new Error('expected a rejection');
  });
});
