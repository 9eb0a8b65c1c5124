/**
 * An offline Wikipedia backend for Node: pages from a local JSONL file, for tests, benchmarks and
 * reproducible runs (e.g. a frozen dump of the pages a dataset needs). The portable `wikipediaPages`
 * (`./wikipedia-pages.ts`) takes the same pages in memory.
 *
 * @module
 */

import { readFile } from 'node:fs/promises';
import { backendOver, indexJsonl, type WikipediaCorpusIndex } from './wikipedia-pages.js';
import type { WikipediaBackend } from './wikipedia-tools.js';

/**
 * A {@link WikipediaBackend} over a JSONL file with one page per line: `{"title": "...", "text": "..."}`
 * (paragraphs separated by `\n`; other fields ignored; blank lines skipped). The file is read and indexed
 * once, on the first call; a failed read is tried again on the next call. Lookups and similar titles work
 * as in `wikipediaPages`.
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
  let loading: Promise<WikipediaCorpusIndex> | undefined;
  return backendOver(() => {
    loading ??= loadCorpus(file).catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  });
}

async function loadCorpus(file: string): Promise<WikipediaCorpusIndex> {
  const raw = await readFile(file, 'utf8').catch((error: unknown) => {
    const code = (error as { code?: unknown }).code;
    throw new Error(
      `Cannot read the Wikipedia corpus ${file}${typeof code === 'string' ? ` (${code})` : ''}`,
    );
  });
  return indexJsonl(raw, file);
}
