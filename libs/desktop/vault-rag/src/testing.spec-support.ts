// Spec-only helpers (not exported from index.ts): a real vault in a temp dir, a fake embedder and a
// local fake OpenAI-compatible chat server.
import fs from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { type Embedder } from '@arslan/retrieval';
import { type LocalVaultService, createVaultService } from '@arslan/desktop-vault';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes, utf8Encode } from '@arslan/util';

export const PW = 'rag spec password';

/** NOT Argon2id: fast stand-in like the vault specs use. */
const fastKdf = {
  deriveKey: async (password: Uint8Array, salt: Uint8Array) =>
    sha256(concatBytes(utf8Encode('fast-test-kdf'), salt, password)),
};

export async function freshVault(): Promise<{ dir: string; vault: LocalVaultService }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arslan-rag-'));
  let t = 1_700_000_000_000;
  const vault = createVaultService(dir, { kdf: fastKdf, now: () => (t += 1000) });
  await vault.init(PW);
  return { dir, vault };
}

/** A bag-of-letters embedder: deterministic, local, counts its calls. */
export function fakeEmbedder(local = true): Embedder & { calls: number; texts: string[] } {
  const e = {
    id: 'fake:letters',
    dimensions: 26,
    local,
    calls: 0,
    texts: [] as string[],
    async embed(texts: readonly string[]) {
      e.calls++;
      e.texts.push(...texts);
      return texts.map((t) => {
        const v = new Float32Array(26).fill(0.01);
        for (const ch of t.toLowerCase()) {
          const i = ch.charCodeAt(0) - 97;
          if (i >= 0 && i < 26) v[i] = (v[i] as number) + 1;
        }
        let n = 0;
        for (const x of v) n += x * x;
        return v.map((x) => x / Math.sqrt(n));
      });
    },
    async close() {},
  };
  return e;
}

export interface FakeChatServer {
  url: string;
  requests: { body: Record<string, unknown>; raw: string }[];
  reply: (body: Record<string, unknown>) => string | Promise<string>;
  delayMs: number;
  close(): Promise<void>;
}

export async function fakeChatServer(): Promise<FakeChatServer> {
  const fake: FakeChatServer = {
    url: '',
    requests: [],
    delayMs: 0,
    reply: () => JSON.stringify({ answer: '', citations: [] }),
    close: async () => undefined,
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const body = JSON.parse(raw) as Record<string, unknown>;
      fake.requests.push({ body, raw });
      setTimeout(async () => {
        const content = await fake.reply(body);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
      }, fake.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  fake.url = `http://127.0.0.1:${address.port}/v1`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

/** The user message's source ids (`S1`, ...) the answer flow sent. */
export function sentSourceIds(body: Record<string, unknown>): string[] {
  const messages = body['messages'] as { role: string; content: string }[];
  const user = messages.find((m) => m.role === 'user')?.content ?? '';
  return [...new Set([...user.matchAll(/<<<SOURCE (S\d+) /g)].map((m) => m[1] as string))];
}
