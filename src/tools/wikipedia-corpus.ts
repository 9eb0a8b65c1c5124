/**
 * An offline Wikipedia backend: pages from a local JSONL file, for tests, benchmarks and reproducible
 * runs (e.g. a frozen dump of the pages a dataset needs).
 *
 * @module
 */

import { readFile } from 'node:fs/promises';
import MiniSearch from 'minisearch';
import type { WikipediaBackend, WikipediaPage } from './wikipedia.js';
import { MAX_SIMILAR_TITLES, titleKey } from './wikipedia-text.js';

interface Corpus {
  byTitle: Map<string, WikipediaPage>;
  index: MiniSearch<{ id: number; title: string; text: string }>;
}

/**
 * A {@link WikipediaBackend} over a JSONL file with one page per line: `{"title": "...", "text": "..."}`
 * (paragraphs separated by `\n`; other fields ignored; blank lines skipped). The file is read and indexed
 * once, on the first call; a failed read is tried again on the next call.
 *
 * - `getPage`: the page whose title is the same up to case, `_` versus space and extra spaces; for two
 *   such pages, the first in the file.
 * - `similarTitles`: the 5 best pages for the query by a BM25 full-text search over titles (weighted 3x)
 *   and text, with prefix and light fuzzy matching (minisearch), as Wikipedia's own search ranks them.
 *
 * @example
 * ```ts
 * const tools = createWikipediaTools({ backend: wikipediaCorpus('data/hotpotqa-pages.jsonl') });
 * ```
 *
 * @throws {Error} from its methods when the file cannot be read or a line is not a `{title, text}`
 * object; the message names the file and line.
 */
export function wikipediaCorpus(file: string): WikipediaBackend {
  let loading: Promise<Corpus> | undefined;
  const corpus = (): Promise<Corpus> => {
    loading ??= loadCorpus(file).catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  return {
    async getPage(title) {
      return (await corpus()).byTitle.get(titleKey(title)) ?? null;
    },
    async similarTitles(query) {
      const { index } = await corpus();
      const hits = index.search(query, {
        boost: { title: 3 },
        prefix: (term) => term.length > 3,
        fuzzy: (term) => (term.length > 4 ? 0.2 : false),
      });
      return hits.slice(0, MAX_SIMILAR_TITLES).map((hit) => String(hit.title));
    },
  };
}

async function loadCorpus(file: string): Promise<Corpus> {
  const raw = await readFile(file, 'utf8').catch((error: unknown) => {
    const code = (error as { code?: unknown }).code;
    throw new Error(
      `Cannot read the Wikipedia corpus ${file}${typeof code === 'string' ? ` (${code})` : ''}`,
    );
  });
  const byTitle = new Map<string, WikipediaPage>();
  const docs: Array<{ id: number; title: string; text: string }> = [];
  raw.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const page = parseLine(line, `${file}:${i + 1}`);
    const key = titleKey(page.title);
    if (byTitle.has(key)) return;
    byTitle.set(key, page);
    docs.push({ id: docs.length, title: page.title, text: page.text });
  });
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
  const record = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const { title, text } = record;
  if (typeof title !== 'string' || title.trim() === '' || typeof text !== 'string') {
    throw new Error(`${where}: each line must be {"title": "...", "text": "..."} with a non-empty title`);
  }
  return { title, text };
}
