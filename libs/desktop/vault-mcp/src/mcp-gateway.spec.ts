import type { GrantVaultContext, JsonObject, JsonValue, VaultService } from '@arslan/desktop-vault';
import { IpcError } from '@arslan/protocol';
import { GrantRegistry } from './grant-registry';
import { McpGateway } from './mcp-gateway';

// The gateway's checks in isolation (MCP-6, MCP-8, GRANT-15), over a stub of the vault service
// that records which service methods were reached. End to end: tests/e2e/mcp.
const VAULT_ID = 'a'.repeat(32);
const ASSET = '1'.repeat(32);

function stubService() {
  const calls: string[] = [];
  const log: JsonObject[] = [];
  const state = {
    members: [{ name: 'owner', role: 'owner' }] as GrantVaultContext['members'],
    kinds: new Map<string, string>([[ASSET, 'private']]),
    vaults: [
      { name: 'personal', vault_id: VAULT_ID, device_only: false },
      { name: 'other', vault_id: 'b'.repeat(32), device_only: false },
    ],
  };
  const service = {
    state: () => ({ initialized: true, unlocked: true, deviceFingerprint: null, vaults: state.vaults }),
    unlockGeneration: () => 1,
    grantContext: (vault: string) => {
      const v = state.vaults.find((x) => x.name === vault);
      return { vault, vault_id: v?.vault_id ?? '', local_member: 'owner', members: state.members };
    },
    readGrantLog: (): JsonValue[] => structuredClone(log),
    appendGrantLog: (entries: readonly JsonObject[]) => void log.push(...entries),
    rewriteGrantLog: (entries: readonly JsonObject[]) => void log.splice(0, log.length, ...entries),
    assetKind: (_vault: string, id: string) => {
      calls.push('assetKind');
      return state.kinds.get(id) ?? 'memory';
    },
    read: () => {
      calls.push('read');
      return { body: 'x' };
    },
    write: () => {
      calls.push('write');
      return { asset_id: ASSET };
    },
    recordEvent: () => calls.push('recordEvent'),
  };
  return { service: service as unknown as VaultService, calls, state };
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (error) {
    if (error instanceof IpcError) return error.code;
    throw error;
  }
  return 'ok';
}

function setup(scope: 'read' | 'read_write' = 'read') {
  const stub = stubService();
  const registry = new GrantRegistry(stub.service);
  const gateway = new McpGateway({ service: stub.service, registry });
  const { token } = gateway
    .ensureGrants()
    .issue({ context: stub.service.grantContext('personal'), scope, minutes: 5 });
  return { ...stub, gateway, token };
}

describe('McpGateway', () => {
  it('MCP-8: private and credential assets are refused before any read', async () => {
    const { gateway, token, calls } = setup();
    expect(await refusal(gateway.call(token, 'memory_read', { vault: 'personal', asset_id: ASSET }))).toBe(
      'forbidden',
    );
    expect(calls).not.toContain('read');
    expect(
      await refusal(gateway.call(token, 'memory_read', { vault: 'personal', asset_id: '2'.repeat(32) })),
    ).toBe('ok');
  });

  it('MCP-6: another vault, by name or by id, is forbidden', async () => {
    const { gateway, token, state } = setup();
    expect(await refusal(gateway.call(token, 'memory_read', { vault: 'other', asset_id: ASSET }))).toBe(
      'forbidden',
    );
    // the same name re-created as another vault
    state.vaults[0] = { name: 'personal', vault_id: 'c'.repeat(32), device_only: false };
    expect(
      await refusal(gateway.call(token, 'memory_read', { vault: 'personal', asset_id: '2'.repeat(32) })),
    ).toBe('forbidden');
  });

  it('MCP-3: scope gates writes; a write grant writes only ordinary memories', async () => {
    const read = setup('read');
    expect(
      await refusal(
        read.gateway.call(read.token, 'memory_write', { vault: 'personal', title: 't', body: 'b' }),
      ),
    ).toBe('forbidden');
    expect(read.calls).not.toContain('write');
    const write = setup('read_write');
    expect(
      await refusal(
        write.gateway.call(write.token, 'memory_write', { vault: 'personal', title: 't', body: 'b' }),
      ),
    ).toBe('ok');
    expect(
      await refusal(
        write.gateway.call(write.token, 'memory_write', {
          vault: 'personal',
          asset_id: ASSET,
          title: 't',
          body: 'b',
        }),
      ),
    ).toBe('forbidden');
  });

  it('GRANT-15: a holder removed from the vault, or demoted below the scope, loses the grant', async () => {
    const { gateway, token, state } = setup('read_write');
    const ok = { vault: 'personal', asset_id: '2'.repeat(32) };
    expect(await refusal(gateway.call(token, 'memory_read', ok))).toBe('ok');
    state.members = [{ name: 'owner', role: 'reader' }];
    expect(await refusal(gateway.call(token, 'memory_read', ok))).toBe('unauthorized');
    state.members = [{ name: 'someone', role: 'owner' }];
    expect(await refusal(gateway.call(token, 'memory_read', ok))).toBe('unauthorized');
  });

  it('bad arguments are bad_request and name fields, never values', async () => {
    const { gateway, token } = setup();
    const secret = 'do-not-echo-me';
    try {
      await gateway.call(token, 'memory_search', { vault: 'personal', query: 'x', [secret]: secret });
      throw new Error('accepted');
    } catch (error) {
      expect((error as IpcError).code).toBe('bad_request');
      expect((error as Error).message).not.toContain(secret);
    }
  });
});
