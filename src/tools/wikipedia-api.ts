/**
 * The live Wikipedia backend: the MediaWiki Action API (`api.php`) instead of the paper's HTML scraping.
 *
 * - A page: `action=query&prop=extracts|pageprops&explaintext=1&exsectionformat=wiki&redirects=1&titles=...`
 *   (TextExtracts plain-text extract; `pageprops.disambiguation` marks "may refer to" pages).
 * - Similar titles: `action=query&list=search&srsearch=...&srlimit=5&srnamespace=0` (CirrusSearch full
 *   text search, the same results as the paper's `index.php?search=` result headings).
 *
 * Sources: https://www.mediawiki.org/wiki/Extension:TextExtracts#API,
 * https://www.mediawiki.org/wiki/API:Search, https://www.mediawiki.org/wiki/API:Query (`formatversion=2`),
 * https://meta.wikimedia.org/wiki/User-Agent_policy.
 *
 * @module
 */

import packageJson from '../../package.json' with { type: 'json' };
import { getJson, type HttpSettings, type WikipediaResponseCache } from './wikipedia-http.js';
import { MAX_SIMILAR_TITLES } from './wikipedia-text.js';
import type { WikipediaBackend, WikipediaPage } from './wikipedia-tools.js';

/** Options for {@link wikipediaApi}. */
export interface WikipediaApiOptions {
  /** The wiki's `api.php`. @default 'https://en.wikipedia.org/w/api.php' */
  baseUrl?: string;
  /** Time one HTTP attempt may take, in milliseconds. @default 10000 */
  timeoutMs?: number;
  /**
   * Retries after HTTP 429, HTTP 5xx or a network error, with exponential backoff from `retryDelayMs`,
   * or after the server's `Retry-After` when it sends one (at most 10 s, so that a retry fits in the router's
   * default 30 s tool timeout; a longer one fails at once). Timeouts
   * are not retried. @default 2
   */
  maxRetries?: number;
  /** First backoff wait, in milliseconds, doubling each retry. @default 500 */
  retryDelayMs?: number;
  /** Sent with every request, as Wikimedia's User-Agent policy asks. @default 'taoloop/<version> (https://github.com/taoloop/taoloop)' */
  userAgent?: string;
  /**
   * Where successful responses are kept, by request URL; a cached request makes no HTTP call. In Node,
   * `wikipediaApi` from `taoloop/node` also takes `cacheDir` (a folder, one file per URL). @default no cache
   */
  cache?: WikipediaResponseCache;
  /** The fetch to use (tests, proxies). @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** The default User-Agent, naming the library and where to reach its authors. */
export const DEFAULT_USER_AGENT = `taoloop/${packageJson.version} (https://github.com/taoloop/taoloop)`;

/** Longest `Retry-After` the backend waits for, in milliseconds. */
const MAX_RETRY_AFTER_MS = 10_000;

/** Characters MediaWiki never allows in a title; `|` would even ask for several pages at once. */
const INVALID_TITLE = /[#<>[\]{}|\u0000-\u001f\u007f]/;

/**
 * A {@link WikipediaBackend} over the MediaWiki Action API with the global `fetch`. Each request is aborted
 * by the tool's signal or after `timeoutMs`, whichever comes first.
 *
 * @example
 * ```ts
 * const tools = createWikipediaTools({ backend: wikipediaApi() });
 * ```
 *
 * @throws {RangeError} at once, for a `timeoutMs`, `maxRetries` or `retryDelayMs` that is not a
 * non-negative integer (`timeoutMs` must be positive) or a `baseUrl` that is not an http(s) URL;
 * `TypeError` for a `cacheDir` (use `taoloop/node`).
 * Its methods throw `Error`s the router shows the model: `Wikipedia API timed out after 10000 ms`,
 * `HTTP 503 from https://en.wikipedia.org/w/api.php (after 3 attempts)`, `Wikipedia API error <code>: <info>`.
 */
export function wikipediaApi(options: WikipediaApiOptions = {}): WikipediaBackend {
  if ('cacheDir' in options) {
    throw new TypeError(
      "cacheDir writes files and needs Node: import { wikipediaApi } from 'taoloop/node', or pass a cache.",
    );
  }
  const baseUrl = options.baseUrl ?? 'https://en.wikipedia.org/w/api.php';
  if (!/^https?:\/\//i.test(baseUrl) || !URL.canParse(baseUrl)) {
    throw new RangeError(`baseUrl must be an http(s) URL of api.php, got "${baseUrl}"`);
  }
  const settings: HttpSettings = {
    timeoutMs: checkedInteger('timeoutMs', options.timeoutMs ?? 10_000, 1),
    maxRetries: checkedInteger('maxRetries', options.maxRetries ?? 2, 0),
    retryDelayMs: checkedInteger('retryDelayMs', options.retryDelayMs ?? 500, 0),
    maxRetryAfterMs: MAX_RETRY_AFTER_MS,
    userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
    cache: options.cache,
    fetch: options.fetch ?? globalThis.fetch,
  };
  const query = async (params: Record<string, string>, signal: AbortSignal) => {
    const url = new URL(baseUrl);
    for (const [key, value] of Object.entries({ action: 'query', format: 'json', formatversion: '2' })) {
      url.searchParams.set(key, value);
    }
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    return queryResult(await getJson(url.href, settings, signal));
  };
  return {
    async getPage(title, signal) {
      if (title.trim() === '' || INVALID_TITLE.test(title) || title.length > 255) return null;
      const params = {
        prop: 'extracts|pageprops',
        ppprop: 'disambiguation',
        explaintext: '1',
        exsectionformat: 'wiki',
        redirects: '1',
        titles: title,
      };
      return pageFrom(await query(params, signal));
    },
    async similarTitles(text, signal) {
      if (text.trim() === '') return [];
      const params = {
        list: 'search',
        srsearch: text,
        srlimit: String(MAX_SIMILAR_TITLES),
        srnamespace: '0',
        srprop: '',
        srinfo: '',
      };
      return titlesFrom(await query(params, signal));
    },
  };
}

function checkedInteger(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`${name} must be an integer >= ${min}, got ${value}`);
  }
  return value;
}

/** The `query` object of a response, or the API's own error as a thrown `Error`. */
function queryResult(json: unknown): Record<string, unknown> {
  if (!isRecord(json)) throw new Error('Unexpected response from the Wikipedia API: not a JSON object');
  if (isRecord(json.error)) {
    const { code, info } = json.error;
    throw new Error(`Wikipedia API error ${String(code)}: ${String(info)}`);
  }
  return isRecord(json.query) ? json.query : {};
}

/** The page of a `prop=extracts|pageprops` answer (formatversion 2: `pages` is an array). */
function pageFrom(query: Record<string, unknown>): WikipediaPage | null {
  const first: unknown = Array.isArray(query.pages) ? query.pages[0] : undefined;
  if (!isRecord(first) || first.missing === true || first.invalid === true) return null;
  if (typeof first.title !== 'string') return null;
  const text = typeof first.extract === 'string' ? cleanExtract(first.extract) : '';
  const page: WikipediaPage = { title: first.title, text };
  if (isRecord(first.pageprops) && 'disambiguation' in first.pageprops) page.disambiguation = true;
  return page;
}

/** The titles of a `list=search` answer, best first. */
function titlesFrom(query: Record<string, unknown>): string[] {
  if (!Array.isArray(query.search)) return [];
  const titles: string[] = [];
  for (const hit of query.search) {
    if (isRecord(hit) && typeof hit.title === 'string') titles.push(hit.title);
  }
  return titles.slice(0, MAX_SIMILAR_TITLES);
}

/**
 * Drops the `== Section ==` heading lines of a `exsectionformat=wiki` extract: the paper scraped only `<p>`
 * and `<ul>` text, so headings never became sentences there either.
 */
function cleanExtract(extract: string): string {
  return extract
    .split('\n')
    .filter((line) => !/^\s*=+[^=].*=+\s*$/.test(line))
    .join('\n');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
