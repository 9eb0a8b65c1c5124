/**
 * The built-in search tool for Node: keyword (BM25) search over a folder of local documents (read, and
 * for large folders cached on disk), or over documents passed as strings (see `./search-tool.ts`).
 *
 * @module
 */

import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_MAX_DOCUMENT_BYTES, readDocFile } from './docs-file.js';
import { looksLikeSecretName, nameAllowed } from './safe-path.js';
import {
  DEFAULT_CACHE_MIN_PASSAGES,
  defaultCacheDir,
  indexCacheKey,
  loadCachedIndex,
  saveCachedIndex,
} from './search-cache.js';
import { DocumentIndex, type SourceDocument } from './search-index.js';
import {
  type DocumentSearchToolOptions,
  createSearchTool as fromDocuments,
  searchTool,
} from './search-tool.js';
import type { Tool } from './types.js';

export { DEFAULT_MAX_DOCUMENT_BYTES } from './docs-file.js';
export { DEFAULT_CACHE_MIN_PASSAGES, defaultCacheDir } from './search-cache.js';

export {
  DEFAULT_MIN_RELATIVE_SCORE,
  DocumentIndex,
  type IndexSearchOptions,
  type SearchHit,
  type SourceDocument,
} from './search-index.js';

export { NO_MATCH, type SearchDocuments } from './search-tool.js';

/** File extensions read from the docs folder. */
export const DOC_EXTENSIONS: readonly string[] = ['.md', '.txt', '.json', '.jsonl'];

/** Most files read from one docs folder; a folder with more is refused (it is probably the wrong one). */
export const MAX_DOC_FILES = 10_000;

const FOLDER_HINT = '--docs must be a folder with .md/.txt/.json/.jsonl files';

/** The docs folder cannot be used: missing, not a folder, unreadable, empty or too big. */
export class DocsFolderError extends Error {
  override name = 'DocsFolderError';
}

/** Options for {@link readDocuments}. */
export interface ReadDocumentsOptions {
  /**
   * Most bytes read from each document; a longer one is cut there (at a character boundary) and a
   * warning names it. @default DEFAULT_MAX_DOCUMENT_BYTES (1 MiB)
   */
  maxDocumentBytes?: number;
  /**
   * File name patterns (`*` is the only wildcard, case-insensitive) indexed even though they look like
   * secrets (see `SECRET_NAME_PATTERNS`), as `read_file`'s option of the same name, e.g. `['secrets.md']`.
   * @default [] (every secret-looking name is skipped)
   */
  allowNames?: readonly string[];
  /**
   * Receives warnings (a document cut at `maxDocumentBytes`, one skipped because it changed into a
   * symlink after listing, how many were skipped because their names look like secrets), each naming
   * the files relative to the docs folder.
   * @default `process.emitWarning(message, 'TaoloopWarning')`
   */
  onWarning?: (message: string) => void;
}

/** Options for {@link createSearchIndex}. */
export interface SearchIndexOptions extends ReadDocumentsOptions {
  /** Folder to index, searched recursively. Dotfiles, dot-folders, `node_modules` and symlinks are skipped. */
  docsDir: string;
  /**
   * Folder where indexes of large docs folders are saved, keyed by a hash of their content (see
   * `indexCacheKey`), or `false` to never read or write a cache. Writes that fail (a read-only folder)
   * are skipped, and an unreadable or corrupt entry is rebuilt.
   * @default defaultCacheDir(): `$TAOLOOP_CACHE_DIR/search`, else `$XDG_CACHE_HOME/taoloop/search`, else `~/.cache/taoloop/search`
   */
  cacheDir?: string | false;
  /**
   * Fewest passages for an index to be saved in `cacheDir`; smaller folders are quick to index
   * (2,000 passages is about 1 MB of text, indexed in well under a second) and are never saved.
   * @default 2000
   */
  cacheMinPassages?: number;
}

/** What {@link createSearchIndex} gives back. */
export interface SearchIndexResult {
  index: DocumentIndex;
  /** `'cache'` when the index was loaded from `cacheDir`, `'built'` when it was tokenized and indexed now. */
  source: 'built' | 'cache';
}

/** Options for {@link createSearchTool}. */
export interface SearchToolOptions extends SearchIndexOptions {
  /** Most passages returned per search. @default 2 */
  topK?: number;
}

/**
 * Reads a docs folder into documents, one per file, with ids relative to the folder (`/` separated).
 *
 * `.md` and `.txt` files are read as text. `.jsonl` files: each line's `text` or `content` field (with
 * its `title` in front when there is one), a string line as is, else the whole line. `.json` files: the
 * same for the value, an array giving one paragraph per item, and other objects their fields as
 * `key: value` pairs.
 *
 * Symlinks are never followed: they are skipped when listing, each file is opened without following
 * one, and a file whose path leads elsewhere when it is opened (a folder swapped for a symlink after
 * listing) is skipped with a warning. Each document is read up to `maxDocumentBytes`. Files whose names
 * look like secrets (the check `read_file` refuses them by, see `looksLikeSecretName`: `secrets.md`,
 * `credentials.txt`, `id_rsa.txt`) are never read, unless `allowNames` matches them; one warning says how
 * many were skipped and names the first few.
 *
 * @throws {DocsFolderError} when the folder is missing, not a folder, unreadable, has no readable
 * documents, or has more than `MAX_DOC_FILES` of them; the message names the path.
 * @throws {RangeError} when `maxDocumentBytes` is not a positive integer.
 */
export async function readDocuments(
  docsDir: string,
  options: ReadDocumentsOptions = {},
): Promise<SourceDocument[]> {
  const maxBytes = options.maxDocumentBytes ?? DEFAULT_MAX_DOCUMENT_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    throw new RangeError(`maxDocumentBytes must be a positive integer, got ${maxBytes}`);
  }
  const warn = options.onWarning ?? ((message: string) => process.emitWarning(message, 'TaoloopWarning'));
  const root = path.resolve(docsDir);
  const info = await stat(root).catch((error: unknown) => {
    throw new DocsFolderError(`Docs folder ${root} ${describeError(error)}: ${FOLDER_HINT}`);
  });
  if (!info.isDirectory()) throw new DocsFolderError(`${root} is not a folder: ${FOLDER_HINT}`);
  const rootReal = await realpath(root);
  const skipped: string[] = [];
  const files = await listDocFiles(rootReal, (file) => {
    const id = path.relative(rootReal, file).split(path.sep).join('/');
    if (!looksLikeSecretName(id) || nameAllowed(id, options.allowNames ?? [])) return true;
    skipped.push(id);
    return false;
  });
  if (skipped.length > 0) {
    skipped.sort();
    const shown =
      skipped.slice(0, 5).join(', ') + (skipped.length > 5 ? `, and ${skipped.length - 5} more` : '');
    warn(
      `Skipped ${skipped.length} document${skipped.length === 1 ? '' : 's'} whose name${skipped.length === 1 ? ' looks' : 's look'} ` +
        `like a secret (${shown}); allowNames indexes such names.`,
    );
  }
  const docs: SourceDocument[] = [];
  for (const file of files) {
    const id = path.relative(rootReal, file).split(path.sep).join('/');
    const raw = await readDocFile(file, id, maxBytes, warn).catch((error: unknown) => {
      throw new DocsFolderError(`Document ${path.join(root, id)} ${describeError(error)}: ${FOLDER_HINT}`);
    });
    // A binary file with a text extension (a renamed executable, an image) is not a document.
    if (raw === undefined || looksBinary(raw)) continue;
    const text = documentText(raw, path.extname(file).toLowerCase());
    if (text.trim() !== '') docs.push({ id, text });
  }
  if (docs.length === 0) {
    throw new DocsFolderError(`No documents with text found in ${root}: ${FOLDER_HINT}`);
  }
  return docs;
}

/** NUL characters, or invalid UTF-8 decoded as U+FFFD, in the first 8 KB. */
function looksBinary(text: string): boolean {
  const head = text.slice(0, 8192);
  return head.includes('\u0000') || head.includes('\uFFFD');
}

/**
 * Creates the `search` tool over a folder of documents (`docsDir`), read and indexed once, now, or over
 * documents passed as strings (`documents`, as the portable `createSearchTool` of `taoloop`).
 * Its observation is the best passages (at most `topK`, weak ones dropped) joined with ` | `, or
 * exactly `No matching document.`. Read-only.
 *
 * @example
 * ```ts
 * const search = await createSearchTool({ docsDir: 'examples/brightgrid' });
 * await search.run('Pro price per developer', { signal }); // 'Pricing: Brightgrid Pro costs $20 per month...'
 * ```
 *
 * @throws {DocsFolderError} when the folder cannot be used (see {@link readDocuments}).
 * @throws {RangeError} when `topK` is not a positive integer, or `cacheMinPassages` not a non-negative one.
 */
export async function createSearchTool(
  options: SearchToolOptions | DocumentSearchToolOptions,
): Promise<Tool> {
  if (!('docsDir' in options)) return fromDocuments(options);
  const topK = options.topK ?? 2;
  if (!Number.isInteger(topK) || topK < 1) {
    throw new RangeError(`topK must be a positive integer, got ${topK}`);
  }
  const { index } = await createSearchIndex(options);
  return searchTool(index, { topK, collectionName: path.basename(path.resolve(options.docsDir)) });
}

/**
 * Reads a docs folder (see {@link readDocuments}) and indexes it, or loads the index saved for the same
 * content from `cacheDir`. An index of at least `cacheMinPassages` passages that was built is saved there
 * for the next run.
 *
 * @example
 * ```ts
 * const { index, source } = await createSearchIndex({ docsDir: 'docs', cacheDir: '/tmp/taoloop-cache' });
 * // source: 'built' the first time for a large folder, 'cache' on the next runs until a file changes
 * ```
 *
 * @throws {DocsFolderError} when the folder cannot be used (see {@link readDocuments}).
 * @throws {RangeError} when `cacheMinPassages` is not a non-negative integer.
 */
export async function createSearchIndex(options: SearchIndexOptions): Promise<SearchIndexResult> {
  const minPassages = options.cacheMinPassages ?? DEFAULT_CACHE_MIN_PASSAGES;
  if (!Number.isInteger(minPassages) || minPassages < 0) {
    throw new RangeError(`cacheMinPassages must be a non-negative integer, got ${minPassages}`);
  }
  const docs = await readDocuments(options.docsDir, options);
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  if (cacheDir === false) return { index: DocumentIndex.fromDocuments(docs), source: 'built' };
  const key = indexCacheKey(docs);
  const cached = await loadCachedIndex(cacheDir, key);
  if (cached !== undefined) return { index: cached, source: 'cache' };
  const index = DocumentIndex.fromDocuments(docs);
  if (index.size >= minPassages) await saveCachedIndex(cacheDir, key, index);
  return { index, source: 'built' };
}

async function listDocFiles(root: string, keep: (file: string) => boolean): Promise<string[]> {
  const files: string[] = [];
  const pending = [root];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    const entries = await readdir(dir, { withFileTypes: true }).catch((error: unknown) => {
      throw new DocsFolderError(`Folder ${dir} ${describeError(error)}: ${FOLDER_HINT}`);
    });
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else if (entry.isFile() && DOC_EXTENSIONS.includes(path.extname(entry.name).toLowerCase())) {
        if (keep(full)) files.push(full);
      }
    }
    if (files.length > MAX_DOC_FILES) {
      throw new DocsFolderError(`More than ${MAX_DOC_FILES} documents under ${root}: ${FOLDER_HINT}`);
    }
  }
  return files.sort();
}

function documentText(raw: string, extension: string): string {
  if (extension === '.jsonl') {
    return raw
      .split(/\r?\n/)
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const value = parseJson(line);
        return value === undefined ? line : jsonText(value, 0) || line;
      })
      .join('\n\n');
  }
  if (extension === '.json') {
    const value = parseJson(raw);
    return value === undefined ? raw : jsonText(value, 0);
  }
  return raw;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The readable text of a JSON value: `text`/`content` fields first, else every primitive field. */
function jsonText(value: unknown, depth: number): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null || typeof value !== 'object' || depth > 20) return '';
  if (Array.isArray(value)) {
    return value
      .map((item) => jsonText(item, depth + 1))
      .filter((text) => text !== '')
      .join('\n\n');
  }
  const record = value as Record<string, unknown>;
  const body = typeof record.text === 'string' ? record.text : record.content;
  if (typeof body === 'string') {
    return typeof record.title === 'string' ? `${record.title}: ${body}` : body;
  }
  const fields: string[] = [];
  const nested: string[] = [];
  for (const [key, field] of Object.entries(record)) {
    if (typeof field === 'object' && field !== null) nested.push(jsonText(field, depth + 1));
    else if (field !== null && field !== undefined) fields.push(`${key}: ${String(field)}`);
  }
  return [fields.join('; '), ...nested].filter((text) => text !== '').join('\n\n');
}

function describeError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'is not readable (permission denied)';
  return `cannot be read (${typeof code === 'string' ? code : String(error)})`;
}
