// Crash-safety loop for the vault (VAULT-11, VAULT-12, AUD-2): a writer child commits
// revisions in a loop and acknowledges each one only after write() returned; the
// driver SIGKILLs it at a random moment, then reopens the store and checks that it
// opens, its audit chain verifies, every acknowledged revision is present and reads
// back intact (signature, chunks, content hash), and nothing is half-written.
//
//   node crash-loop.cjs drive <dir> <iterations> [seed]   -> one JSON summary line
//   node crash-loop.cjs write <dir> <seed>                 (spawned by drive)
//
// Bundled with esbuild before running (tests/e2e/vault-crash/vault-crash.spec.ts,
// npm run crash:vault): under a TS runtime transform the crypto would be ~40x slower.
import { spawn } from 'node:child_process';
import { createHash, hkdfSync } from 'node:crypto';
import { createVaultService } from '@arslan/desktop-vault';
import type { PasswordKdf } from '@arslan/vault-core';

const PASSWORD = 'crash-test password';

/** Test-only KDF (HKDF-SHA256): the loop restarts hundreds of times; Argon2id is tested elsewhere. */
const testOnlyKdf: PasswordKdf = {
  deriveKey: async (password, salt) =>
    new Uint8Array(hkdfSync('sha256', password, salt, 'crash-loop kdf', 32)),
};

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function contentHash(title: string, body: string): string {
  return createHash('sha256').update(title).update('\0').update(body).digest('hex');
}

async function writer(dir: string, seed: number): Promise<void> {
  const random = prng(seed);
  const service = createVaultService(dir, { kdf: testOnlyKdf });
  if (!service.state().initialized) await service.init(PASSWORD);
  else await service.unlock(PASSWORD);
  const assets = service
    .list({})
    .assets.filter((a) => a.state === 'live')
    .map((a) => a.asset_id);
  process.stdout.write('READY\n');
  for (let i = 0; ; i++) {
    const size =
      random() < 0.05 ? 300_000 + Math.floor(random() * 300_000) : 64 + Math.floor(random() * 4000);
    const body = `${seed}:${i}:`.padEnd(size, String.fromCharCode(97 + (i % 26)));
    const title = `note ${seed}-${i}`;
    const update = assets.length > 0 && random() < 0.4;
    const target = update ? assets[Math.floor(random() * assets.length)] : undefined;
    const result = service.write(target ? { asset_id: target, title, body } : { title, body });
    if (!target) assets.push(result.asset_id);
    process.stdout.write(`ACK ${result.asset_id} ${result.revision_id} ${contentHash(title, body)}\n`);
  }
}

interface Ack {
  asset: string;
  revision: string;
  hash: string;
}

function runWriterAndKill(
  dir: string,
  seed: number,
  killAfterMs: number,
): Promise<{ acks: Ack[]; killedMidWrite: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [__filename, 'write', dir, String(seed)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let timer: NodeJS.Timeout | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      // The clock starts at the first acknowledged commit, so every kill lands inside the write loop.
      if (!timer && out.includes('ACK ')) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (signal !== 'SIGKILL')
        return reject(new Error(`writer exited on its own (code ${code}): ${err.slice(0, 500)}`));
      const acks = out
        .split('\n')
        .filter((line) => line.startsWith('ACK '))
        .map((line) => {
          const [, asset, revision, hash] = line.split(' ');
          return { asset: asset as string, revision: revision as string, hash: hash as string };
        });
      resolve({ acks, killedMidWrite: acks.length > 0 });
    });
  });
}

/**
 * After every kill: the store opens and unlocks (state, checkpoint and row count agree),
 * the whole audit chain verifies, and this round's acknowledged revisions plus the
 * heads of the assets they touched read back intact (signature, device allow-list,
 * chunks, content hash). Every `FULL_EVERY` kills and after the last one, every asset's
 * whole history is walked — verifying every signature — and every revision ever
 * acknowledged must be in it.
 */
const FULL_EVERY = 10;

async function verify(dir: string, acked: Map<string, Ack>, fresh: Ack[], full: boolean): Promise<string[]> {
  const problems: string[] = [];
  const service = createVaultService(dir, { kdf: testOnlyKdf });
  try {
    await service.unlock(PASSWORD);
    const audit = service.auditVerify();
    if (!audit.ok) problems.push(`audit chain: ${audit.problem}`);
    const touched = new Set(fresh.map((ack) => ack.asset));
    const present = new Set<string>();
    for (const asset of service.list({ include_deleted: true }).assets) {
      if (!full && !touched.has(asset.asset_id)) continue;
      for (const r of service.history({ asset_id: asset.asset_id }).revisions) present.add(r.revision_id);
      for (const head of asset.heads) service.read({ asset_id: asset.asset_id, revision_id: head });
    }
    const mustBePresent = full ? [...acked.values()] : fresh;
    for (const ack of mustBePresent) {
      if (!present.has(ack.revision)) problems.push(`acknowledged revision ${ack.revision} is missing`);
    }
    for (const ack of fresh) {
      const read = service.read({ asset_id: ack.asset, revision_id: ack.revision });
      if (contentHash(read.title, read.body) !== ack.hash)
        problems.push(`revision ${ack.revision} reads back different content`);
    }
  } catch (error) {
    problems.push(`reopen/verify failed: ${(error as Error).message}`);
  } finally {
    service.close();
  }
  return problems;
}

async function drive(dir: string, iterations: number, seed: number): Promise<void> {
  const random = prng(seed);
  const acked = new Map<string, Ack>();
  const problems: string[] = [];
  let kills = 0;
  let killsAfterAck = 0;
  const started = Date.now();
  for (let i = 0; i < iterations && problems.length === 0; i++) {
    const killAfterMs = Math.floor(random() * 100);
    const { acks, killedMidWrite } = await runWriterAndKill(dir, seed * 100_000 + i, killAfterMs);
    kills++;
    if (killedMidWrite) killsAfterAck++;
    for (const ack of acks) acked.set(ack.revision, ack);
    const full = i % FULL_EVERY === FULL_EVERY - 1 || i === iterations - 1;
    for (const problem of await verify(dir, acked, acks, full)) problems.push(`iteration ${i}: ${problem}`);
  }
  console.log(
    JSON.stringify({
      kills,
      kills_after_ack: killsAfterAck,
      acknowledged: acked.size,
      problems,
      seconds: (Date.now() - started) / 1000,
    }),
  );
}

const [mode, dir, a, b] = process.argv.slice(2);
if (mode === 'write' && dir) {
  void writer(dir, Number(a));
} else if (mode === 'drive' && dir) {
  void drive(dir, Number(a ?? 200), Number(b ?? 1)).catch((error) => {
    console.log(JSON.stringify({ kills: 0, problems: [`driver failed: ${(error as Error).message}`] }));
  });
} else {
  console.error('usage: crash-loop drive <dir> <iterations> [seed] | crash-loop write <dir> <seed>');
  process.exit(2);
}
