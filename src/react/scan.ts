/**
 * Finding protocol labels line by line. Labels count only at the start of a line (after spaces and
 * markdown markers such as `**`, `__`, `#`, `-`), in any case, accent-insensitive, with `:` or `：`, an
 * optional space before the colon and an optional step number (`Thought 2:`, as in the paper's prompts).
 * Every line costs at most a bounded look at its first characters, so scanning is linear in the text.
 * Tool output and replies can run to 10,000 lines, and this runs on each of them: the per-line checks
 * read ASCII through lookup tables and fall back to Unicode normalisation and regexes only for the rare
 * line that holds other characters, which alone dominated the time on such inputs. Reading one line's label
 * is `label-line.ts`; this file walks the lines of a reply.
 *
 * @module
 */
import { closesFence, type Fence, readFence } from './clean.js';
import {
  HEADER_CHARS,
  HEADER_LIMIT,
  type Item,
  isHeader,
  isVisibleObservation,
  type LabelIndex,
  readLabel,
  skipMarkers,
} from './label-line.js';
import { nextLineBreak } from './visible.js';

export {
  type Item,
  isVisibleObservation,
  type LabelIndex,
  type LabelKind,
  labelIndex,
  lookAlikeKey,
  normaliseWord,
  readLabel,
  readVisibleLabel,
  type VisibleLabelOptions,
  visibleLabelIndex,
} from './label-line.js';

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

/** The shortest trailing fragment taken for a cut-off observation label (`Obs`). */
const FRAGMENT_MIN = 3;

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
  const key = index.key(rest);
  for (const word of index.kinds.keys()) if (word.startsWith(key)) return true;
  // `finish` then, perhaps after spaces, its bracket.
  if (/^\p{L}[\p{L}_]* *$/u.test(rest)) {
    for (const word of index.finish) if (word.startsWith(key)) return true;
  }
  return false;
}

/** True when the line is the start of an observation label cut off mid-word (`Observ`, `**Observation 2`). */
function isObservationFragment(text: string, start: number, end: number, index: LabelIndex): boolean {
  const { at } = skipMarkers(text, start, end);
  const rest = text.slice(at, end).trimEnd();
  if (rest.length > HEADER_LIMIT || !HEADER_CHARS.test(rest)) return false;
  const key = index.key(rest);
  return key.length >= FRAGMENT_MIN && index.observation.some((word) => word.startsWith(key));
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
