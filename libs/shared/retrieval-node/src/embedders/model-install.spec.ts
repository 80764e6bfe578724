import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installModel, sha256File } from './model-install';
import { MODEL_MANIFESTS, modelManifestSchema, type ModelManifest } from './model.manifests';
import { startTestServer, type TestServer } from './testing/http-test.server';

const FILES: Record<string, Buffer> = {
  'model.onnx': randomBytes(300_000),
  'vocab.txt': Buffer.from('[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n'),
  'onnx/model.onnx_data': randomBytes(70_000),
};

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

function manifestFor(files: Record<string, Buffer>, overrides: Partial<ModelManifest> = {}): ModelManifest {
  return {
    id: 'onnx:test-model',
    name: 'test-model',
    revision: 'abc123',
    repository: 'test/test-model',
    dimensions: 3,
    modelFile: 'model.onnx',
    tokenizer: { kind: 'wordpiece-vocab', file: 'vocab.txt' },
    license: 'test',
    files: Object.entries(files).map(([path, data]) => ({ path, sha256: sha256(data), bytes: data.length })),
    ...overrides,
  };
}

describe('installModel (RAG-18)', () => {
  let work: string;
  let source: string;
  let server: TestServer;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'model-install-'));
    source = join(work, 'source');
    for (const [path, data] of Object.entries(FILES)) {
      await mkdir(join(source, path, '..'), { recursive: true });
      await writeFile(join(source, path), data);
    }
    server = await startTestServer((req, res) => {
      // /repo/<rev>/<path> → one hop of redirect to /cdn/<path>, like Hub → CDN.
      const m = /^\/repo\/abc123\/(.+)$/.exec(req.url);
      if (m) {
        res.writeHead(302, { location: `/cdn/${m[1]}?sig=1` });
        return res.end();
      }
      const cdn = /^\/cdn\/([^?]+)/.exec(req.url);
      const data = cdn ? FILES[decodeURIComponent(cdn[1]!)] : undefined;
      if (!data) {
        res.writeHead(404);
        return res.end();
      }
      res.writeHead(200, { 'content-length': data.length });
      res.end(data);
    });
  });

  afterAll(async () => {
    await server.close();
    await rm(work, { recursive: true, force: true });
  });

  it('copies from a local dir, verifies, publishes into <name>/<revision>, then reuses offline', async () => {
    const target = join(work, 'models-local');
    const first = await installModel({
      manifest: manifestFor(FILES),
      from: { localDir: source },
      targetDir: target,
    });
    expect(first).toMatchObject({ dir: join(target, 'test-model', 'abc123'), reused: false });
    expect(first.fetched.sort()).toEqual(Object.keys(FILES).sort());
    for (const [path, data] of Object.entries(FILES))
      expect(await readFile(join(first.dir, path))).toEqual(data);
    expect(await readdir(join(target, 'test-model'))).toEqual(['abc123']); // no staging left

    // Second install: the source is gone (offline), the published copy re-verifies and is reused
    // (a request to the unresolvable host would fail the install).
    const second = await installModel({
      manifest: manifestFor(FILES),
      from: { baseUrl: 'https://unreachable.invalid/repo' },
      targetDir: target,
    });
    expect(second).toEqual({ dir: first.dir, reused: true, fetched: [] });
  });

  it('downloads from an HTTP source (loopback), following a redirect hop, and verifies', async () => {
    const target = join(work, 'models-http');
    const result = await installModel({
      manifest: manifestFor(FILES),
      from: { baseUrl: `${server.origin}/repo/abc123` },
      targetDir: target,
    });
    expect(result.reused).toBe(false);
    for (const [path, data] of Object.entries(FILES)) {
      expect(await sha256File(join(result.dir, path))).toBe(sha256(data));
    }
  });

  it('publishes nothing on a checksum mismatch', async () => {
    const target = join(work, 'models-bad');
    const manifest = manifestFor(FILES);
    manifest.files[1] = { ...manifest.files[1]!, sha256: '0'.repeat(64) };
    await expect(
      installModel({ manifest, from: { localDir: source }, targetDir: target }),
    ).rejects.toMatchObject({
      code: 'checksum_mismatch',
    });
    expect(await readdir(join(target, 'test-model'))).toEqual([]);
    await expect(
      installModel({ manifest, from: { baseUrl: `${server.origin}/repo/abc123` }, targetDir: target }),
    ).rejects.toMatchObject({ code: 'checksum_mismatch' });
    expect(await readdir(join(target, 'test-model'))).toEqual([]);
  });

  it('repairs a damaged published copy by re-installing it atomically', async () => {
    const target = join(work, 'models-repair');
    const { dir } = await installModel({
      manifest: manifestFor(FILES),
      from: { localDir: source },
      targetDir: target,
    });
    await writeFile(join(dir, 'vocab.txt'), 'tampered');
    const again = await installModel({
      manifest: manifestFor(FILES),
      from: { localDir: source },
      targetDir: target,
    });
    expect(again.reused).toBe(false);
    expect(await readFile(join(dir, 'vocab.txt'))).toEqual(FILES['vocab.txt']);
    expect(await readdir(join(target, 'test-model'))).toEqual(['abc123']);
  });

  it('refuses manifests with unknown hashes or revision — including the shipped EmbeddingGemma one', async () => {
    const gemma = MODEL_MANIFESTS['embeddinggemma-300m-q4'];
    expect(modelManifestSchema.parse(gemma).dimensions).toBe(768);
    expect(gemma.files.every((f) => f.sha256 === null)).toBe(true); // unknown here: never invented
    const target = join(work, 'models-unpinned');
    await expect(
      installModel({ manifest: gemma, from: { localDir: source }, targetDir: target }),
    ).rejects.toMatchObject({
      code: 'manifest_unpinned',
    });
    await expect(
      installModel({
        manifest: manifestFor(FILES, { revision: null }),
        from: { localDir: source },
        targetDir: target,
      }),
    ).rejects.toMatchObject({ code: 'manifest_unpinned' });
  });

  it('refuses unsafe paths, plain HTTP off loopback and missing local files', async () => {
    const target = join(work, 'models-refused');
    const evil = manifestFor(FILES);
    evil.files[0] = { ...evil.files[0]!, path: '../escape.onnx' };
    await expect(
      installModel({ manifest: evil, from: { localDir: source }, targetDir: target }),
    ).rejects.toMatchObject({
      code: 'invalid_config',
    });
    await expect(
      installModel({
        manifest: manifestFor(FILES),
        from: { baseUrl: 'http://example.com/repo' },
        targetDir: target,
      }),
    ).rejects.toMatchObject({ code: 'egress_refused' });
    const extra = manifestFor({ ...FILES, 'missing.bin': Buffer.from('x') });
    await expect(
      installModel({ manifest: extra, from: { localDir: source }, targetDir: target }),
    ).rejects.toMatchObject({
      code: 'model_missing',
    });
  });
});
