/**
 * Deciding, while a reply streams in, when to stop reading: at the first observation the model writes
 * itself, or when it starts a new step (a Thought or a Question) after its answer. The decision depends
 * only on the text, never on how it was split into chunks: {@link cutReply} on the whole reply gives the
 * same cut as {@link StreamCut} fed any chunking of it (a property test checks this).
 *
 * `<think>` blocks are followed character by character, tags split over chunks included: a block ends at
 * its closing tag on any line, and labels inside a block never cut. What is outside the blocks is read line
 * by line, as `scanReply` reads the cleaned reply, so each character is looked at a bounded number of times.
 *
 * @module
 */
import { closesFence, type Fence, readFence } from './clean.js';
import type { LabelSet } from './labels.js';
import { isVisibleObservation, type LabelIndex, labelIndex, readLabel } from './scan.js';
import { nextLineBreak } from './visible.js';

/**
 * How much of an unfinished line is checked for a label. `readLabel` looks at no more than 48 characters of
 * markers and 48 of label, but a model reads past invisible padding (spaces, zero-width characters, escape
 * sequences) that a line can start with: so the start is read as a model reads it (`isVisibleObservation`)
 * up to this many characters, and reading stops at a padded label as soon as it is written, not at the end
 * of its line. Bounded, so each chunk costs at most this much.
 */
const HEAD_LIMIT = 2_000;
const OPEN = '<think>';
const CLOSE = '</think>';

/** Where and why reading stops. */
export interface ReplyCut {
  /** Offset in the reply of the start of the line where reading stops. */
  at: number;
  /** `observation`: the model began writing an observation; `new-step`: a new step after its answer. */
  reason: 'observation' | 'new-step';
}

/** Watches a streamed reply; {@link StreamCut.push} says where to stop. */
export class StreamCut {
  readonly #index: LabelIndex;
  /** The current, unfinished line outside think blocks, and where it starts in the whole reply. */
  #partial = '';
  /** True once the unfinished line's first {@link HEAD_LIMIT} characters were checked. */
  #headChecked = false;
  #lineOffset = 0;
  /** Characters pushed so far. */
  #length = 0;
  /** The end of the last chunk when it may be the start of a tag (`<thi`), kept until the next chunk. */
  #pending = '';
  #inThink = false;
  #sawTag = false;
  #sawContent = false;
  /** A fence opened on the first line, which may wrap the whole reply (labels inside it count). */
  #wrapper: Fence | undefined;
  #fence: Fence | undefined;
  #answered = false;
  /** A first `</think>` without an opener was read on the current line: restart when the line ends. */
  #restartAtLineEnd = false;
  #cut: ReplyCut | undefined;

  constructor(labels: LabelSet) {
    this.#index = labelIndex(labels);
  }

  /** The cut, once one was found. */
  get cut(): ReplyCut | undefined {
    return this.#cut;
  }

  /** True once the reply gave its answer: a Thought or a Question after it starts a new step. */
  get answered(): boolean {
    return this.#answered;
  }

  /** True while the text read so far ends inside a `<think>` block. */
  get inThink(): boolean {
    return this.#inThink;
  }

  /**
   * Adds a chunk. Returns the offset (in the whole reply) of the line where reading should stop, or -1 to
   * keep reading. After a cut, every later call returns the same offset.
   */
  push(chunk: string): number {
    if (this.#cut) return this.#cut.at;
    const text = this.#pending + chunk;
    const base = this.#length - this.#pending.length;
    this.#length += chunk.length;
    this.#pending = '';
    if (this.#read(text, base)) return this.#cut!.at;
    // The growing last line can only become a label within its first characters, so only they are looked
    // at, and only until they are all there: a long line costs nothing per chunk.
    if (!this.#headChecked) {
      this.#headChecked = this.#partial.length >= HEAD_LIMIT;
      if (this.#line(this.#partial.slice(0, HEAD_LIMIT), false)) return this.#cut!.at;
    }
    return -1;
  }

  /** Reads `text` (starting at offset `base` of the reply); true when reading must stop. */
  #read(text: string, base: number): boolean {
    let at = 0;
    while (at < text.length) {
      if (this.#inThink) {
        const close = indexOfTag(text, CLOSE, at);
        if (close < 0) {
          this.#hold(text, Math.max(at, text.length - CLOSE.length + 1), CLOSE);
          return false;
        }
        this.#inThink = false;
        at = close + CLOSE.length;
        continue;
      }
      const lt = text.indexOf('<', at);
      if (this.#outside(text, at, lt < 0 ? text.length : lt, base)) return true;
      if (lt < 0) return false;
      const tag = text.slice(lt, lt + CLOSE.length).toLowerCase();
      if (tag.startsWith(OPEN)) {
        this.#inThink = true;
        this.#sawTag = true;
        at = lt + OPEN.length;
      } else if (tag === CLOSE) {
        // A first `</think>` without an opener: the chat template opened the block, so all before it was
        // reasoning and the reply starts again here, as `cleanReply` reads it.
        if (!this.#sawTag) this.#restartAtLineEnd = true;
        this.#sawTag = true;
        at = lt + CLOSE.length;
      } else if (lt + tag.length === text.length && (OPEN.startsWith(tag) || CLOSE.startsWith(tag))) {
        this.#pending = text.slice(lt);
        return false;
      } else {
        if (this.#outside(text, lt, lt + 1, base)) return true;
        at = lt + 1;
      }
    }
    return false;
  }

  /** Inside a block: keeps the end of `text` from `from` when it may be the start of `tag`. */
  #hold(text: string, from: number, tag: string): void {
    for (let at = from; at < text.length; at++) {
      if (tag.startsWith(text.slice(at).toLowerCase())) {
        this.#pending = text.slice(at);
        return;
      }
    }
  }

  /**
   * Forgets what came before: it was reasoning. Done when the line holding the tag ends, so that line is
   * judged the same way whether its start was read while streaming or the whole reply arrived at once.
   */
  #restart(): void {
    this.#restartAtLineEnd = false;
    this.#sawContent = false;
    this.#wrapper = undefined;
    this.#fence = undefined;
    this.#answered = false;
  }

  /** Reads `text[from, to)`, which is outside any block; true when reading must stop. */
  #outside(text: string, from: number, to: number, base: number): boolean {
    let start = from;
    // Every line terminator ends a line, as `scanReply` splits the whole reply.
    let newline = nextLineBreak(text, start, to);
    while (newline >= 0) {
      this.#partial += text.slice(start, newline);
      if (this.#line(this.#partial, true)) return true;
      if (this.#restartAtLineEnd) this.#restart();
      this.#lineOffset = base + newline + 1;
      this.#partial = '';
      this.#headChecked = false;
      start = newline + 1;
      newline = nextLineBreak(text, start, to);
    }
    this.#partial += text.slice(start, to);
    return false;
  }

  /** True when reading should stop at this line; `complete` is false for the still growing last line. */
  #line(line: string, complete: boolean): boolean {
    if (!line.trim()) return false;
    const fence = readFence(line, 0, line.length);
    if (this.#fence) {
      if (complete && closesFence(this.#fence, fence)) this.#fence = undefined;
      return false;
    }
    if (this.#wrapper && closesFence(this.#wrapper, fence)) {
      // The first line's fence closed: what follows is outside it.
      if (complete) this.#wrapper = undefined;
      return false;
    }
    if (fence) {
      if (complete && this.#sawContent) this.#fence = fence;
      // A fence on the first line may wrap the whole reply, and labels inside it count.
      else if (complete) this.#wrapper = fence;
      if (complete) this.#sawContent = true;
      return false;
    }
    const kind = readLabel(line, 0, line.length, this.#index)?.kind;
    if (kind === 'observation' || (!kind && isVisibleObservation(line, 0, line.length, this.#index)))
      return this.#stop('observation');
    if (this.#answered && (kind === 'thought' || kind === 'question')) return this.#stop('new-step');
    if (complete) {
      this.#sawContent = true;
      if (kind === 'answer') this.#answered = true;
    }
    return false;
  }

  #stop(reason: ReplyCut['reason']): true {
    this.#cut = { at: this.#lineOffset, reason };
    return true;
  }
}

/** `tag` (lower case) in `text` from `from`, in any case, or -1. */
function indexOfTag(text: string, tag: string, from: number): number {
  for (let at = text.indexOf('<', from); at >= 0; at = text.indexOf('<', at + 1)) {
    if (text.slice(at, at + tag.length).toLowerCase() === tag) return at;
  }
  return -1;
}

/**
 * Where reading a whole reply stops, by the rules {@link StreamCut} applies while streaming, or undefined
 * when it runs to the end. Used for replies that were not streamed, so both kinds are read the same way.
 */
export function cutReply(text: string, labels: LabelSet): ReplyCut | undefined {
  const cut = new StreamCut(labels);
  cut.push(text);
  return cut.cut;
}
