// KNOW-04/05, RAG-3/6, EGRESS-11: the agent's `recall` tool through the REAL daemon runtime — a
// real vault and its RAG service, the local API, and an agent run against the scripted provider
// server over real HTTP.
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { ScriptedProviderServer } from '@arslan/desktop-agent-testing';
import { type LocalVaultService, createVaultService } from '@arslan/desktop-vault';
import { TOKEN_FILE_NAME } from '@arslan/local-api';
import { createRagService } from '@arslan/vault-rag';
import { type DaemonAgent, createDaemonAgent } from './daemon-agent';
import { createVaultRecall, isLoopbackUrl } from './daemon-recall';
import { PORT_LINE_PREFIX, runDaemon } from './daemon.runtime';

jest.setTimeout(30_000);

/** NOT Argon2id: a fast stand-in, as the vault specs use. */
const fastKdf = {
  deriveKey: async (password: Uint8Array, salt: Uint8Array) =>
    new Uint8Array(createHash('sha256').update('fast-test-kdf').update(salt).update(password).digest()),
};

async function freshVault(dataDir: string): Promise<LocalVaultService> {
  let t = 1_700_000_000_000;
  const vault = createVaultService(dataDir, { kdf: fastKdf, now: () => (t += 1000) });
  await vault.init('recall spec password');
  return vault;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire bodies are untyped JSON
const toolMessages = (body: any): string[] =>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  (body.messages as any[]).filter((m) => m.role === 'tool').map((m) => String(m.content));

describe('daemon recall tool', () => {
  let root: string;
  let provider: ScriptedProviderServer;
  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'arslan-daemon-recall-'));
    provider = await ScriptedProviderServer.start();
  });
  afterEach(async () => {
    await provider.close();
    rmSync(root, { recursive: true, force: true });
  });

  async function startDaemon(
    vault: LocalVaultService,
    dataDir: string,
    recallVault: string | null = 'personal',
  ) {
    const configPath = join(root, 'arslan.toml');
    writeFileSync(
      configPath,
      [
        '[rag]',
        'embedder = "none"',
        '[agent]',
        'provider = "openai-compatible"',
        `base_url = "${provider.baseUrlFor('openai-compatible')}"`,
        'model = "gpt-4o-mini"',
        recallVault === null ? '' : `recall_vault = "${recallVault}"`,
        '',
      ].join('\n'),
    );
    const lines: string[] = [];
    const stdin = new PassThrough();
    let agent: DaemonAgent | undefined;
    const running = runDaemon(['--data', dataDir, '--config', configPath, '--stdin-lifeline'], {
      createService: () => vault,
      createRag: (service, config) => createRagService({ vault: service, config }),
      createAgent: (dir, config, _mode, access) =>
        (agent = createDaemonAgent(dir, config.agent, () => undefined, access)),
      stdout: (line) => lines.push(line),
      stderr: () => undefined,
      signals: new EventEmitter(),
      stdin,
      apiPort: 0,
    });
    while (lines.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    const port = Number(lines[1]!.slice(PORT_LINE_PREFIX.length));
    const token = readFileSync(join(dataDir, TOKEN_FILE_NAME), 'utf8').trim();
    const run = async (message: string) => {
      const started = await fetch(`http://127.0.0.1:${port}/api/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message, workspace: root }),
      });
      expect(started.status).toBe(201);
      const { runId } = (await started.json()) as { runId: string };
      for (;;) {
        const result = agent!.service.getResult(runId);
        if (result) return result;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    const stop = async () => {
      stdin.end();
      expect(await running).toBe(0);
    };
    return { run, stop, requests: (runId: string) => agent!.service.listRequests(runId) };
  }

  const scriptRecall = (query: string) =>
    provider.enqueue(
      {
        steps: [{ toolCall: { name: 'recall', args: { query, limit: 5 } } }],
        usage: { input: 10, output: 5 },
      },
      { steps: [{ text: 'Answered from the vault.' }], usage: { input: 10, output: 5 } },
    );

  it('KNOW-04/RAG-3: an agent run recalls real hits with citations from the unlocked vault — never private or credential assets — wrapped as external data and audited', async () => {
    const dataDir = join(root, 'data');
    const vault = await freshVault(dataDir);
    const trip = vault.write({ title: 'Kyoto trip', body: 'we walked to the zebra temple near the river' });
    vault.write({ title: 'Diary', body: 'zebra secret diary entry', kind: 'private' });
    vault.write({ title: 'Bank login', body: 'zebra password hunter2', kind: 'credential' });
    const daemon = await startDaemon(vault, dataDir);
    try {
      scriptRecall('zebra');
      const result = await daemon.run('what do I know about the zebra temple?');
      expect(result.status).toBe('succeeded');
      expect(provider.requests).toHaveLength(2);
      const recalled = toolMessages(provider.requests[1]!.body);
      expect(recalled).toHaveLength(1);
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      expect((provider.requests[0]!.body.tools as any[]).map((t) => t.function.name)).toContain('recall');
      const content = recalled[0]!;
      expect(content).toMatch(/^<<external-data id=\S+ source="recall">>/);
      expect(content).toContain('Kyoto trip');
      expect(content).toContain('zebra temple');
      expect(content).not.toContain('secret diary');
      expect(content).not.toContain('hunter2');
      // The audit of the RAG path: a read intent naming only the delivered source, then the outcome.
      const entries = vault.auditEntries();
      const read = entries.filter((e) => e.type === 'intent' && e.kind === 'read').at(-1);
      expect(read?.details['sources']).toEqual([`${trip.asset_id}@${trip.revision_id}`]);
      expect(entries.filter((e) => e.kind === 'rag.result').at(-1)?.details).toEqual(
        expect.objectContaining({ op: 'retrieve', outcome: 'delivered' }),
      );
      expect(JSON.stringify(entries)).not.toContain('zebra');
      // ARCH-18 / MEM-10: the request that carried the hits names the asset revision, not its text.
      const records = daemon.requests(result.runId)!;
      expect(records.map((r) => r.included.materials.map((m) => m.sources))).toEqual([
        [],
        [[{ assetId: trip.asset_id, revisionId: trip.revision_id }]],
      ]);
      expect(JSON.stringify(records)).not.toContain('zebra');
    } finally {
      await daemon.stop();
    }
  });

  it('RAG-6: with the vault locked, recall is a clear tool error and returns nothing', async () => {
    const dataDir = join(root, 'data');
    const vault = await freshVault(dataDir);
    vault.write({ title: 'Kyoto trip', body: 'we walked to the zebra temple near the river' });
    const daemon = await startDaemon(vault, dataDir);
    try {
      vault.lock();
      scriptRecall('zebra');
      const result = await daemon.run('what do I know about the zebra temple?');
      expect(result.status).toBe('succeeded');
      const recalled = toolMessages(provider.requests[1]!.body);
      expect(recalled).toHaveLength(1);
      expect(recalled[0]).toContain('The vault could not be searched: the vault is locked');
      expect(recalled[0]).not.toContain('zebra temple');
    } finally {
      await daemon.stop();
    }
  });

  it('KNOW-05: an unknown recall_vault is a clear tool error', async () => {
    const dataDir = join(root, 'data');
    const vault = await freshVault(dataDir);
    const daemon = await startDaemon(vault, dataDir, 'nowhere');
    try {
      scriptRecall('zebra');
      expect((await daemon.run('look it up')).status).toBe('succeeded');
      expect(toolMessages(provider.requests[1]!.body)[0]).toContain('there is no vault named "nowhere"');
    } finally {
      await daemon.stop();
    }
  });

  it('KNOW-05: without [agent] recall_vault the agent is offered no recall tool', async () => {
    const dataDir = join(root, 'data');
    const vault = await freshVault(dataDir);
    const daemon = await startDaemon(vault, dataDir, null);
    try {
      provider.enqueue({ steps: [{ text: 'hi' }] });
      expect((await daemon.run('hello')).status).toBe('succeeded');
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const offered = (provider.requests[0]!.body.tools as any[]).map((t) => t.function.name);
      expect(offered).toContain('read_file');
      expect(offered).not.toContain('recall');
    } finally {
      await daemon.stop();
    }
  });

  it('EGRESS-11: a device-only vault is refused before retrieval when the model is off the device', async () => {
    const dataDir = join(root, 'data');
    const vault = await freshVault(dataDir);
    vault.vaultCreate({ name: 'local-only', device_only: true });
    vault.write({ title: 'Plans', body: 'confidential otter plans', vault: 'local-only' });
    const rag = createRagService({ vault, config: { embedder: 'none' } });
    try {
      const reads = () => vault.auditEntries().filter((e) => e.type === 'intent' && e.kind === 'read').length;
      const before = reads();
      const cloud = createVaultRecall({ service: vault, rag, vault: 'local-only', modelOnDevice: false });
      await expect(cloud.retrieve('otter', 5)).rejects.toMatchObject({ code: 'device_only' });
      expect(reads()).toBe(before);
      const local = createVaultRecall({ service: vault, rag, vault: 'local-only', modelOnDevice: true });
      expect((await local.retrieve('otter', 5)).map((h) => h.title)).toEqual(['Plans']);
    } finally {
      await rag.close();
      vault.close();
    }
  });

  it('EGRESS-11: loopback endpoints count as on the device; others do not', () => {
    expect(isLoopbackUrl('http://127.0.0.1:11434/v1')).toBe(true);
    expect(isLoopbackUrl('http://localhost:8080')).toBe(true);
    expect(isLoopbackUrl('http://[::1]:8080')).toBe(true);
    expect(isLoopbackUrl('https://api.openai.com/v1')).toBe(false);
    expect(isLoopbackUrl('https://127.0.0.1.evil.example/v1')).toBe(false);
    expect(isLoopbackUrl('not a url')).toBe(false);
  });
});
