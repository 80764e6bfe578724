// RAG-18: `rag model-install`. Every manifest file is copied (from `rag.local_model_dir`) or
// downloaded (from a pinned repository revision) into a staging directory inside `targetDir`,
// hashed while it streams, checked against the manifest's SHA-256 and fsync'ed. Only when every
// file verified is the staging directory renamed to `<targetDir>/<name>/<revision>` and the
// parent fsync'ed, so a mismatch publishes nothing. A published directory is re-verified and
// reused offline on the next install (no copy, no request).
//
// Downloads (EGRESS-3/4/5/8) go through the same transport as the model APIs (node:http(s), no
// global fetch), so they honour the same proxy rules: the explicit `proxy` (`[rag] proxy` /
// `proxy_env`) or the proxy environment variables, never for loopback, `no_proxy` respected.
// Model hubs answer with a redirect to a CDN, so redirects are followed by hand, at most
// MAX_REDIRECTS hops, and every hop is re-checked: HTTPS (plain HTTP only for loopback), no
// credentials, never from HTTPS down to HTTP, never from a remote host to a loopback one, TLS
// verification on, and the proxy chosen again for the hop's host. The bytes are trusted only
// through the pinned SHA-256.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { EmbedderError, isEmbedderError } from './embedder.errors';
import { type CheckedEndpoint, checkEndpointUrl, assertTlsVerificationOn } from './endpoint-url.policy';
import { type EgressStream, type TrustedCa, createEgressTransport } from './egress-transport';
import { chooseProxy, describeProxy } from './proxy.policy';
import { type ModelFileEntry, type ModelManifest, modelManifestSchema } from './model.manifests';

export type ModelSource = { localDir: string } | { baseUrl: string };

export interface InstallModelOptions {
  manifest: ModelManifest;
  from: ModelSource;
  /** The models directory, e.g. `<data>/models`. */
  targetDir: string;
  signal?: AbortSignal;
  /** Explicit proxy URL (`[rag] proxy`/`proxy_env`, EGRESS-5); default: the proxy env vars. */
  proxy?: string;
  /** Where the proxy variables and NODE_TLS_REJECT_UNAUTHORIZED are read; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Trusted roots replacing the defaults (a private CA); verification stays on. */
  tlsCa?: TrustedCa;
  /** Per-file download timeout; default 30 min. */
  timeoutMs?: number;
}

export interface InstallModelResult {
  /** The published, verified directory (`<targetDir>/<name>/<revision>`). */
  dir: string;
  /** true when an already published copy verified and nothing was copied or downloaded. */
  reused: boolean;
  /** Files copied or downloaded in this run. */
  fetched: string[];
}

const MAX_REDIRECTS = 5;

/** Lowercase hex SHA-256 of a file, or undefined when it doesn't exist. */
export async function sha256File(path: string): Promise<string | undefined> {
  try {
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
    return hash.digest('hex');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Streams chunks into `path`, hashing them and enforcing the manifest's size. */
async function writeVerified(
  path: string,
  file: ModelFileEntry,
  chunks: AsyncIterable<Uint8Array>,
  signal?: AbortSignal,
): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const hash = createHash('sha256');
  let size = 0;
  const handle: FileHandle = await open(path, 'wx', 0o644);
  try {
    for await (const chunk of chunks) {
      if (signal?.aborted) throw new EmbedderError('aborted', 'model install was aborted');
      size += chunk.length;
      if (file.bytes !== null && size > file.bytes) {
        throw new EmbedderError('checksum_mismatch', `${file.path} is larger than the manifest says`);
      }
      hash.update(chunk);
      await handle.write(chunk);
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
  const digest = hash.digest('hex');
  if (digest !== file.sha256 || (file.bytes !== null && size !== file.bytes)) {
    throw new EmbedderError('checksum_mismatch', `${file.path} does not match its pinned SHA-256`);
  }
}

interface DownloadOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  proxy?: string;
  env: Readonly<Record<string, string | undefined>>;
  tlsCa?: TrustedCa;
}

/** A redirect may not step down from HTTPS to HTTP, nor from a remote host to a loopback one. */
function checkRedirect(from: CheckedEndpoint, location: string): CheckedEndpoint {
  const next = checkEndpointUrl(new URL(location, from.url).href, { allowQuery: true });
  if (from.url.protocol === 'https:' && next.url.protocol !== 'https:')
    throw new EmbedderError('egress_refused', 'redirect from HTTPS to plain HTTP refused');
  if (next.loopback && !from.loopback)
    throw new EmbedderError('egress_refused', 'redirect from a remote host to a loopback host refused');
  return next;
}

/** The 200 response for `file` (its body unread) and a `release` that closes the hop's transport. */
async function download(
  baseUrl: string,
  file: ModelFileEntry,
  options: DownloadOptions,
): Promise<{ res: EgressStream; release: () => void }> {
  const { signal, env } = options;
  let target = checkEndpointUrl(baseUrl.replace(/\/+$/, '') + '/' + file.path, { allowQuery: false });
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    assertTlsVerificationOn(target, env);
    const route = chooseProxy(target.url, {
      env,
      ...(options.proxy !== undefined ? { proxy: options.proxy } : {}),
    });
    const via = route ? ` via proxy ${describeProxy(route.url)}` : '';
    const transport = createEgressTransport(route, options.tlsCa);
    let res: EgressStream;
    try {
      res = await transport.get(target.url, combined);
    } catch (e) {
      transport.close();
      if (signal?.aborted) throw new EmbedderError('aborted', 'model install was aborted');
      if (timeout.aborted) throw new EmbedderError('timeout', `download of ${file.path} timed out`);
      const code = (e as { code?: unknown }).code;
      if (typeof code === 'string' && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/.test(code))
        throw new EmbedderError(
          'egress_refused',
          `TLS certificate for ${target.url.host}${via} was rejected (${code})`,
        );
      throw new EmbedderError(
        'network_error',
        `download of ${file.path} from ${target.url.host}${via} failed`,
      );
    }
    if (res.status >= 300 && res.status < 400) {
      res.body.destroy();
      transport.close();
      const location = res.headers.location;
      if (!location)
        throw new EmbedderError('http_error', `HTTP ${res.status} without a location`, res.status);
      target = checkRedirect(target, location);
      continue;
    }
    if (res.status < 200 || res.status >= 300) {
      res.body.destroy();
      transport.close();
      throw new EmbedderError(
        'http_error',
        `HTTP ${res.status} for ${file.path} from ${target.url.host}${via}`,
        res.status,
      );
    }
    return { res, release: () => transport.close() };
  }
  throw new EmbedderError('egress_refused', `too many redirects for ${file.path} (at most ${MAX_REDIRECTS})`);
}

/** Re-hashes every file of a published directory; true when all match. */
async function verifyDir(dir: string, manifest: ModelManifest): Promise<boolean> {
  for (const file of manifest.files) {
    if ((await sha256File(join(dir, file.path))) !== file.sha256) return false;
  }
  return true;
}

export async function installModel(options: InstallModelOptions): Promise<InstallModelResult> {
  const checked = modelManifestSchema.safeParse(options.manifest);
  if (!checked.success) throw new EmbedderError('invalid_config', 'model manifest is malformed');
  const manifest = checked.data;
  const unpinned = manifest.files.filter((f) => f.sha256 === null).map((f) => f.path);
  if (manifest.revision === null || unpinned.length > 0) {
    throw new EmbedderError(
      'manifest_unpinned',
      `manifest ${manifest.name} has no pinned revision or SHA-256 (${unpinned.join(', ') || 'revision'})`,
    );
  }
  if ('baseUrl' in options.from) checkEndpointUrl(options.from.baseUrl);

  const modelRoot = join(options.targetDir, manifest.name);
  const dir = join(modelRoot, manifest.revision);
  await mkdir(modelRoot, { recursive: true });

  const published = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (published && (await verifyDir(dir, manifest))) return { dir, reused: true, fetched: [] };

  const staging = join(modelRoot, `.staging-${randomBytes(8).toString('hex')}`);
  const fetched: string[] = [];
  try {
    await mkdir(staging);
    for (const file of manifest.files) {
      if (options.signal?.aborted) throw new EmbedderError('aborted', 'model install was aborted');
      const dest = join(staging, file.path);
      if ('localDir' in options.from) {
        const source = join(options.from.localDir, file.path);
        const exists = await stat(source).then(
          (s) => s.isFile(),
          () => false,
        );
        if (!exists)
          throw new EmbedderError('model_missing', `${file.path} is missing from the local model dir`);
        await writeVerified(dest, file, createReadStream(source), options.signal);
      } else {
        const { res, release } = await download(options.from.baseUrl, file, {
          timeoutMs: options.timeoutMs ?? 30 * 60_000,
          env: options.env ?? process.env,
          ...(options.signal !== undefined ? { signal: options.signal } : {}),
          ...(options.proxy !== undefined ? { proxy: options.proxy } : {}),
          ...(options.tlsCa !== undefined ? { tlsCa: options.tlsCa } : {}),
        });
        try {
          await writeVerified(dest, file, res.body, options.signal);
        } catch (e) {
          if (isEmbedderError(e)) throw e;
          throw new EmbedderError('network_error', `download of ${file.path} was interrupted`);
        } finally {
          res.body.destroy();
          release();
        }
      }
      fetched.push(file.path);
    }
    for (const sub of new Set(manifest.files.map((f) => dirname(join(staging, f.path)))))
      await fsyncPath(sub);
    await fsyncPath(staging);
    if (published) {
      // A damaged earlier copy: move it aside first (rename can't replace a non-empty dir).
      const old = join(modelRoot, `.old-${randomBytes(8).toString('hex')}`);
      await rename(dir, old);
      await rename(staging, dir);
      await rm(old, { recursive: true, force: true });
    } else {
      await rename(staging, dir);
    }
    await fsyncPath(modelRoot);
  } catch (e) {
    await rm(staging, { recursive: true, force: true });
    throw e;
  }
  return { dir, reused: false, fetched };
}
