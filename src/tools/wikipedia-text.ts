/**
 * Text handling of the ReAct paper's Wikipedia environment: sentence splitting and the exact observation
 * strings, so that observations look like the ones in the paper's prompts and recorded trajectories.
 *
 * Source: `wikienv.py` in ysymyth/ReAct (`get_page_obs`, `construct_lookup_list`, `search_step`, `step`).
 *
 * @module
 */

/** Sentences a `search` observation shows from the top of a page (the paper's `get_page_obs`). */
export const PAGE_OBSERVATION_SENTENCES = 5;

/** Most similar titles a `Could not find` observation lists (the paper's `result_titles[:5]`). */
export const MAX_SIMILAR_TITLES = 5;

/** The `lookup` observation after the last matching sentence (the paper's, without its trailing newline). */
export const NO_MORE_RESULTS = 'No more results.';

/**
 * Splits page text into sentences the way the paper does: paragraphs are the non-blank lines (trimmed),
 * each paragraph is split on `'. '`, every piece is trimmed, and the period the split removed is put back.
 *
 * This is deliberately naive, to match the paper: abbreviations such as `U.S. Army` split a sentence in
 * two. One deliberate difference: the paper appends `.` to every piece, so the last sentence of each
 * paragraph ends with `..` (e.g. `Grade II* listed building..` in its recorded runs); here a paragraph's
 * last piece is kept as written.
 *
 * @example
 * ```ts
 * pageSentences('Paramore is a band. It formed in 2004.\nIt has four albums');
 * // ['Paramore is a band.', 'It formed in 2004.', 'It has four albums']
 * ```
 */
export function pageSentences(text: string): string[] {
  const sentences: string[] = [];
  for (const line of text.split('\n')) {
    const pieces = line.trim().split('. ');
    pieces.forEach((piece, i) => {
      const sentence = piece.trim();
      if (sentence !== '') sentences.push(i < pieces.length - 1 ? `${sentence}.` : sentence);
    });
  }
  return sentences;
}

/** The `search` observation for a found page: its first 5 sentences joined with spaces (`get_page_obs`). */
export function pageObservation(text: string): string {
  return pageSentences(text).slice(0, PAGE_OBSERVATION_SENTENCES).join(' ');
}

/**
 * The sentences of `text` that contain `keyword`, compared case-insensitively (`construct_lookup_list`).
 */
export function lookupSentences(text: string, keyword: string): string[] {
  const needle = keyword.toLowerCase();
  return pageSentences(text).filter((sentence) => sentence.toLowerCase().includes(needle));
}

/** One `lookup` result: `(Result k / n) <sentence>`, `k` counting from 1. */
export function lookupObservation(k: number, n: number, sentence: string): string {
  return `(Result ${k} / ${n}) ${sentence}`;
}

/**
 * The `search` observation for a missing page: `Could not find <entity>. Similar: ['t1', 't2'].`, with the
 * titles written as a Python list (at most 5), exactly as the paper's f-string prints it.
 *
 * @example
 * ```ts
 * notFoundObservation('The Beach', ['The Beach Boys', "Beach (Ice-T's)"]);
 * // `Could not find The Beach. Similar: ['The Beach Boys', "Beach (Ice-T's)"].`
 * ```
 */
export function notFoundObservation(entity: string, similar: readonly string[]): string {
  const list = similar.slice(0, MAX_SIMILAR_TITLES).map(pythonStringRepr).join(', ');
  return `Could not find ${entity}. Similar: [${list}].`;
}

/** Python's `repr()` of a string: single quotes unless the string has `'` and no `"`. */
function pythonStringRepr(value: string): string {
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  let out = '';
  for (const char of value) {
    if (char === '\\' || char === quote) out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\t') out += '\\t';
    else if (char === '\r') out += '\\r';
    else out += char;
  }
  return `${quote}${out}${quote}`;
}

/**
 * Compares page titles the way a reader does: case-insensitive, `_` the same as a space, runs of spaces
 * collapsed, ends trimmed.
 */
export function sameTitle(a: string, b: string): boolean {
  return titleKey(a) === titleKey(b);
}

/** The key {@link sameTitle} compares. */
export function titleKey(title: string): string {
  return title.replaceAll('_', ' ').replace(/\s+/g, ' ').trim().toLowerCase();
}
