/**
 * Reading the protocol label at the start of one line: as the parser reads a model's turn ({@link readLabel}:
 * after spaces and markdown markers, in any case, accent-insensitive, with `:` or `：`, an optional step
 * number), and as a model reads a line ({@link readVisibleLabel}: invisible characters ignored, compatibility
 * forms folded, look-alike letters and colons read as what they imitate). Each looks at a bounded head of the
 * line, reading ASCII through lookup tables.
 *
 * @module
 */
import { LABEL_SETS, type LabelSet, mergeLabels } from './labels.js';
import { visibleHead } from './visible.js';

/** Labels the parser tells apart. */
export type LabelKind = 'thought' | 'action' | 'actionInput' | 'observation' | 'answer' | 'question';

/** A labelled line, or (`finish`) a line that starts with the pseudo-tool call `finish[...]`. */
export interface Item {
  kind: LabelKind | 'finish';
  /** Offset of the start of the line. */
  lineStart: number;
  /** Offset where the value starts: after the colon (and closing emphasis), or at `finish` itself. */
  valueStart: number;
}

/** The labels of one set plus English, as keys made by {@link LabelIndex.key}. */
export interface LabelIndex {
  kinds: ReadonlyMap<string, LabelKind>;
  finish: ReadonlySet<string>;
  observation: readonly string[];
  /**
   * The key a written word is looked up by: {@link normaliseWord} for the parser; for reading a line as a
   * model reads it ({@link readVisibleLabel}), that with look-alike letters made one ({@link lookAlikeKey}).
   */
  key: (word: string) => string;
}

/** Longest prefix (markers + label + colon) looked at on a line; longer headers are prose. */
export const HEADER_LIMIT = 48;
/** Characters a label header may hold. */
export const HEADER_CHARS = /^[\p{L}\p{M}\p{N} \t_*'’-]+$/u;

/** ASCII codes {@link normaliseWord} drops: whitespace, `_`, `*`, `'`, `-` and digits. */
const IGNORED_ASCII = asciiTable(" \t\n\r\v\f_*'-0123456789");
/** ASCII codes a label header may hold ({@link HEADER_CHARS} for ASCII): letters, digits, space, tab, `_*'-`. */
const HEADER_ASCII = asciiTable(" \t_*'-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");

function asciiTable(chars: string): Uint8Array {
  const table = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = 1;
  return table;
}

/** Lowercase, accents removed, spaces/underscores/emphasis/apostrophes/digits removed: `Ação 2` → `acao`. */
export function normaliseWord(word: string): string {
  let out = '';
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c > 127) return normaliseUnicode(word);
    if (c >= 65 && c <= 90) out += String.fromCharCode(c + 32);
    else if (IGNORED_ASCII[c] !== 1) out += word[i];
  }
  return out;
}

/** {@link HEADER_CHARS} (ASCII by table): `text[start, end)` may be a label header. */
export function isHeader(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c > 127) return HEADER_CHARS.test(text.slice(start, end));
    if (HEADER_ASCII[c] !== 1) return false;
  }
  return end > start;
}

function normaliseUnicode(word: string): string {
  return word
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\s_*'’\-\d]/g, '');
}

/** Letters and `_`, as in a tool name (ASCII by code). */
function isWordChar(c: string | undefined): boolean {
  if (c === undefined) return false;
  const code = c.charCodeAt(0);
  if (code < 128) return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
  return /\p{L}/u.test(c);
}

const indexCache = new WeakMap<LabelSet, LabelIndex>();

/** Builds (once per set) the lookup of normalised label words; English is always included. */
export function labelIndex(labels: LabelSet): LabelIndex {
  const cached = indexCache.get(labels);
  if (cached) return cached;
  const merged = mergeLabels(labels);
  const kinds = new Map<string, LabelKind>();
  const add = (kind: LabelKind, words: readonly string[]) => {
    for (const word of words) {
      const key = normaliseWord(word);
      if (key !== '' && !kinds.has(key)) kinds.set(key, kind);
    }
  };
  add('thought', merged.thought);
  add('actionInput', merged.actionInput);
  add('action', merged.action);
  // An observation is never the model's to write, in any language: all built-in spellings cut the text.
  const observation = [...merged.observation, ...Object.values(LABEL_SETS).flatMap((set) => set.observation)];
  add('observation', observation);
  add('answer', merged.answer);
  add('question', merged.question);
  const index: LabelIndex = {
    kinds,
    finish: new Set(merged.finish.map(normaliseWord)),
    observation: observation.map(normaliseWord),
    key: normaliseWord,
  };
  indexCache.set(labels, index);
  return index;
}

/**
 * A normalised word with the Latin letters that look alike made one, as the confusables data reads them
 * (`I` and `l` and `i`: a look-alike of `I` reads as `l`; `m` and `rn`), so that a label matches whatever
 * case its look-alike letters imitate: `ACTꓲON` (Lisu `ꓲ` reads as `l`) is `Action`.
 */
export function lookAlikeKey(word: string): string {
  return normaliseWord(word).replaceAll('rn', 'm').replaceAll('l', 'i');
}

const visibleCache = new WeakMap<LabelIndex, LabelIndex>();

/** `index` keyed by {@link lookAlikeKey}, for reading lines as a model reads them (once per index). */
export function visibleLabelIndex(index: LabelIndex): LabelIndex {
  if (index.key === lookAlikeKey) return index;
  let visible = visibleCache.get(index);
  if (!visible) {
    const fold = (key: string) => key.replaceAll('rn', 'm').replaceAll('l', 'i');
    const kinds = new Map<string, LabelKind>();
    for (const [key, kind] of index.kinds) if (!kinds.has(fold(key))) kinds.set(fold(key), kind);
    visible = {
      kinds,
      finish: new Set([...index.finish].map(fold)),
      observation: index.observation.map(fold),
      key: lookAlikeKey,
    };
    visibleCache.set(index, visible);
  }
  return visible;
}

/** Skips indentation and markdown markers; reports whether emphasis (`*`, `_`) was among them. */
export function skipMarkers(text: string, start: number, end: number): { at: number; emphasis: boolean } {
  let at = start;
  let emphasis = false;
  while (at < end && at - start < HEADER_LIMIT) {
    const c = text[at];
    if (c === '*' || c === '_') emphasis = true;
    else if (c !== ' ' && c !== '\t' && c !== '#' && c !== '-') break;
    at++;
  }
  return { at, emphasis };
}

/** The label on the line `[start, end)`, if any. */
export function readLabel(text: string, start: number, end: number, index: LabelIndex): Item | undefined {
  const { at, emphasis } = skipMarkers(text, start, end);
  if (startsFinishCall(text, at, end, index)) return { kind: 'finish', lineStart: start, valueStart: at };
  const limit = Math.min(end, at + HEADER_LIMIT);
  let colon = at;
  while (colon < limit && text[colon] !== ':' && text[colon] !== '：') colon++;
  if (colon >= limit) return undefined;
  if (!isHeader(text, at, colon)) return undefined;
  const kind = index.kinds.get(index.key(text.slice(at, colon)));
  if (!kind) return undefined;
  let valueStart = colon + 1;
  // `**Action:** x`: the emphasis closes after the colon.
  if (emphasis)
    while (valueStart < end && (text[valueStart] === '*' || text[valueStart] === '_')) valueStart++;
  return { kind, lineStart: start, valueStart };
}

/** Visible characters of a line {@link readVisibleLabel} looks at: enough for markers, a label and its colon. */
const VISIBLE_HEAD = 128;

/** Options for {@link readVisibleLabel}. */
export interface VisibleLabelOptions {
  /**
   * Also read a label behind quote, list, table and code markers (`> `, `1. `, `+ `, `| `, `` ` ``, `(`):
   * for tool output, where quoting too much is harmless. Model turns are read without it, since an answer
   * may quote a transcript (`> Observation: ...`).
   */
  quoted?: boolean;
}

/**
 * The label a reader sees on `line` (one line: no line terminator inside), as a model reads it: invisible
 * and control characters (and terminal escape sequences) ignored, any space character a space, compatibility
 * forms (`Ｏｂｓ`, `𝐎𝐛𝐬`) and look-alike letters (Cyrillic `О`) and colons (`∶`) read as what they imitate.
 * The one test of whether a line poses as a protocol step: tool output is neutralised by it, and a model turn
 * is cut where it says the model wrote an observation. Looks at a bounded head of the line.
 */
export function readVisibleLabel(
  line: string,
  index: LabelIndex,
  options: VisibleLabelOptions = {},
): Item['kind'] | undefined {
  const visible = visibleLabelIndex(index);
  const kind = labelInHead(visibleHead(line, VISIBLE_HEAD), visible, options);
  if (kind !== undefined || !hasEscape(line)) return kind;
  // `\x1b[Observation:` reads to a terminal as a sequence ending in `O`, to a model as the label.
  return labelInHead(visibleHead(line, VISIBLE_HEAD, false), visible, options);
}

function labelInHead(
  head: string,
  index: LabelIndex,
  options: VisibleLabelOptions,
): Item['kind'] | undefined {
  const at = options.quoted ? skipQuoting(head) : 0;
  return readLabel(head, at, head.length, index)?.kind;
}

function hasEscape(line: string): boolean {
  return line.includes('\x1b') || line.includes('\x9b');
}

/** Quote, list, table and code markers, and opening brackets and quotes, that may stand before a label. */
const QUOTING = new Set([...' \t>|`+*#_~-=•◦‣▪●○■□–—·"\'“”‘’«»„([{<']);
/** A list number or letter: `1.`, `12)`, `a.`, `iv)`. */
const LIST_NUMBER = /^(?:\d{1,9}|[a-z]|[ivxlc]{1,6})[.)]/i;

/** Where the text of `head` starts after any run of {@link QUOTING} markers and list numbers. */
function skipQuoting(head: string): number {
  let at = 0;
  while (at < head.length) {
    if (QUOTING.has(head[at]!)) {
      at++;
      continue;
    }
    const number = LIST_NUMBER.exec(head.slice(at, at + 12));
    if (!number) break;
    at += number[0].length;
  }
  return at;
}

/** A keyword argument right after the bracket: `answer="..."`. */
const KEYWORD_ARGUMENT = /^\s*[A-Za-z_][A-Za-z0-9_]*\s*=/;

/**
 * `finish[` or `finish(` (any case) at `at`: the paper's pseudo-tool, written with or without `Action:`; or
 * an answer label called with a keyword argument, `Final Answer(answer="...")`, `final_answer(answer=`.
 */
function startsFinishCall(text: string, at: number, end: number, index: LabelIndex): boolean {
  let j = at;
  // A name of words joined by `_` or single spaces (`finish`, `Final Answer`).
  while (
    j < end &&
    j - at < 24 &&
    (isWordChar(text[j]) || (j > at && text[j] === ' ' && isWordChar(text[j + 1])))
  )
    j++;
  if (j === at) return false;
  let k = j;
  while (k < end && text.charCodeAt(k) === 32) k++;
  // The bracket is checked first: it rules out almost every line without normalising the word.
  const bracket = text.charCodeAt(k);
  if (k >= end || (bracket !== 91 && bracket !== 40)) return false;
  const word = index.key(text.slice(at, j));
  if (index.finish.has(word)) return true;
  return (
    index.kinds.get(word) === 'answer' && KEYWORD_ARGUMENT.test(text.slice(k + 1, Math.min(end, k + 40)))
  );
}

/**
 * True when the line `text[start, end)` reads to a model as an observation label, however disguised
 * (`\u200bObservation:`, Cyrillic `Оbservation:`, `Observation∶`, `\x1b[0mObservation:`).
 */
export function isVisibleObservation(text: string, start: number, end: number, index: LabelIndex): boolean {
  return readVisibleLabel(text.slice(start, end), index) === 'observation';
}
