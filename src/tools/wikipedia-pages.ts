/**
 * An offline Wikipedia backend over pages held in memory (an array, or JSONL text the caller fetched or
 * bundled): no file system, so it runs in browsers and edge runtimes. `taoloop/node`'s `wikipediaCorpus`
 * reads the same JSONL from a file.
 *
 * @module
 */

import MiniSearch from 'minisearch';
import { MAX_SIMILAR_TITLES, titleKey } from './wikipedia-text.js';
import type { WikipediaBackend, WikipediaPage } from './wikipedia-tools.js';

/** Pages indexed for lookup by title and for a full-text search of similar titles. */
export interface WikipediaCorpusIndex {
  byTitle: Map<string, WikipediaPage>;
  index: MiniSearch<{ id: number; title: string; text: string }>;
}

/**
 * A {@link WikipediaBackend} over pages in memory: an array of `{ title, text }`, or JSONL text with one
 * page per line (`{"title": "...", "text": "..."}`, paragraphs separated by `\n`, other fields ignored,
 * blank lines skipped). Indexed at once.
 *
 * - `getPage`: the page whose title is the same up to case, `_` versus space and extra spaces; for two
 *   such pages, the first.
 * - `similarTitles`: the 5 best pages for the query by a BM25 full-text search over titles (weighted 3x)
 *   and text, with prefix and light fuzzy matching (minisearch), as Wikipedia's own search ranks them.
 *
 * @example
 * ```ts
 * const tools = createWikipediaTools({ backend: wikipediaPages([{ title: 'Paris', text: 'Paris is the capital of France.' }]) });
 * ```
 *
 * @throws {Error} when a JSONL line or an item is not a `{title, text}` object with a non-empty title;
 * the message names the line (`pages:3`) or item.
 */
export function wikipediaPages(pages: string | readonly WikipediaPage[]): WikipediaBackend {
  const corpus =
    typeof pages === 'string'
      ? indexJsonl(pages, 'pages')
      : indexPages(pages.map((page, i) => checkPage(page, `pages[${i}]`)));
  return backendOver(async () => corpus);
}

/** The backend's two methods over a corpus that `load` gives (read lazily by `wikipediaCorpus`). */
export function backendOver(load: () => Promise<WikipediaCorpusIndex>): WikipediaBackend {
  return {
    async getPage(title) {
      return (await load()).byTitle.get(titleKey(title)) ?? null;
    },
    async similarTitles(query) {
      const { index } = await load();
      const hits = index.search(query, {
        boost: { title: 3 },
        prefix: (term) => term.length > 3,
        fuzzy: (term) => (term.length > 4 ? 0.2 : false),
      });
      return hits.slice(0, MAX_SIMILAR_TITLES).map((hit) => String(hit.title));
    },
  };
}

/** Parses JSONL pages (`where` names the source in errors, e.g. a file name) and indexes them. */
export function indexJsonl(raw: string, where: string): WikipediaCorpusIndex {
  const pages: WikipediaPage[] = [];
  raw.split('\n').forEach((line, i) => {
    if (line.trim() !== '') pages.push(parseLine(line, `${where}:${i + 1}`));
  });
  return indexPages(pages);
}

function indexPages(pages: readonly WikipediaPage[]): WikipediaCorpusIndex {
  const byTitle = new Map<string, WikipediaPage>();
  const docs: Array<{ id: number; title: string; text: string }> = [];
  for (const page of pages) {
    const key = titleKey(page.title);
    if (byTitle.has(key)) continue;
    byTitle.set(key, page);
    docs.push({ id: docs.length, title: page.title, text: page.text });
  }
  const index = new MiniSearch<{ id: number; title: string; text: string }>({
    fields: ['title', 'text'],
    storeFields: ['title'],
  });
  index.addAll(docs);
  return { byTitle, index };
}

function parseLine(line: string, where: string): WikipediaPage {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new Error(`${where}: not valid JSON; each line must be {"title": "...", "text": "..."}`);
  }
  return checkPage(value, where);
}

function checkPage(value: unknown, where: string): WikipediaPage {
  const record = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const { title, text } = record;
  if (typeof title !== 'string' || title.trim() === '' || typeof text !== 'string') {
    throw new Error(`${where}: each line must be {"title": "...", "text": "..."} with a non-empty title`);
  }
  return { title, text };
}
