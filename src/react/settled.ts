/**
 * What of a reply still arriving can be shown: its text up to where a later character could change how the
 * text before it reads. Only the shortest such tail is held back: an unfinished last line that may still
 * become a label (`Obs`, `**Action In`) or a code fence (`` `` ``), the start of a `<think>` or `</think>` tag, a lone `\r`.
 *
 * @module
 */
import type { LabelSet } from './labels.js';
import { labelIndex, mayBecomeLabel } from './scan.js';
import { StreamCut } from './stream-cut.js';
import { lastLineStart, visibleHead } from './visible.js';

const TAGS = ['<think>', '</think>'];
/** A line that may still become a code fence (three backticks or tildes) with its next character. */
const FENCE_START = /^[ \t]*(`{1,2}|~{1,2})$/;

/**
 * Past this many characters an unfinished line can no longer become a label (`readLabel` reads at most 48
 * characters of markers and 48 of label; a fence is three characters): only its end can still be held back.
 * So each call looks at a bounded tail of `text`, and a reply read after every delta stays linear.
 */
const LINE_HEAD = 100;

/**
 * The length of `text` without the tail that may still change meaning as the reply goes on (see the
 * module note). Reading `text.slice(0, settledLength(text, labels))` (`readReply`) gives the part of the
 * turn known so far: a label held back can neither cut the text before it nor end the thought or answer it
 * follows. Looks at no more than the last {@link LINE_HEAD} characters or so.
 */
export function settledLength(text: string, labels: LabelSet): number {
  let end = text.length;
  // A tag cut in two (`<thi`) is at the very end: a tag holds no line break.
  for (let at = Math.max(0, end - TAGS[1]!.length + 1); at < end; at++) {
    if (text.charCodeAt(at) !== 60) continue;
    const tail = text.slice(at).toLowerCase();
    if (TAGS.some((tag) => tag.startsWith(tail) && tag !== tail)) {
      end = at;
      break;
    }
  }
  if (text[end - 1] === '\r') end -= 1;
  if (end === 0) return 0;
  const lineStart = lastLineStart(text, end, LINE_HEAD + 1);
  if (lineStart < 0) return end; // a line this long is settled but for its end
  const line = text.slice(lineStart, end);
  const index = labelIndex(labels);
  // Also a line that may become a label as a model reads it (`\u200bObserv`, Cyrillic `Оbs`): the cut reads
  // observations that way.
  const head = visibleHead(line, 100);
  if (
    FENCE_START.test(line) ||
    mayBecomeLabel(text, lineStart, end, index) ||
    mayBecomeLabel(head, 0, head.length, index)
  )
    return lineStart;
  return end;
}

/** `text` up to {@link settledLength}. */
export function settledText(text: string, labels: LabelSet): string {
  return text.slice(0, settledLength(text, labels));
}

/**
 * What of a streamed reply may be shown, delta by delta: nothing from the line where the model starts
 * writing its own observation (or a new step after its answer: {@link StreamCut}), and nothing of the tail
 * that may still change meaning ({@link settledLength}). What one `push` shows is never taken back.
 */
export class ShownReply {
  readonly #labels: LabelSet;
  readonly #cut: StreamCut;
  #text = '';
  #shown = 0;

  constructor(labels: LabelSet) {
    this.#labels = labels;
    this.#cut = new StreamCut(labels);
  }

  /**
   * Adds a delta of the reply. Returns what may be shown now beyond what earlier calls returned, and
   * whether reading must stop here (the delta reached an invented observation or a new step).
   */
  push(delta: string): { shown: string; cut: boolean } {
    this.#text += delta;
    const at = this.#cut.push(delta);
    const end = at >= 0 ? this.#text.slice(0, at).trimEnd().length : settledLength(this.#text, this.#labels);
    const shown = end > this.#shown ? this.#text.slice(this.#shown, end) : '';
    this.#shown = Math.max(this.#shown, end);
    return { shown, cut: at >= 0 };
  }
}
