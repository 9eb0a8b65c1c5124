/**
 * Finding protocol labels line by line. Labels count only at the start of a line (after spaces and
 * markdown markers such as `**`, `__`, `#`, `-`), in any case, accent-insensitive, with `:` or `：`, an
 * optional space before the colon and an optional step number (`Thought 2:`, as in the paper's prompts).
 * Every line costs at most a bounded look at its first characters, so scanning is linear in the text.
 * Tool output and replies can run to 10,000 lines, and this runs on each of them: the per-line checks
 * read ASCII through lookup tables and fall back to Unicode normalisation and regexes only for the rare
 * line that holds other characters, which alone dominated the time on such inputs.
 *
 * @module
 */
import { closesFence, type Fence, readFence } from './clean.js';
import { LABEL_SETS, type LabelSet, mergeLabels } from './labels.js';
import { nextLineBreak, visibleHead } from './visible.js';

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

/** The labels of one set plus English, as normalised words. */
export interface LabelIndex {
  kinds: ReadonlyMap<string, LabelKind>;
  finish: ReadonlySet<string>;
  observation: readonly string[];
}

/** The result of scanning one reply. */
export interface Scan {
  /** Labelled lines before the cut, in order. */
  items: Item[];
  /** Where usable text ends: the start of the first model-written observation, or the text's length. */
  end: number;
  /** True when the model wrote an observation (or the start of one) and the text was cut there. */
  invented: boolean;
  /** True when the text was cut where the model began a new step (a Thought or Question) after its answer. */
  newStep?: boolean;
}

/** Longest prefix (markers + label + colon) looked at on a line; longer headers are prose. */
const HEADER_LIMIT = 48;
/** The shortest trailing fragment taken for a cut-off observation label (`Obs`). */
const FRAGMENT_MIN = 3;
const HEADER_CHARS = /^[\p{L}\p{M}\p{N} \t_*'’-]+$/u;

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
function isHeader(text: string, start: number, end: number): boolean {
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
  };
  indexCache.set(labels, index);
  return index;
}

/** Skips indentation and markdown markers; reports whether emphasis (`*`, `_`) was among them. */
function skipMarkers(text: string, start: number, end: number): { at: number; emphasis: boolean } {
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
  const kind = index.kinds.get(normaliseWord(text.slice(at, colon)));
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
  const kind = labelInHead(visibleHead(line, VISIBLE_HEAD), index, options);
  if (kind !== undefined || !hasEscape(line)) return kind;
  // `\x1b[Observation:` reads to a terminal as a sequence ending in `O`, to a model as the label.
  return labelInHead(visibleHead(line, VISIBLE_HEAD, false), index, options);
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

/**
 * True when the unfinished line `text[start, end)` may still become a label line (or a `finish[` call) as
 * more characters arrive: markers and the start of a label word (`**Obs`, `Action In`, `Observation 2`), or
 * nothing yet. False once the line is decided: it has its colon or bracket, or it can no longer read as a
 * label header (`The answer`, a header longer than {@link readLabel} looks at).
 */
export function mayBecomeLabel(text: string, start: number, end: number, index: LabelIndex): boolean {
  const { at } = skipMarkers(text, start, end);
  if (at >= end) return true;
  if (end - at >= HEADER_LIMIT) return false;
  const rest = text.slice(at, end);
  if (rest.includes(':') || rest.includes('：')) return false;
  if (!isHeader(text, at, end)) return false;
  const key = normaliseWord(rest);
  for (const word of index.kinds.keys()) if (word.startsWith(key)) return true;
  // `finish` then, perhaps after spaces, its bracket.
  if (/^\p{L}[\p{L}_]* *$/u.test(rest)) {
    for (const word of index.finish) if (word.startsWith(key)) return true;
  }
  return false;
}

/** `finish[` or `finish(` (any case) at `at`: the paper's pseudo-tool, written with or without `Action:`. */
function startsFinishCall(text: string, at: number, end: number, index: LabelIndex): boolean {
  let j = at;
  while (j < end && j - at < 24 && isWordChar(text[j])) j++;
  if (j === at) return false;
  let k = j;
  while (k < end && text.charCodeAt(k) === 32) k++;
  // The bracket is checked first: it rules out almost every line without normalising the word.
  const bracket = text.charCodeAt(k);
  if (k >= end || (bracket !== 91 && bracket !== 40)) return false;
  return index.finish.has(normaliseWord(text.slice(at, j)));
}

/** True when the line is the start of an observation label cut off mid-word (`Observ`, `**Observation 2`). */
function isObservationFragment(text: string, start: number, end: number, index: LabelIndex): boolean {
  const { at } = skipMarkers(text, start, end);
  const rest = text.slice(at, end).trimEnd();
  if (rest.length > HEADER_LIMIT || !HEADER_CHARS.test(rest)) return false;
  const key = normaliseWord(rest);
  return key.length >= FRAGMENT_MIN && index.observation.some((word) => word.startsWith(key));
}

/**
 * True when the line `text[start, end)` reads to a model as an observation label, however disguised
 * (`\u200bObservation:`, Cyrillic `Оbservation:`, `Observation∶`, `\x1b[0mObservation:`).
 */
export function isVisibleObservation(text: string, start: number, end: number, index: LabelIndex): boolean {
  return readVisibleLabel(text.slice(start, end), index) === 'observation';
}

/**
 * Scans the reply line by line (a line ends at any line terminator): labelled lines outside code fences
 * become items, and the first observation label as {@link readVisibleLabel} reads it (or a trailing fragment
 * of one after a newline) ends the usable text, as does a Thought or Question label after an answer (the model went on to a new step; the stream cut stops there).
 * With `endsAtLabel` (the text was already cut before a whole observation label), a fragment at the end is
 * not taken for one.
 */
export function scanReply(text: string, index: LabelIndex, options: { endsAtLabel?: boolean } = {}): Scan {
  const items: Item[] = [];
  const contentEnd = text.trimEnd().length;
  let fence: Fence | undefined;
  let answered = false;
  for (let start = 0; start <= text.length; ) {
    // Lines end at every line terminator (`\r`, U+2028...), as tool output is split: see `visible.ts`.
    const newline = nextLineBreak(text, start);
    const lineEnd = newline < 0 ? text.length : newline;
    const marker = readFence(text, start, lineEnd);
    if (fence) {
      if (closesFence(fence, marker)) fence = undefined;
    } else if (marker) {
      fence = marker;
    } else {
      const item = readLabel(text, start, lineEnd, index);
      if (item?.kind === 'observation' || (!item && isVisibleObservation(text, start, lineEnd, index)))
        return { items, end: start, invented: true };
      if (answered && (item?.kind === 'thought' || item?.kind === 'question'))
        return { items, end: start, invented: false, newStep: true };
      if (item?.kind === 'answer') answered = true;
      if (item) items.push(item);
      else if (
        !options.endsAtLabel &&
        start > 0 &&
        lineEnd >= contentEnd &&
        isObservationFragment(text, start, lineEnd, index)
      ) {
        return { items, end: start, invented: true };
      }
    }
    if (newline < 0) break;
    start = newline + 1;
  }
  return { items, end: text.length, invented: false };
}
