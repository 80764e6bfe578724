import { promises as fsp, mkdtempSync, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ToolContext } from '../ports/tool.port';
import { type AtomicWriteFs, NODE_WRITE_FS } from './atomic-write';
import { createEditFileTool, createListDirTool, createReadFileTool, createWriteFileTool } from './file-tools';

let base: string;
let ws: string;
let outside: string;
let dataDir: string;

function ctx(): ToolContext {
  return {
    workspace: ws,
    dataDir,
    runId: 'run1',
    callId: 'call1',
    turn: { externalContentRead: false },
    signal: new AbortController().signal,
    remainingMs: 60_000,
    attended: true,
  };
}

beforeEach(async () => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'arslan-files-')));
  ws = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  dataDir = path.join(base, 'data');
  await Promise.all([fsp.mkdir(ws), fsp.mkdir(outside), fsp.mkdir(dataDir)]);
  await fsp.writeFile(path.join(outside, 'secret.txt'), 'outside original');
});

afterEach(async () => {
  await fsp.rm(base, { recursive: true, force: true });
});

const write = createWriteFileTool();
const edit = createEditFileTool();
const read = createReadFileTool();
const list = createListDirTool();

async function tmpLeftovers(dir: string): Promise<string[]> {
  return (await fsp.readdir(dir)).filter((n) => n.includes('arslan-tmp'));
}

describe('write_file / edit_file link safety (WRITE-001, TOOL-24)', () => {
  it('WRITE-001: refuses a last-component symlink pointing outside; the outside file is unchanged', async () => {
    await fsp.symlink(path.join(outside, 'secret.txt'), path.join(ws, 'link.txt'));
    const r = await write.execute({ path: 'link.txt', content: 'pwned' }, ctx());
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/outside the workspace/);
    expect(await fsp.readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside original');
  });

  it('WRITE-001: refuses an intermediate directory symlink pointing outside (write and edit)', async () => {
    await fsp.symlink(outside, path.join(ws, 'dir'));
    const r = await write.execute({ path: 'dir/secret.txt', content: 'pwned' }, ctx());
    expect(r.isError).toBe(true);
    const e = await edit.execute({ path: 'dir/secret.txt', old_string: 'outside', new_string: 'x' }, ctx());
    expect(e.isError).toBe(true);
    const n = await write.execute({ path: 'dir/new.txt', content: 'pwned' }, ctx());
    expect(n.isError).toBe(true);
    expect(await fsp.readdir(outside)).toEqual(['secret.txt']);
    expect(await fsp.readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside original');
  });

  it('WRITE-001: refuses ".." components and absolute paths outside the workspace', async () => {
    for (const p of [
      '../outside/secret.txt',
      'a/../../outside/secret.txt',
      path.join(outside, 'secret.txt'),
    ]) {
      const r = await write.execute({ path: p, content: 'pwned' }, ctx());
      expect(r.isError).toBe(true);
    }
    expect(await fsp.readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside original');
  });

  it('WRITE-001: refuses a dangling link; follows a link that stays inside the workspace', async () => {
    await fsp.symlink(path.join(outside, 'missing.txt'), path.join(ws, 'dangling'));
    expect((await write.execute({ path: 'dangling', content: 'x' }, ctx())).isError).toBe(true);
    await expect(fsp.access(path.join(outside, 'missing.txt'))).rejects.toThrow();
    await fsp.mkdir(path.join(ws, 'real'));
    await fsp.symlink(path.join(ws, 'real'), path.join(ws, 'alias'));
    const ok = await write.execute({ path: 'alias/file.txt', content: 'inside' }, ctx());
    expect(ok.isError).toBeFalsy();
    expect(await fsp.readFile(path.join(ws, 'real', 'file.txt'), 'utf8')).toBe('inside');
  });

  it('creates missing parent directories inside the workspace', async () => {
    const r = await write.execute({ path: 'a/b/c.txt', content: 'deep' }, ctx());
    expect(r.isError).toBeFalsy();
    expect(await fsp.readFile(path.join(ws, 'a/b/c.txt'), 'utf8')).toBe('deep');
  });
});

describe('atomic replace, hard links and modes (WRITE-002..004)', () => {
  it('WRITE-002: a hard-linked target gets a new file; the other name keeps the old content', async () => {
    await fsp.writeFile(path.join(outside, 'shared.txt'), 'old');
    await fsp.link(path.join(outside, 'shared.txt'), path.join(ws, 'shared.txt'));
    const r = await write.execute({ path: 'shared.txt', content: 'new' }, ctx());
    expect(r.isError).toBeFalsy();
    expect(await fsp.readFile(path.join(ws, 'shared.txt'), 'utf8')).toBe('new');
    expect(await fsp.readFile(path.join(outside, 'shared.txt'), 'utf8')).toBe('old');
    expect((await fsp.stat(path.join(ws, 'shared.txt'))).nlink).toBe(1);
  });

  it('WRITE-003: a failed rename leaves the original unchanged and removes the temp file', async () => {
    await fsp.writeFile(path.join(ws, 'f.txt'), 'original');
    const failing: AtomicWriteFs = {
      ...NODE_WRITE_FS,
      rename: async () => {
        throw Object.assign(new Error('EIO: simulated'), { code: 'EIO' });
      },
    };
    const tool = createWriteFileTool({ writeFs: failing });
    const r = await tool.execute({ path: 'f.txt', content: 'replacement' }, ctx());
    expect(r.isError).toBe(true);
    expect(await fsp.readFile(path.join(ws, 'f.txt'), 'utf8')).toBe('original');
    expect(await tmpLeftovers(ws)).toEqual([]);
  });

  it('WRITE-003: a failed flush (fsync) leaves the original unchanged and removes the temp file', async () => {
    await fsp.writeFile(path.join(ws, 'g.txt'), 'original');
    const failing: AtomicWriteFs = {
      ...NODE_WRITE_FS,
      open: (async (...a: Parameters<typeof fsp.open>) => {
        const handle = await fsp.open(...a);
        handle.sync = async () => {
          throw Object.assign(new Error('ENOSPC: simulated'), { code: 'ENOSPC' });
        };
        return handle;
      }) as typeof fsp.open,
    };
    const r = await createEditFileTool({ writeFs: failing }).execute(
      { path: 'g.txt', old_string: 'original', new_string: 'edited' },
      ctx(),
    );
    expect(r.isError).toBe(true);
    expect(await fsp.readFile(path.join(ws, 'g.txt'), 'utf8')).toBe('original');
    expect(await tmpLeftovers(ws)).toEqual([]);
  });

  it('WRITE-003: a read-only directory refuses the write without touching the original', async () => {
    if (process.getuid?.() === 0) return; // root ignores directory permissions; covered by the injected failures
    await fsp.mkdir(path.join(ws, 'ro'));
    await fsp.writeFile(path.join(ws, 'ro', 'f.txt'), 'original');
    await fsp.chmod(path.join(ws, 'ro'), 0o555);
    try {
      const r = await write.execute({ path: 'ro/f.txt', content: 'x' }, ctx());
      expect(r.isError).toBe(true);
      expect(await fsp.readFile(path.join(ws, 'ro', 'f.txt'), 'utf8')).toBe('original');
    } finally {
      await fsp.chmod(path.join(ws, 'ro'), 0o755);
    }
  });

  it('WRITE-004: new files are never executable under umask 0; replaced files keep their mode', async () => {
    const old = process.umask(0);
    try {
      await write.execute({ path: 'script.sh', content: '#!/bin/sh\necho hi\n' }, ctx());
      const mode = (await fsp.stat(path.join(ws, 'script.sh'))).mode & 0o777;
      expect(mode & 0o111).toBe(0);
      expect(mode).toBe(0o644);
      await fsp.writeFile(path.join(ws, 'tool.sh'), 'v1');
      await fsp.chmod(path.join(ws, 'tool.sh'), 0o750);
      await write.execute({ path: 'tool.sh', content: 'v2' }, ctx());
      expect((await fsp.stat(path.join(ws, 'tool.sh'))).mode & 0o7777).toBe(0o750);
      await fsp.writeFile(path.join(ws, 'private.txt'), 'v1');
      await fsp.chmod(path.join(ws, 'private.txt'), 0o600);
      await edit.execute({ path: 'private.txt', old_string: 'v1', new_string: 'v2' }, ctx());
      expect((await fsp.stat(path.join(ws, 'private.txt'))).mode & 0o7777).toBe(0o600);
    } finally {
      process.umask(old);
    }
  });

  it('TOOL-18: writes ask for workspace_write; reads need no card', () => {
    expect(write.approval({ path: 'a.txt', content: '' }, ctx())?.kind).toBe('workspace_write');
    expect(edit.approval({ path: 'a.txt', old_string: 'a', new_string: 'b' }, ctx())?.kind).toBe(
      'workspace_write',
    );
    expect(read.approval({ path: 'a.txt', offset: 0 }, ctx())).toBeNull();
  });
});

describe('edit_file exact unique replacement', () => {
  it('replaces one unique match and refuses missing or ambiguous ones', async () => {
    await fsp.writeFile(path.join(ws, 'e.txt'), 'alpha beta beta');
    expect(
      (await edit.execute({ path: 'e.txt', old_string: 'alpha', new_string: 'ALPHA' }, ctx())).isError,
    ).toBeFalsy();
    expect(await fsp.readFile(path.join(ws, 'e.txt'), 'utf8')).toBe('ALPHA beta beta');
    const amb = await edit.execute({ path: 'e.txt', old_string: 'beta', new_string: 'x' }, ctx());
    expect(amb.isError).toBe(true);
    expect(amb.content).toMatch(/2 times/);
    expect((await edit.execute({ path: 'e.txt', old_string: 'gamma', new_string: 'x' }, ctx())).isError).toBe(
      true,
    );
    expect((await edit.execute({ path: 'nope.txt', old_string: 'a', new_string: 'x' }, ctx())).isError).toBe(
      true,
    );
  });
});

describe('read_file / list_dir scope (FILE-02..04, DATA-03)', () => {
  it('reads in byte chunks with a continuation offset; file text is external (SEC-005)', async () => {
    await fsp.writeFile(path.join(ws, 'big.txt'), 'a'.repeat(100) + 'é'.repeat(10));
    const first = await read.execute({ path: 'big.txt', offset: 0, limit: 101 }, ctx());
    expect(first.external).toBe(true);
    expect(first.content).toMatch(/continue with offset=100/); // never splits "é"
    const second = await read.execute({ path: 'big.txt', offset: 100, limit: 1000 }, ctx());
    expect(second.content.endsWith('é'.repeat(10))).toBe(true);
  });

  it('FILE-04: refuses hidden and credential-like names and hides them in listings', async () => {
    for (const name of ['.env', 'id_rsa', 'secrets.json', 'server.pem', 'credentials']) {
      await fsp.writeFile(path.join(ws, name), 'SECRET');
      const r = await read.execute({ path: name, offset: 0 }, ctx());
      expect(r.isError).toBe(true);
      expect(r.content).not.toContain('SECRET');
    }
    await fsp.writeFile(path.join(ws, 'notes.md'), 'ok');
    const listing = await list.execute({ path: '.' }, ctx());
    expect(listing.content).toBe('notes.md');
  });

  it('FILE-03: refuses a link that leads outside the readable folders', async () => {
    await fsp.symlink(path.join(outside, 'secret.txt'), path.join(ws, 'peek.txt'));
    const r = await read.execute({ path: 'peek.txt', offset: 0 }, ctx());
    expect(r.isError).toBe(true);
    expect(r.content).not.toContain('outside original');
    expect((await read.execute({ path: '../outside/secret.txt', offset: 0 }, ctx())).isError).toBe(true);
  });

  it('DATA-03: saved long tool output under <dataDir>/tool-output is readable by absolute path', async () => {
    const dir = path.join(dataDir, 'tool-output');
    await fsp.mkdir(dir);
    await fsp.writeFile(path.join(dir, 'output-1-run-call.txt'), 'full output');
    const r = await read.execute({ path: path.join(dir, 'output-1-run-call.txt'), offset: 0 }, ctx());
    expect(r.content).toBe('full output');
  });
});
