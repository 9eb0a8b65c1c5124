/**
 * The ReAct paper's Wikipedia environment as two tools, `search[entity]` and `lookup[keyword]`, over a
 * pluggable backend: the live MediaWiki API over `fetch` (`wikipediaApi`), pages held in memory
 * (`wikipediaPages`), or, in Node, a local JSONL corpus (`wikipediaCorpus` in `taoloop/node`). `finish[answer]` is the loop's answer, not a tool here.
 *
 * Source: Yao et al. 2022, _ReAct_, section 3.1 and `wikienv.py` in ysymyth/ReAct.
 *
 * @module
 */

import type { Tool, ToolSnapshot } from './types.js';
import {
  lookupObservation,
  lookupSentences,
  NO_MORE_RESULTS,
  notFoundObservation,
  pageObservation,
  sameTitle,
} from './wikipedia-text.js';

export { NO_MORE_RESULTS, pageSentences } from './wikipedia-text.js';

/** A Wikipedia page as a backend returns it. */
export interface WikipediaPage {
  /** The page's own title, after redirects (e.g. `Paramore` for `paramore`). */
  title: string;
  /** Plain text, paragraphs separated by newlines, no section headings. */
  text: string;
  /**
   * True for a disambiguation page ("X may refer to: ..."): `search` then answers with similar titles, as
   * the paper does. @default false
   */
  disambiguation?: boolean;
}

/**
 * Where the Wikipedia tools get pages from. Both methods may throw (network, HTTP, unreadable corpus);
 * the tool router turns the error into an `Error: ...` observation.
 */
export interface WikipediaBackend {
  /** The page titled `title` (following redirects), or `null` when there is none. */
  getPage(title: string, signal: AbortSignal): Promise<WikipediaPage | null>;
  /** Up to 5 titles of pages that match `query`, best first (the paper's search result headings). */
  similarTitles(query: string, signal: AbortSignal): Promise<string[]>;
}

/** Options for {@link createWikipediaTools}. */
export interface WikipediaToolsOptions {
  /** Where pages come from: {@link wikipediaApi}`()` or {@link wikipediaCorpus}`(file)`. */
  backend: WikipediaBackend;
}

/** Input limit of both tools, in characters. */
const MAX_INPUT_CHARS = 200;

/** What `lookup` reads: the current page and the lookup cursor (the paper's `page`, `lookup_*`). */
interface EpisodeState {
  page: WikipediaPage | null;
  keyword: string | null;
  matches: string[];
  /** Index of the next match to show. */
  cursor: number;
}

/**
 * Creates the paper's `search` and `lookup` tools, in that order. They share one state (the current page
 * and the lookup cursor), so create a fresh pair for every run or episode.
 *
 * - `search[entity]`: the page titled `entity` (redirects followed; else a search result whose title is
 *   the same up to case, like Wikipedia's "Go" search). Found: its first 5 sentences, and it becomes the
 *   current page with the lookup reset. Missing: `Could not find <entity>. Similar: ['t1', ...].` (up to 5
 *   titles from the backend's search); a disambiguation page: the same with `[<entity>]`, as the paper's
 *   re-search prints it. Either way the current page stays as it was (as in the paper).
 * - `lookup[keyword]`: the next sentence of the current page containing `keyword` (case-insensitive) as
 *   `(Result k / n) <sentence>`, then `No more results.`; a different keyword starts again at 1.
 *
 * Both throw (so the model sees `Error: ...`) on empty input, on `lookup` before any page was found,
 * and when the backend fails.
 *
 * @example
 * ```ts
 * const tools = createWikipediaTools({ backend: wikipediaApi() });
 * const result = await runAgent({ model, tools, question: 'Which band did Hayley Williams found?' });
 * ```
 */
export function createWikipediaTools(options: WikipediaToolsOptions): Tool[] {
  const { backend } = options;
  const state: EpisodeState = { page: null, keyword: null, matches: [], cursor: 0 };
  const search: Tool = {
    name: 'search',
    description:
      'search[entity], which searches the exact entity on Wikipedia and returns the first paragraph if it exists. If not, it will return some similar entities to search.',
    inputHint: 'entity',
    effects: 'read',
    maxInputChars: MAX_INPUT_CHARS,
    run: (input, { signal }) => searchStep(backend, state, input.trim(), signal),
  };
  const lookup: Tool = {
    name: 'lookup',
    description:
      'lookup[keyword], which returns the next sentence containing keyword in the current passage.',
    inputHint: 'keyword',
    effects: 'read',
    maxInputChars: MAX_INPUT_CHARS,
    run: (input) => lookupStep(state, input.trim()),
  };
  // Both tools record the shared state, so a durable run that replays either call restores it.
  search.snapshot = lookup.snapshot = episodeSnapshot(state);
  return [search, lookup];
}

/**
 * The tools' state for a durable run's journal: the current page and the lookup position (the matches
 * are found again from the page text on restore). A value that is not such a record restores nothing.
 */
function episodeSnapshot(state: EpisodeState): ToolSnapshot {
  return {
    save: () => ({ page: state.page, keyword: state.keyword, cursor: state.cursor }),
    restore(saved) {
      if (typeof saved !== 'object' || saved === null) return;
      const { page, keyword, cursor } = saved as Partial<Record<'page' | 'keyword' | 'cursor', unknown>>;
      const validPage =
        page === null ||
        (typeof page === 'object' &&
          typeof (page as WikipediaPage).title === 'string' &&
          typeof (page as WikipediaPage).text === 'string');
      if (!validPage || !(keyword === null || typeof keyword === 'string')) return;
      if (!(typeof cursor === 'number' && Number.isInteger(cursor) && cursor >= 0)) return;
      state.page = page as WikipediaPage | null;
      state.keyword = keyword;
      state.matches =
        keyword === null || state.page === null ? [] : lookupSentences(state.page.text, keyword);
      state.cursor = cursor;
    },
  };
}

async function searchStep(
  backend: WikipediaBackend,
  state: EpisodeState,
  entity: string,
  signal: AbortSignal,
): Promise<string> {
  if (entity === '') throw new Error('Empty entity: write a page title, e.g. search[Paramore]');
  let page = await backend.getPage(entity, signal);
  if (page?.disambiguation) {
    // The paper re-searches "[entity]" for a "may refer to:" page, which lands on the result list.
    return notFoundObservation(`[${entity}]`, await backend.similarTitles(entity, signal));
  }
  if (page === null) {
    const similar = await backend.similarTitles(entity, signal);
    const nearMatch = similar.find((title) => sameTitle(title, entity));
    if (nearMatch !== undefined) page = await backend.getPage(nearMatch, signal);
    if (page === null || page.disambiguation) return notFoundObservation(entity, similar);
  }
  state.page = page;
  state.keyword = null;
  state.matches = [];
  state.cursor = 0;
  const observation = pageObservation(page.text);
  return observation === '' ? `The page ${page.title} has no text.` : observation;
}

function lookupStep(state: EpisodeState, keyword: string): string {
  if (keyword === '') throw new Error('Empty keyword: write a word to find, e.g. lookup[founded]');
  if (state.page === null) {
    throw new Error(
      'There is no current page to look up in. Use search[entity] first, then lookup[keyword].',
    );
  }
  if (keyword !== state.keyword) {
    state.keyword = keyword;
    state.matches = lookupSentences(state.page.text, keyword);
    state.cursor = 0;
  }
  const sentence = state.matches[state.cursor];
  if (sentence === undefined) return NO_MORE_RESULTS;
  state.cursor += 1;
  return lookupObservation(state.cursor, state.matches.length, sentence);
}
