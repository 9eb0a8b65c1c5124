/**
 * Text processing for the search tool: terms (tokenize, stop words, light stemming) and passages
 * (paragraphs, long ones split on sentence boundaries).
 *
 * @module
 */

/**
 * Version of the text processing below (terms and passages). Bump it whenever tokenizing, the stop
 * words, stemming or passage splitting change: indexes saved on disk under an older version are then
 * rebuilt instead of answering with the old terms.
 */
export const TEXT_VERSION = 1;

/** Target passage length in characters; longer paragraphs are split on sentence boundaries. */
export const PASSAGE_CHARS = 500;

// A small English list: function words plus question words that say nothing about the topic.
const STOP_WORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing down during each few for from further had has have ' +
    'having he her here hers him his how i if in into is it its itself just me more most my no nor not ' +
    'now of off on once only or other our ours out over own per same she should so some such than that ' +
    'the their theirs them then there these they this those through to too under until up very was we ' +
    'were what when where which while who whom why will with would you your yours'
  ).split(' '),
);

/** Splits text into lowercase word terms; digit-grouping commas are removed first (`5,000` → `5000`). */
export function tokenizeText(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/(\d),(?=\d{3}(?!\d))/g, '$1')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((term) => term !== '');
}

/**
 * Maps one term to its index form, or `null` to drop it: stop words and single letters are dropped,
 * English plurals are reduced to the singular (`refunds` → `refund`, `policies` → `policy`).
 */
export function processTerm(term: string): string | null {
  if (STOP_WORDS.has(term)) return null;
  if (term.length === 1 && !/\p{N}/u.test(term)) return null;
  return singular(term);
}

function singular(term: string): string {
  if (term.length <= 3 || !term.endsWith('s') || /(?:ss|us|is)$/.test(term)) return term;
  if (term.endsWith('ies') && term.length > 4) return `${term.slice(0, -3)}y`;
  if (/(?:ches|shes|xes|zzes|sses)$/.test(term)) return term.slice(0, -2);
  return term.slice(0, -1);
}

/**
 * Splits a document into passages: paragraphs separated by blank lines, spaces collapsed. Line breaks
 * inside a paragraph are kept, so a line that looks like a protocol label (`Action: ...`) stays at the
 * start of a line, where the loop quotes it as data.
 * A Markdown heading is kept as context in front of each paragraph of its section
 * (`Refunds: Refunds take...`).
 * Paragraphs longer than {@link PASSAGE_CHARS} are split on sentence boundaries (or, for a single very
 * long sentence, between words).
 */
export function splitPassages(text: string): string[] {
  const passages: string[] = [];
  let heading = '';
  for (const block of text.replace(/\r\n?/g, '\n').split(/\n[ \t]*\n/)) {
    const headings: string[] = [];
    const lines: string[] = [];
    for (const line of block.split('\n')) {
      const match = /^\s{0,3}#{1,6}\s+(.*?)[\s#]*$/.exec(line);
      if (match !== null) headings.push(match[1] ?? '');
      else lines.push(line);
    }
    if (headings.length > 0) heading = headings.join(' - ');
    const content = lines
      .map((line) => line.replace(/\s+/g, ' ').trim())
      .filter((line) => line !== '')
      .join('\n');
    if (content === '') continue;
    const prefix = heading === '' ? '' : `${heading}${/[.:!?]$/.test(heading) ? '' : ':'} `;
    for (const chunk of chunkParagraph(content)) passages.push(prefix + chunk);
  }
  if (passages.length === 0 && heading !== '') passages.push(heading); // a file of headings only
  return passages;
}

function chunkParagraph(paragraph: string): string[] {
  if (paragraph.length <= PASSAGE_CHARS) return [paragraph];
  // Each piece remembers whether it ended a line, so chunks keep the paragraph's line breaks.
  const pieces = paragraph.split('\n').flatMap((line) =>
    line
      .split(/(?<=[.!?]) +/)
      .flatMap(splitLongSentence)
      .map((text, i, all) => ({ text, endsLine: i === all.length - 1 })),
  );
  const chunks: string[] = [];
  let current = '';
  let separator = '';
  for (const piece of pieces) {
    if (current !== '' && current.length + 1 + piece.text.length > PASSAGE_CHARS) {
      chunks.push(current);
      current = piece.text;
    } else {
      current = current === '' ? piece.text : `${current}${separator}${piece.text}`;
    }
    separator = piece.endsLine ? '\n' : ' ';
  }
  if (current !== '') chunks.push(current);
  return chunks;
}

function splitLongSentence(sentence: string): string[] {
  if (sentence.length <= PASSAGE_CHARS) return [sentence];
  const parts: string[] = [];
  let rest = sentence;
  while (rest.length > PASSAGE_CHARS) {
    const space = rest.lastIndexOf(' ', PASSAGE_CHARS);
    const cut = space > PASSAGE_CHARS / 2 ? space : PASSAGE_CHARS;
    parts.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest !== '') parts.push(rest);
  return parts;
}
