/**
 * The on-disk cache of search indexes: a large docs folder is tokenized and indexed once, and later runs
 * over the same content load the saved index instead. Reading the files (to hash them) still happens on
 * every run; what the cache saves is tokenizing and indexing.
 *
 * One file per content hash, `<key>.idx`, three lines: a JSON header, the passages, the inverted index.
 * Files are written to a temporary name and renamed, so a reader sees a whole file or none. Nothing here
 * throws: an entry that cannot be read or parsed is a miss, and a failed write is skipped.
 *
 * @module
 */

import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { DocumentIndex, INDEX_FORMAT, type SourceDocument } from './search-index.js';
import { TEXT_VERSION } from './search-text.js';

/** Default for `cacheMinPassages`: folders with fewer passages are indexed on every run, never saved. */
export const DEFAULT_CACHE_MIN_PASSAGES = 2000;

const FILE_KIND = 'taoloop search index';
const EXTENSION = '.idx';

/**
 * The folder search indexes are cached in, by default: `$TAOLOOP_CACHE_DIR/search` when that variable is
 * set, else `$XDG_CACHE_HOME/taoloop/search` when that is an absolute path (the XDG Base Directory spec
 * says to ignore a relative one), else `~/.cache/taoloop/search`.
 *
 * @param env - the environment to read. @default process.env
 * @param home - the home folder. @default os.homedir()
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  const own = env.TAOLOOP_CACHE_DIR;
  if (own !== undefined && own !== '') return path.resolve(own, 'search');
  const xdg = env.XDG_CACHE_HOME;
  if (xdg !== undefined && path.isAbsolute(xdg)) return path.join(xdg, 'taoloop', 'search');
  return path.join(home, '.cache', 'taoloop', 'search');
}

/**
 * The cache key of a set of documents: SHA-256 (hex) over the index format, the text-processing version
 * and the list of (document id, SHA-256 of its text) sorted by id. The text hashed is what gets indexed
 * (for `.json`/`.jsonl` files, the extracted text), so the key changes exactly when the index would.
 */
export function indexCacheKey(docs: readonly SourceDocument[]): string {
  const sorted = [...docs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const outer = createHash('sha256');
  outer.update(`${FILE_KIND}\nformat ${INDEX_FORMAT}\ntext ${TEXT_VERSION}\n`);
  for (const doc of sorted) {
    const inner = createHash('sha256').update(doc.text).digest('hex');
    outer.update(`${JSON.stringify(doc.id)} ${inner}\n`);
  }
  return outer.digest('hex');
}

/** The path of the cache entry for `key` in `cacheDir`. */
export function cacheFilePath(cacheDir: string, key: string): string {
  return path.join(cacheDir, `${key}${EXTENSION}`);
}

/**
 * Loads the index saved under `key`, or `undefined` when there is none or it cannot be used (unreadable,
 * truncated, corrupt, another format or another key). Never throws.
 */
export async function loadCachedIndex(cacheDir: string, key: string): Promise<DocumentIndex | undefined> {
  let content: string;
  try {
    content = await readFile(cacheFilePath(cacheDir, key), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const first = content.indexOf('\n');
    const second = content.indexOf('\n', first + 1);
    if (first < 0 || second < 0) return undefined;
    const header = JSON.parse(content.slice(0, first)) as unknown;
    if (!isHeaderFor(header, key)) return undefined;
    return DocumentIndex.deserialize({
      passagesJson: content.slice(first + 1, second),
      engineJson: content.slice(second + 1),
    });
  } catch {
    return undefined;
  }
}

/**
 * Saves `index` under `key`, atomically (a temporary file in the same folder, then a rename), creating
 * the folder when needed. Returns whether it was saved; a failure (read-only folder, full disk, an index
 * too large for one string) is not an error, the next run just builds the index again.
 */
export async function saveCachedIndex(cacheDir: string, key: string, index: DocumentIndex): Promise<boolean> {
  const file = cacheFilePath(cacheDir, key);
  const temp = path.join(cacheDir, `.${key}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await mkdir(cacheDir, { recursive: true });
    const { passagesJson, engineJson } = index.serialize();
    const handle = await open(temp, 'wx');
    try {
      const header = JSON.stringify({ kind: FILE_KIND, format: INDEX_FORMAT, text: TEXT_VERSION, key });
      for (const part of [header, '\n', passagesJson, '\n', engineJson, '\n']) await handle.write(part);
    } finally {
      await handle.close();
    }
    await rename(temp, file);
    return true;
  } catch {
    await rm(temp, { force: true }).catch(() => undefined);
    return false;
  }
}

function isHeaderFor(header: unknown, key: string): boolean {
  if (typeof header !== 'object' || header === null) return false;
  const h = header as Record<string, unknown>;
  return h.kind === FILE_KIND && h.format === INDEX_FORMAT && h.text === TEXT_VERSION && h.key === key;
}
