import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../support/bundle-entry';

// End to end: the real `memories` CLI (the bundle `npm run build` makes, through its
// npm bin launcher) against a real daemon process over the real Unix socket.

jest.setTimeout(180_000);

const launcher = join(repoRoot, 'apps/cli/bin/memories.cjs');
const PASSWORD = 'e2e store password';
const BACKUP_PASSWORD = 'e2e backup password';

interface Run {
  status: number;
  stdout: string;
  stderr: string;
  json: Record<string, unknown>;
}

function memories(dataDir: string, args: string[], stdin = ''): Run {
  const result = spawnSync(process.execPath, [launcher, '--data', dataDir, ...args], {
    input: stdin,
    encoding: 'utf8',
    env: { ...process.env, XDG_CONFIG_HOME: join(dataDir, '..', 'config') },
    timeout: 60_000,
  });
  let json: Record<string, unknown> = {};
  if (args.includes('--json')) json = JSON.parse(result.stdout) as Record<string, unknown>;
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr, json };
}

function allFileBytes(dir: string): Buffer[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return allFileBytes(path);
    return statSync(path).isFile() ? [readFileSync(path)] : [];
  });
}

describe('memories CLI against a real daemon', () => {
  let work: string;
  let data: string;
  let restored: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'arslan-cli-e2e-'));
    data = join(work, 'data');
    restored = join(work, 'restored');
    const start = memories(data, ['daemon', 'start', '--json']);
    expect(start.status).toBe(0);
  });

  afterAll(() => {
    memories(data, ['daemon', 'stop']);
    memories(restored, ['daemon', 'stop']);
    rmSync(work, { recursive: true, force: true });
  });

  it('IPC-17: refuses a password on the command line', () => {
    const run = memories(data, ['unlock', '--password', 'x']);
    expect(run.status).toBe(1);
    expect(run.stderr).not.toContain('x\n');
  });

  it('init, write, read, history, diff, delete and list round-trip through the daemon', () => {
    expect(memories(data, ['init', '--password-stdin', '--json'], `${PASSWORD}\n`).status).toBe(0);
    const write = memories(data, ['write', '--title', 'Groceries', '--body', 'milk, eggs', '--json']);
    expect(write.status).toBe(0);
    const id = write.json['asset_id'] as string;
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    const first = write.json['revision_id'] as string;

    const read = memories(data, ['read', id, '--json']);
    expect(read.json['body']).toBe('milk, eggs');
    expect(read.json['title']).toBe('Groceries');

    const update = memories(data, [
      'write',
      '--asset',
      id,
      '--title',
      'Groceries',
      '--body',
      'milk, eggs, tea',
      '--json',
    ]);
    const second = update.json['revision_id'] as string;
    const history = memories(data, ['history', id, '--json']);
    const revisions = history.json['revisions'] as { revision_id: string; parents: string[] }[];
    expect(revisions.map((r) => r.revision_id).sort()).toEqual([first, second].sort());
    expect(revisions.find((r) => r.revision_id === second)?.parents).toEqual([first]);

    const diff = memories(data, ['diff', id, first, second, '--json']);
    expect(diff.json['diff']).toContain('+milk, eggs, tea');

    expect(memories(data, ['delete', id, '--json']).status).toBe(0);
    const listed = memories(data, ['list', '--json']).json['assets'] as { asset_id: string }[];
    expect(listed.map((a) => a.asset_id)).not.toContain(id);
    const all = memories(data, ['list', '--all', '--json']).json['assets'] as {
      asset_id: string;
      state: string;
    }[];
    expect(all.find((a) => a.asset_id === id)?.state).toBe('deleted');
    expect((memories(data, ['history', id, '--json']).json['revisions'] as unknown[]).length).toBe(3);
  });

  it('imports a folder of Markdown/text files and a JSON-lines file', () => {
    const folder = join(work, 'notes');
    mkdirSync(folder);
    writeFileSync(join(folder, 'trip.md'), '# Kyoto trip\n\nTemples and 抹茶.\n');
    writeFileSync(join(folder, 'todo.txt'), 'call the bank\n');
    expect(memories(data, ['import', folder, '--json']).status).toBe(0);
    const jsonl = join(work, 'items.jsonl');
    writeFileSync(jsonl, '{"title":"a","body":"alpha"}\n{"title":"b","body":"beta"}\n');
    const imported = memories(data, ['import', jsonl, '--json']);
    expect(imported.status).toBe(0);
    const titles = (memories(data, ['list', '--json']).json['assets'] as { title: string }[]).map(
      (a) => a.title,
    );
    expect(titles).toEqual(expect.arrayContaining(['Kyoto trip', 'todo', 'a', 'b']));
    writeFileSync(jsonl, '{"title":"c","body":"gamma","extra":1}\n');
    expect(memories(data, ['import', jsonl, '--json']).status).toBe(1);
  });

  it('VAULT-2: no plaintext reaches the data directory', () => {
    const marker = 'plaintext-marker-7f3a9c1e5b2d4068a1c3e5f7';
    expect(memories(data, ['write', '--title', marker, '--body', marker, '--json']).status).toBe(0);
    for (const bytes of allFileBytes(data)) expect(bytes.includes(Buffer.from(marker))).toBe(false);
  });

  it('lock refuses reads; a wrong password is refused; unlock restores access', () => {
    const id = (memories(data, ['list', '--json']).json['assets'] as { asset_id: string }[])[0]!.asset_id;
    expect(memories(data, ['lock', '--json']).status).toBe(0);
    const locked = memories(data, ['read', id, '--json']);
    expect(locked.status).toBe(7);
    expect((locked.json['error'] as { code: string }).code).toBe('locked');
    const wrong = memories(data, ['unlock', '--password-stdin', '--json'], 'not the password\n');
    expect(wrong.status).toBe(8);
    expect(memories(data, ['unlock', '--password-stdin', '--json'], `${PASSWORD}\n`).status).toBe(0);
    expect(memories(data, ['read', id, '--json']).status).toBe(0);
  });

  it('AUD-1: the audit chain verifies', () => {
    const audit = memories(data, ['audit', 'verify', '--json']);
    expect(audit.status).toBe(0);
    expect(audit.json['ok']).toBe(true);
  });

  it('IPC-12/BAK-*: backup needs sudo; restore recovers into a new identity', () => {
    const file = join(work, 'vault.backup');
    const denied = memories(data, ['backup', file, '--password-stdin', '--json'], `${BACKUP_PASSWORD}\n`);
    expect((denied.json['error'] as { code: string }).code).toBe('sudo_required');
    expect(memories(data, ['sudo', '--password-stdin', '--json'], `${PASSWORD}\n`).status).toBe(0);
    const backup = memories(data, ['backup', file, '--password-stdin', '--json'], `${BACKUP_PASSWORD}\n`);
    expect(backup.status).toBe(0);
    expect(readFileSync(file).includes(Buffer.from('Kyoto'))).toBe(false);

    const original = memories(data, ['status', '--json']).json;
    expect(memories(restored, ['daemon', 'start', '--json']).status).toBe(0);
    const restore = memories(
      restored,
      ['restore', file, '--password-stdin', '--json'],
      `${BACKUP_PASSWORD}\n${PASSWORD}\n`,
    );
    expect(restore.status).toBe(0);
    const status = memories(restored, ['status', '--json']).json;
    expect(status['device_fingerprint']).not.toBe(original['device_fingerprint']);
    const titles = (memories(restored, ['list', '--json']).json['assets'] as { title: string }[]).map(
      (a) => a.title,
    );
    expect(titles).toEqual(expect.arrayContaining(['Kyoto trip', 'todo', 'a', 'b']));
  });

  it('daemon stop ends the daemon; commands then say it is not running', () => {
    expect(memories(data, ['daemon', 'stop', '--json']).status).toBe(0);
    expect(memories(data, ['status', '--json']).status).toBe(2);
  });
});
