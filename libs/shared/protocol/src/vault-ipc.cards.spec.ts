import { ASSET_KINDS, cardOpArgs, mcpCardWriteArgs } from './vault-ipc.cards';
import { IpcError } from './vault-ipc.errors';
import { parseVaultRequest } from './vault-ipc.parse';

const ID = '0123456789abcdef0123456789abcdef';
const ID2 = 'fedcba9876543210fedcba9876543210';

function code(op: string, args: unknown): string {
  try {
    parseVaultRequest({ v: 1, id: 1, op, args });
    return 'ok';
  } catch (error) {
    return error instanceof IpcError ? error.code : 'untyped';
  }
}

describe('asset kinds and card ops on the wire (MCP-5, MCP-12, CRED-1)', () => {
  it('exports the asset kinds', () => {
    expect(ASSET_KINDS).toEqual(['memory', 'private', 'credential', 'card']);
  });

  it('write takes an optional kind: memory, private or credential (never card)', () => {
    expect(code('write', { title: 't', body: 'b' })).toBe('ok');
    for (const kind of ['memory', 'private', 'credential'])
      expect(code('write', { title: 't', body: 'b', kind })).toBe('ok');
    expect(code('write', { title: 't', body: 'b', kind: 'card' })).toBe('bad_request');
    expect(code('write', { title: 't', body: 'b', kind: 'file' })).toBe('bad_request');
  });

  it('card_write: strict, bounded fields, secret labels ^[a-z0-9_.-]{1,64}$', () => {
    expect(code('card_write', { title: 'c' })).toBe('ok');
    expect(
      code('card_write', {
        vault: 'work',
        card_id: ID,
        title: 'c',
        body: 'b',
        fields: { a: '1' },
        secrets: { 'pw.main': 'v' },
      }),
    ).toBe('ok');
    expect(code('card_write', { title: 'c', links: [] })).toBe('bad_request');
    expect(code('card_write', { body: 'b' })).toBe('bad_request');
    expect(code('card_write', { title: 'c', secrets: { 'Bad Label': 'v' } })).toBe('bad_request');
    expect(code('card_write', { title: 'c', secrets: { ['x'.repeat(65)]: 'v' } })).toBe('bad_request');
    expect(code('card_write', { title: 'c', fields: { a: 1 } })).toBe('bad_request');
    expect(code('card_write', { title: 'c', fields: { ['n'.repeat(65)]: 'v' } })).toBe('bad_request');
    expect(code('card_write', { title: 'c', fields: { big: 'é'.repeat(2049) } })).toBe('bad_request');
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`f${i}`, 'v']));
    expect(code('card_write', { title: 'c', fields: many })).toBe('bad_request');
    expect(code('card_write', { title: 'c', card_id: 'short' })).toBe('bad_request');
  });

  it('MCP-12: mcpCardWriteArgs has no secret map — a `secrets` member is rejected', () => {
    expect(mcpCardWriteArgs.safeParse({ title: 'c', fields: { a: '1' } }).success).toBe(true);
    expect(mcpCardWriteArgs.safeParse({ title: 'c', secrets: {} }).success).toBe(false);
    expect(mcpCardWriteArgs.safeParse({ title: 'c', secrets: { pw: 'v' } }).success).toBe(false);
    expect(mcpCardWriteArgs.safeParse({ title: 'c', extra: 1 }).success).toBe(false);
    expect(cardOpArgs.card_write.safeParse({ title: 'c', secrets: { pw: 'v' } }).success).toBe(true);
  });

  it('card_link and card_graph: strict, rel pattern, depth 1..3', () => {
    expect(code('card_link', { from: ID, to: ID2, rel: 'depends_on' })).toBe('ok');
    expect(code('card_link', { from: ID, to: ID2, rel: 'x', remove: true })).toBe('ok');
    expect(code('card_link', { from: ID, to: ID2, rel: 'Has Space' })).toBe('bad_request');
    expect(code('card_link', { from: ID, to: ID2 })).toBe('bad_request');
    expect(code('card_link', { from: ID, to: ID2, rel: 'x', weight: 1 })).toBe('bad_request');
    expect(code('card_graph', { card_id: ID })).toBe('ok');
    expect(code('card_graph', { card_id: ID, depth: 3 })).toBe('ok');
    expect(code('card_graph', { card_id: ID, depth: 0 })).toBe('bad_request');
    expect(code('card_graph', { card_id: ID, depth: 4 })).toBe('bad_request');
    expect(code('card_graph', { card_id: ID, depth: 1.5 })).toBe('bad_request');
    expect(code('card_graph', { card_id: ID, follow: 'all' })).toBe('bad_request');
  });
});
