import { parseVaultRequest } from '@arslan/protocol';
import { FAKE_ASSET_ID, FakeVaultService } from './testing/fake-vault.service';
import { SessionPolicy } from './session-policy';
import { VaultRequestHandler } from './vault-request.handler';

const limits = {
  unlockIdleMs: 60_000,
  sudoMaxMs: 60_000,
  sudoIdleMs: 60_000,
  freeAttempts: 2,
  backoffBaseMs: 10,
  backoffMaxMs: 35,
};
const OTHER = 'f'.repeat(32);

describe('vault request handler: card ops (MCP-5, MCP-12)', () => {
  let service: FakeVaultService;
  let handler: VaultRequestHandler;
  let now: number;

  const handle = (op: string, args: unknown) =>
    handler.handle(parseVaultRequest({ v: 1, id: 1, op, args }), { peer: undefined });

  beforeEach(() => {
    now = 1_000;
    service = new FakeVaultService();
    service.unlocked = true;
    const policy = new SessionPolicy({ now: () => now }, limits);
    handler = new VaultRequestHandler({ service, policy, parentPidOf: () => undefined, dataDir: '/data' });
  });

  it('card_write reaches the service on the terminal surface (secret map allowed) through the write queue', async () => {
    const result = await handle('card_write', { title: 'c', body: '{{secret:pw}}', secrets: { pw: 'v' } });
    expect(result).toEqual({ vault: 'personal', card_id: FAKE_ASSET_ID, revision_id: 'a'.repeat(64) });
    expect(service.cardSurfaces).toEqual(['terminal']);
    expect(service.callsOf('cardWrite')).toBe(1);
  });

  it('card_link and card_graph dispatch to the service', async () => {
    expect(await handle('card_link', { from: FAKE_ASSET_ID, to: OTHER, rel: 'uses' })).toMatchObject({
      from: FAKE_ASSET_ID,
      to: OTHER,
      rel: 'uses',
      changed: true,
    });
    expect(await handle('card_graph', { card_id: FAKE_ASSET_ID, depth: 2 })).toMatchObject({
      root: FAKE_ASSET_ID,
      nodes: [{ card_id: FAKE_ASSET_ID }],
    });
    expect(service.callsOf('cardLink')).toBe(1);
    expect(service.callsOf('cardGraph')).toBe(1);
  });

  it('service errors pass through and are audited while unlocked (IPC-15)', async () => {
    service.unlocked = false;
    await expect(handle('card_graph', { card_id: FAKE_ASSET_ID })).rejects.toMatchObject({ code: 'locked' });
  });
});
