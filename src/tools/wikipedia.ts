/**
 * The Wikipedia tools for Node: everything of `./wikipedia-tools.ts` (portable), plus a JSONL corpus file
 * ({@link wikipediaCorpus}) and the MediaWiki backend with an on-disk cache (`cacheDir`).
 *
 * @module
 */

import { wikipediaApi as portableApi, type WikipediaApiOptions } from './wikipedia-api.js';
import { folderResponseCache } from './wikipedia-cache.js';
import type { WikipediaBackend } from './wikipedia-tools.js';

export { wikipediaCorpus } from './wikipedia-corpus.js';
export { wikipediaPages } from './wikipedia-pages.js';
export * from './wikipedia-tools.js';

/** Options for {@link wikipediaApi} in Node: the portable ones plus `cacheDir`. */
export interface WikipediaApiNodeOptions extends WikipediaApiOptions {
  /**
   * Folder for an on-disk cache of successful responses, one file per request URL (named by its SHA-256);
   * a cached request makes no HTTP call. Created when needed. Entries never expire. Ignored when `cache`
   * is given. @default no cache
   */
  cacheDir?: string;
}

/**
 * The MediaWiki backend (see the portable `wikipediaApi` for requests, retries and errors), with
 * `cacheDir` for an on-disk cache.
 *
 * @example
 * ```ts
 * const tools = createWikipediaTools({ backend: wikipediaApi({ cacheDir: '.taoloop/wiki-cache' }) });
 * ```
 *
 * @throws {RangeError} for a bad `timeoutMs`, `maxRetries`, `retryDelayMs` or `baseUrl` (see the portable one).
 */
export function wikipediaApi(options: WikipediaApiNodeOptions = {}): WikipediaBackend {
  const { cacheDir, ...rest } = options;
  const cache = rest.cache ?? (cacheDir ? folderResponseCache(cacheDir) : undefined);
  return portableApi(cache === undefined ? rest : { ...rest, cache });
}
