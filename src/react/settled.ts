/**
 * What of a reply still arriving can be shown ({@link ShownReply}): its text up to where a later character
 * could change how the text before it reads, and never the start of an observation the model writes itself.
 * Complete lines are settled; the growing last line is shown once it can no longer become a label (`Obs`,
 * `**Action In`) or a code fence, and is held back while it may; the start of a `<think>` or `</think>` tag
 * and half of a character split between chunks are held until the next chunk.
 *
 * @module
 */
import type { LabelSet } from './labels.js';
import { type LabelIndex, labelIndex, mayBecomeLabel, readVisibleLabel, visibleLabelIndex } from './scan.js';
import { StreamCut } from './stream-cut.js';
import { nextLineBreak, visibleHead } from './visible.js';

const TAGS = ['<think>', '</think>'];
/** A line that may still become a code fence (three backticks or tildes) with its next character. */
const FENCE_START = /^[ \t]*(`{1,2}|~{1,2})$/;
/** How many visible characters of a line decide whether it is a label (`readLabel` reads fewer). */
const LINE_HEAD = 100;
/**
 * How much of a line that is still undecided is looked at. A line is undecided only while what it shows is
 * the start of a label, or padding a model could hide one behind (spaces, zero-width or other invisible
 * characters); past this, it is held back until it ends, when the cut reads it whole. So each chunk costs
 * a bounded amount of work, and reading a reply chunk by chunk stays linear.
 */
const UNDECIDED_LIMIT = 2_000;

/**
 * What of a streamed reply may be shown, chunk by chunk: nothing from the line where the model starts
 * writing its own observation (or a new step after its answer: {@link StreamCut}), however the line is
 * disguised or padded, and nothing of a tail that may still change meaning. What one `push` shows is
 * never taken back, and everything it shows is text the reply holds, in order.
 */
export class ShownReply {
  readonly #index: LabelIndex;
  readonly #cut: StreamCut;
  /** Received and not shown yet: held back from the current line (or the start of a held line). */
  #unshown = '';
  /** Where {@link #unshown} starts in the reply. */
  #unshownAt = 0;
  /** Characters received so far. */
  #received = 0;
  /** The current line's first characters (at most {@link UNDECIDED_LIMIT}), to decide it by. */
  #head = '';
  /** True once the current line can no longer become a label: it is shown as it grows. */
  #lineShown = false;
  #over = false;

  constructor(labels: LabelSet) {
    this.#index = labelIndex(labels);
    this.#cut = new StreamCut(labels);
  }

  /**
   * Adds a chunk of the reply. Returns what may be shown now beyond what earlier calls returned, and
   * whether reading must stop here (the chunk reached an invented observation or a new step).
   */
  push(chunk: string): { shown: string; cut: boolean } {
    if (this.#over) return { shown: '', cut: true };
    const at = this.#cut.push(chunk);
    const start = this.#received;
    this.#received += chunk.length;
    if (at >= 0) {
      this.#over = true;
      const before = `${this.#unshown}${chunk}`.slice(0, Math.max(0, at - this.#unshownAt));
      return { shown: before.trimEnd(), cut: true };
    }
    let shown = '';
    let from = 0;
    // Every line that ends in this chunk is complete: settled, since the cut did not stop at it.
    for (let end = nextLineBreak(chunk, from); end >= 0; end = nextLineBreak(chunk, from)) {
      shown += this.#unshown + chunk.slice(from, end + 1);
      this.#unshown = '';
      this.#unshownAt = start + end + 1;
      this.#head = '';
      this.#lineShown = false;
      from = end + 1;
    }
    const rest = from === 0 ? chunk : chunk.slice(from);
    this.#unshown += rest;
    if (!this.#lineShown && this.#head.length < UNDECIDED_LIMIT) {
      this.#head += rest.slice(0, UNDECIDED_LIMIT - this.#head.length);
      this.#lineShown = !mayStillCut(this.#head, this.#index, this.#cut.answered);
    }
    if (this.#lineShown) {
      const ready = this.#unshown.length - heldTail(this.#unshown);
      shown += this.#unshown.slice(0, ready);
      this.#unshown = this.#unshown.slice(ready);
      this.#unshownAt += ready;
    }
    return { shown, cut: false };
  }
}

/**
 * True while the start of a line (`head`) may still turn out to be, or already is, a label the cut stops
 * at, or a code fence: read raw and as a model reads it (`visibleHead`: zero-width characters, look-alike
 * letters and padding do not hide a label).
 */
function mayStillCut(head: string, index: LabelIndex, answered: boolean): boolean {
  // Half of a character (a chunk split a surrogate pair) is read with the next chunk.
  const line = /[\ud800-\udbff]$/.test(head) ? head.slice(0, -1) : head;
  if (FENCE_START.test(line)) return true;
  const visible = visibleHead(line, LINE_HEAD);
  const lookAlike = visibleLabelIndex(index);
  if (mayBecomeLabel(line, 0, line.length, index) || mayBecomeLabel(visible, 0, visible.length, lookAlike))
    return true;
  const kind = readVisibleLabel(line, index);
  return kind === 'observation' || (answered && (kind === 'thought' || kind === 'question'));
}

/** How many characters at the end of `text` to hold back: the start of a tag, or half of a character. */
function heldTail(text: string): number {
  const n = text.length;
  const last = text.charCodeAt(n - 1);
  if (last >= 0xd800 && last <= 0xdbff) return 1;
  for (let at = Math.max(0, n - TAGS[1]!.length + 1); at < n; at++) {
    if (text.charCodeAt(at) !== 60) continue;
    const tail = text.slice(at).toLowerCase();
    if (TAGS.some((tag) => tag.startsWith(tail) && tag !== tail)) return n - at;
  }
  return 0;
}
