/**
 * A small local MediaWiki Action API (`api.php`) for tests: canned pages, redirects and search results,
 * recorded requests, and scripted failures (HTTP errors with headers, or a request that is never answered).
 *
 * It answers the two queries the Wikipedia backend sends, in `formatversion=2` JSON:
 * - `prop=extracts|pageprops&titles=T&redirects=1`: `query.normalized`, `query.redirects`, and
 *   `query.pages[0]` as `{pageid, ns, title, extract, pageprops?}` or `{ns, title, missing: true}`.
 * - `list=search&srsearch=Q&srlimit=N`: `query.search` as `[{ns, title, pageid}]`.
 *
 * Shapes follow https://www.mediawiki.org/wiki/API:Query and https://www.mediawiki.org/wiki/API:Search.
 *
 * @module
 */

import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A canned page. */
export interface FakePage {
  /** The plain-text extract, as `explaintext=1&exsectionformat=wiki` returns it. */
  extract: string;
  /** Marks a disambiguation page (`pageprops.disambiguation`). */
  disambiguation?: boolean;
}

/** A scripted answer to one request, used before any normal answer. */
export type FakeFailure = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

/** Options for {@link startFakeWikipedia}. */
export interface FakeWikipediaOptions {
  /** Pages by exact title. */
  pages?: Record<string, FakePage>;
  /** Redirects: from title to target title. */
  redirects?: Record<string, string>;
  /**
   * Search results by query (exact string). A query not listed gets the titles of pages whose title or
   * extract contains every word of it (case-insensitive), in insertion order.
   */
  search?: Record<string, string[]>;
  /** Answers for the first requests, in order (one per request); then requests are served normally. */
  failures?: FakeFailure[];
}

/** One request the server received. */
export interface RecordedRequest {
  path: string;
  params: URLSearchParams;
  headers: IncomingHttpHeaders;
}

/** A running fake server. */
export interface FakeWikipedia {
  /** The `api.php` URL, e.g. `http://127.0.0.1:41234/w/api.php`. */
  apiUrl: string;
  /** Every request, in arrival order (failed and hanging ones included). */
  requests: RecordedRequest[];
  /** Stops the server and drops open (e.g. hanging) connections. */
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1 on a free port. */
export async function startFakeWikipedia(options: FakeWikipediaOptions = {}): Promise<FakeWikipedia> {
  const requests: RecordedRequest[] = [];
  const failures = [...(options.failures ?? [])];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({ path: url.pathname, params: url.searchParams, headers: req.headers });
    const failure = failures.shift();
    if (failure === 'hang') return;
    if (failure !== undefined) {
      res.writeHead(failure.status, { 'content-type': 'text/plain', ...failure.headers });
      res.end(failure.body ?? `fake failure ${failure.status}`);
      return;
    }
    if (url.pathname !== '/w/api.php') return sendJson(res, 404, { error: 'not found' });
    sendJson(res, 200, answer(url.searchParams, options));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiUrl: `http://127.0.0.1:${port}/w/api.php`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(params: URLSearchParams, options: FakeWikipediaOptions): unknown {
  if (params.get('action') !== 'query' || params.get('formatversion') !== '2') {
    return { error: { code: 'badparams', info: 'The fake answers only action=query&formatversion=2.' } };
  }
  if (params.get('list') === 'search') {
    const query = params.get('srsearch') ?? '';
    const limit = Number(params.get('srlimit') ?? '10');
    const titles = options.search?.[query] ?? searchPages(query, options.pages ?? {});
    return { batchcomplete: true, query: { search: titles.slice(0, limit).map(searchHit) } };
  }
  const title = params.get('titles');
  if (title === null) return { error: { code: 'missingparam', info: 'titles is required.' } };
  return { batchcomplete: true, query: pageQuery(title, params.get('redirects') !== null, options) };
}

function pageQuery(title: string, followRedirects: boolean, options: FakeWikipediaOptions) {
  const query: Record<string, unknown> = {};
  // MediaWiki titles: underscores are spaces, and the first letter is upper case.
  const normalized = title.replaceAll('_', ' ').replace(/^./u, (c) => c.toUpperCase());
  if (normalized !== title) query.normalized = [{ fromencoded: false, from: title, to: normalized }];
  let target = normalized;
  const redirect = options.redirects?.[normalized];
  if (followRedirects && redirect !== undefined) {
    query.redirects = [{ from: normalized, to: redirect }];
    target = redirect;
  }
  const page = options.pages?.[target];
  if (page === undefined) {
    query.pages = [{ ns: 0, title: target, missing: true }];
    return query;
  }
  const entry: Record<string, unknown> = {
    pageid: pageId(target),
    ns: 0,
    title: target,
    extract: page.extract,
  };
  if (page.disambiguation) entry.pageprops = { disambiguation: '' };
  query.pages = [entry];
  return query;
}

function searchPages(query: string, pages: Record<string, FakePage>): string[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return Object.entries(pages)
    .filter(([title, page]) => {
      const haystack = `${title} ${page.extract}`.toLowerCase();
      return words.length > 0 && words.every((word) => haystack.includes(word));
    })
    .map(([title]) => title);
}

function searchHit(title: string) {
  return { ns: 0, title, pageid: pageId(title) };
}

function pageId(title: string): number {
  let hash = 0;
  for (const char of title) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) % 1_000_000;
  return hash + 1;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}
