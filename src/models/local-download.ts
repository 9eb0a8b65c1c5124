/**
 * Getting a GGUF model file for the local adapter: the default model (Qwen2.5-1.5B-Instruct, Q4_K_M) or any
 * `hf:user/repo/file.gguf`, downloaded once into a cache folder and reused afterwards.
 *
 * node-llama-cpp's downloader hangs for minutes when the machine is offline and ignores its abort signal,
 * so a DNS lookup of the host comes first (2 s), and the download itself is guarded by our own timeouts.
 * Failures throw {@link ModelConfigError} with what to do instead.
 *
 * @module
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { errorMessage } from '../util/own.js';
import { ModelConfigError } from './errors.js';
import { importLlamaCpp } from './local-engine.js';

/** The model used by `local:` without a file: Qwen2.5-1.5B-Instruct, Q4_K_M (about 1.1 GB, Apache-2.0). */
export const DEFAULT_LOCAL_MODEL_URI = 'hf:Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf';

/** Options for {@link ensureLocalModelFile} and {@link ensureDefaultLocalModel}. */
export interface EnsureModelOptions {
  /** Folder for downloaded models. @default `$TAOLOOP_CACHE_DIR/models`, else `$XDG_CACHE_HOME/taoloop/models`, else `~/.cache/taoloop/models` */
  cacheDir?: string;
  /** Environment to read the cache variables from. @default process.env */
  env?: NodeJS.ProcessEnv;
  /**
   * Resolves a host name; a rejection (or no answer within `lookupTimeoutMs`) means offline. Given, it
   * alone decides; by default a DNS lookup is followed by one HEAD request to the server (2.5 x
   * `lookupTimeoutMs`), so a server that refuses connections fails at once.
   * @default node:dns/promises lookup, then the HEAD request
   */
  lookup?: (host: string) => Promise<unknown>;
  /** @default 2000 */
  lookupTimeoutMs?: number;
  /** Limit for contacting the server and learning the file size. @default 15000 */
  connectTimeoutMs?: number;
  /** The download fails when no byte arrives for this long. @default 60000 */
  stallTimeoutMs?: number;
  /** Progress output (a one-line bar). @default process.stderr; `null` for none */
  progress?: NodeJS.WritableStream | null;
  /** Creates the downloader; tests replace it. @default node-llama-cpp's `createModelDownloader` */
  createDownloader?: (options: DownloaderOptions) => Promise<Downloader>;
  /** Aborts the download. */
  signal?: AbortSignal;
}

/** What {@link EnsureModelOptions.createDownloader} receives (a subset of node-llama-cpp's options). */
export interface DownloaderOptions {
  modelUri: string;
  dirPath: string;
  fileName: string;
  onProgress: (status: { totalSize: number; downloadedSize: number }) => void;
  /** Where `hf:` files come from (node-llama-cpp's `endpoints`); absent for huggingface.co. */
  endpoints?: { huggingFace: string };
}

/** The part of node-llama-cpp's `ModelDownloader` used here. */
export interface Downloader {
  readonly totalSize: number;
  download(options?: { signal?: AbortSignal }): Promise<string>;
  cancel(options?: { deleteTempFile?: boolean }): Promise<void>;
}

/** What the cache keeps next to a completed download; a file without it is a partial download. */
interface Receipt {
  uri: string;
  sizeBytes: number;
}

/** The advice every download error ends with. */
export const LOCAL_MODEL_ADVICE =
  'Pass a GGUF file you have with --model local:./model.gguf, or configure a provider (e.g. --model openai-compatible:http://127.0.0.1:8080/v1#my-model, or --model openai:gpt-4o-mini with OPENAI_API_KEY set).';

/** Said before a download starts. */
const LOCAL_MODEL_ADVICE_SHORT = 'Ctrl-C stops it; taoloop models lists the other ways to get a model.';

/** The cache folder for models (see {@link EnsureModelOptions.cacheDir}). */
export function modelCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const own = env.TAOLOOP_CACHE_DIR?.trim();
  if (own) return join(own, 'models');
  const xdg = env.XDG_CACHE_HOME?.trim();
  return join(xdg || join(homedir(), '.cache'), 'taoloop', 'models');
}

/**
 * The Hugging Face endpoint downloads go to: `MODEL_ENDPOINT` or `HF_ENDPOINT` when set (as llama.cpp and
 * node-llama-cpp read them: a mirror, or a test server), else `undefined` (huggingface.co).
 *
 * @throws {ModelConfigError} when the first one set is not an http(s) URL, naming it and what to write.
 */
export function huggingFaceEndpoint(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const name of ['MODEL_ENDPOINT', 'HF_ENDPOINT'] as const) {
    const url = env[name]?.trim();
    if (!url) continue;
    if (/^https?:\/\//i.test(url) && URL.canParse(url)) return url;
    throw new ModelConfigError(
      `${name} is set to ${JSON.stringify(url)}, which is not an http(s) URL: set it to a Hugging Face mirror's URL (e.g. ${name}=https://hf-mirror.com) or unset it.`,
    );
  }
  return undefined;
}

/** The file name to store `hf:user/repo/path/file.gguf` under. */
function parseHfUri(uri: string): { fileName: string } {
  const match = /^hf:([^/\s]+)\/([^/\s]+)\/(.+\.gguf)$/i.exec(uri);
  const path = match?.[3];
  if (path === undefined) {
    throw new ModelConfigError(
      `Cannot download ${JSON.stringify(uri)}: expected hf:<user>/<repo>/<file>.gguf. ${LOCAL_MODEL_ADVICE}`,
    );
  }
  return { fileName: `${match?.[1]}--${match?.[2]}--${path.replaceAll('/', '--')}` };
}

/** Rejects with `error` after `ms`, unless `promise` settles first (the timer is cleared either way). */
export function withTimeout<T>(promise: Promise<T>, ms: number, error: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(error()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function checkOnline(options: EnsureModelOptions): Promise<void> {
  // A bad MODEL_ENDPOINT / HF_ENDPOINT is said before anything else (a cached model never reads them).
  const endpoint = huggingFaceEndpoint(options.env ?? process.env);
  const host = endpoint === undefined ? 'huggingface.co' : new URL(endpoint).hostname;
  // TAOLOOP_OFFLINE=1 promises no download is attempted at all (tests, air-gapped machines).
  if ((options.env ?? process.env).TAOLOOP_OFFLINE === '1') {
    throw new ModelConfigError(
      `Cannot download the local model: TAOLOOP_OFFLINE=1 is set. ${LOCAL_MODEL_ADVICE}`,
    );
  }
  const lookup = options.lookup ?? ((name: string) => dnsLookup(name));
  const ms = options.lookupTimeoutMs ?? 2000;
  try {
    await withTimeout(lookup(host), ms, () => new Error(`no DNS answer within ${ms} ms`));
  } catch (error) {
    throw new ModelConfigError(
      `Cannot download the local model: ${host} cannot be reached (${errorMessage(error)}); this machine looks offline (or set HF_ENDPOINT / MODEL_ENDPOINT to a mirror). ${LOCAL_MODEL_ADVICE}`,
    );
  }
  // The downloader retries a refused connection until its own timeout: one plain request first, so a
  // server that is not there fails at once. Any HTTP answer (even 404) means it is there.
  if (options.lookup !== undefined) return;
  const origin = new URL(endpoint ?? `https://${host}/`).origin;
  try {
    const response = await fetch(origin, { method: 'HEAD', signal: AbortSignal.timeout(ms * 2.5) });
    await response.body?.cancel();
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    throw new ModelConfigError(
      `Cannot download the local model: ${origin} cannot be reached (${errorMessage(cause ?? error)}; or set HF_ENDPOINT / MODEL_ENDPOINT to a mirror). ${LOCAL_MODEL_ADVICE}`,
    );
  }
}

async function hasGgufMagic(path: string): Promise<boolean> {
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(4);
    await file.read(head, 0, 4, 0);
    return head.toString('latin1') === 'GGUF';
  } finally {
    await file.close();
  }
}

/** The cached file, when its receipt exists and the size matches; anything else is not reused. */
async function cachedFile(path: string, uri: string): Promise<string | undefined> {
  try {
    const receipt = JSON.parse(await readFile(`${path}.json`, 'utf8')) as Receipt;
    const size = (await stat(path)).size;
    if (receipt.uri === uri && receipt.sizeBytes === size && (await hasGgufMagic(path))) return path;
  } catch {
    // No receipt or no file: download again.
  }
  return undefined;
}

/**
 * Returns the local path of `uri` (`hf:user/repo/file.gguf`), downloading it into the cache folder first
 * when no complete copy is there. A complete copy has a receipt (`<file>.json`: uri and size in bytes)
 * written after the downloaded size matched the server's and the file began with the GGUF magic; a file
 * without one (an interrupted download) is deleted and downloaded again.
 *
 * @throws {ModelConfigError} when the machine is offline (DNS lookup fails or takes over 2 s), the server
 *   cannot be reached in time, the download stalls or fails, or the file is not a complete GGUF; the message
 *   says how to pass a local file or configure a provider instead. Aborts reject with the signal's reason.
 */
export async function ensureLocalModelFile(uri: string, options: EnsureModelOptions = {}): Promise<string> {
  const { fileName } = parseHfUri(uri);
  const dir = options.cacheDir ?? modelCacheDir(options.env);
  const path = join(dir, fileName);
  const cached = await cachedFile(path, uri);
  if (cached !== undefined) return cached;
  options.signal?.throwIfAborted();
  await checkOnline(options);
  await mkdir(dir, { recursive: true });
  const partial = `${fileName}.partial`;
  await rm(join(dir, partial), { force: true });
  const sizeBytes = await download(uri, dir, partial, options);
  const downloaded = join(dir, partial);
  if ((await stat(downloaded)).size !== sizeBytes || !(await hasGgufMagic(downloaded))) {
    await rm(downloaded, { force: true });
    throw new ModelConfigError(
      `The download of ${uri} is incomplete or not a GGUF file. ${LOCAL_MODEL_ADVICE}`,
    );
  }
  await rename(downloaded, path);
  await writeFile(`${path}.json`, `${JSON.stringify({ uri, sizeBytes } satisfies Receipt)}\n`);
  return path;
}

/**
 * Whether {@link ensureLocalModelFile} could give `uri` now, without downloading anything: `{ cached }` (the
 * path) when a complete copy is in the cache, `{}` when a download could start, else `{ cannotDownload }`:
 * why not (the same offline check as {@link ensureLocalModelFile}, e.g. `TAOLOOP_OFFLINE=1 is set`).
 */
export async function localModelStatus(
  uri: string,
  options: EnsureModelOptions = {},
): Promise<{ cached?: string; cannotDownload?: string }> {
  try {
    const { fileName } = parseHfUri(uri);
    const cached = await cachedFile(join(options.cacheDir ?? modelCacheDir(options.env), fileName), uri);
    if (cached !== undefined) return { cached };
    await checkOnline(options);
    return {};
  } catch (error) {
    if (!(error instanceof ModelConfigError)) throw error;
    const why = error.message
      .replace(/^Cannot download the local model: /, '')
      .replace(` ${LOCAL_MODEL_ADVICE}`, '');
    return { cannotDownload: why.replace(/\.$/, '') };
  }
}

/**
 * {@link ensureLocalModelFile} for {@link DEFAULT_LOCAL_MODEL_URI}: the path of the default local model,
 * downloaded on first use (about 1.1 GB) with a progress bar on stderr.
 *
 * @throws {ModelConfigError} as {@link ensureLocalModelFile}, within about 2 s when offline.
 */
export function ensureDefaultLocalModel(options: EnsureModelOptions = {}): Promise<string> {
  return ensureLocalModelFile(DEFAULT_LOCAL_MODEL_URI, options);
}

async function defaultCreateDownloader(options: DownloaderOptions): Promise<Downloader> {
  // node-llama-cpp reads MODEL_ENDPOINT / HF_ENDPOINT from process.env itself; `endpoints` says it for `env`.
  const { createModelDownloader } = await importLlamaCpp();
  return createModelDownloader({
    ...options,
    showCliProgress: false,
    skipExisting: false,
    deleteTempFileOnCancel: true,
    parallelDownloads: 1,
  });
}

/** Downloads into `dir/fileName` under the connect and stall timeouts; returns the expected size. */
async function download(uri: string, dir: string, fileName: string, options: EnsureModelOptions) {
  const fail = (why: string) => new ModelConfigError(`Cannot download ${uri}: ${why}. ${LOCAL_MODEL_ADVICE}`);
  const progress = progressBar(fileName.replace(/\.partial$/, ''), options.progress);
  let lastProgressAt = Date.now();
  const create = options.createDownloader ?? defaultCreateDownloader;
  const connectMs = options.connectTimeoutMs ?? 15_000;
  let downloader: Downloader;
  const endpoint = huggingFaceEndpoint(options.env ?? process.env);
  try {
    downloader = await withTimeout(
      create({
        modelUri: uri,
        dirPath: dir,
        fileName,
        ...(endpoint !== undefined && { endpoints: { huggingFace: endpoint } }),
        onProgress: (status) => {
          lastProgressAt = Date.now();
          progress.update(status.downloadedSize, status.totalSize);
        },
      }),
      connectMs,
      () => new Error(`no answer from the server within ${connectMs / 1000} s`),
    );
  } catch (error) {
    throw fail(errorMessage(error));
  }
  // The size is said before the first byte, so nobody starts a 1 GB download unawares.
  const out = options.progress === undefined ? process.stderr : options.progress;
  const size = downloader.totalSize > 0 ? ` (${(downloader.totalSize / 1e6).toFixed(0)} MB)` : '';
  out?.write(
    `Downloading ${uri}${size} once into ${dir}; later runs use that copy. ${LOCAL_MODEL_ADVICE_SHORT}\n`,
  );
  const watch = stallWatch(() => lastProgressAt, options.stallTimeoutMs ?? 60_000);
  const signal = options.signal;
  // node-llama-cpp's download may not notice the abort signal while it waits on the network: race it too.
  const aborted = new Promise<never>((_, reject) => {
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  aborted.catch(() => undefined);
  try {
    await Promise.race([downloader.download(signal === undefined ? {} : { signal }), watch.stalled, aborted]);
  } catch (error) {
    await withTimeout(
      downloader.cancel({ deleteTempFile: true }),
      2000,
      () => new Error('cancel timed out'),
    ).catch(() => undefined);
    await rm(join(dir, fileName), { force: true });
    options.signal?.throwIfAborted();
    throw fail(errorMessage(error));
  } finally {
    watch.stop();
    progress.done();
  }
  return downloader.totalSize;
}

/** Rejects `stalled` once `lastProgressAt()` is more than `ms` in the past; `stop()` ends the watch. */
function stallWatch(lastProgressAt: () => number, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setInterval(
      () => {
        if (Date.now() - lastProgressAt() < ms) return;
        clearInterval(timer);
        reject(new Error(`no data for ${ms / 1000} s`));
      },
      Math.min(1000, ms),
    );
  });
  stalled.catch(() => undefined);
  return { stalled, stop: () => clearInterval(timer) };
}

/** A one-line progress bar, redrawn at most every 200 ms (every 10% when the stream is not a terminal). */
function progressBar(name: string, stream: NodeJS.WritableStream | null | undefined) {
  const out = stream === undefined ? process.stderr : stream;
  const tty = (out as { isTTY?: boolean } | null)?.isTTY === true;
  let drawnAt = 0;
  let lastTenth = -1;
  const mb = (bytes: number) => (bytes / 1e6).toFixed(0);
  return {
    update(done: number, total: number): void {
      if (out === null || total <= 0) return;
      const share = Math.min(1, done / total);
      const tenth = Math.floor(share * 10);
      if (tty ? Date.now() - drawnAt < 200 && share < 1 : tenth === lastTenth) return;
      drawnAt = Date.now();
      lastTenth = tenth;
      const bar = '#'.repeat(Math.round(share * 30)).padEnd(30, '.');
      const line = `Downloading ${name} [${bar}] ${(share * 100).toFixed(0)}% ${mb(done)}/${mb(total)} MB`;
      out.write(tty ? `\r${line}` : `${line}\n`);
    },
    done(): void {
      if (out !== null && tty && drawnAt > 0) out.write('\n');
    },
  };
}
