/**
 * Deciding, while a reply streams in, when to stop reading: at the first observation the model writes
 * itself, or when it starts a new step after its answer. Each line is looked at once, so a long reply
 * costs linear time however small its chunks.
 *
 * @module
 */
import { closesFence, type Fence, readFence } from './clean.js';
import type { LabelSet } from './labels.js';
import { type LabelIndex, labelIndex, readLabel } from './scan.js';

/** Longest unfinished line still checked for a label (markers, label, number and colon fit in it). */
const PARTIAL_LINE_LIMIT = 64;

/** Watches a streamed reply; {@link StreamCut.push} says where to stop. */
export class StreamCut {
  readonly #index: LabelIndex;
  /** The current, unfinished line, and where it starts in the whole reply. */
  #partial = '';
  #lineOffset = 0;
  #sawContent = false;
  #fence: Fence | undefined;
  #inThink = false;
  #answered = false;

  constructor(labels: LabelSet) {
    this.#index = labelIndex(labels);
  }

  /**
   * Adds a chunk. Returns the offset (in the whole reply) of the line where reading should stop, or -1 to
   * keep reading. Only the new chunk is searched for line breaks, so the cost is linear in the reply.
   */
  push(chunk: string): number {
    let from = 0;
    let newline = chunk.indexOf('\n');
    while (newline >= 0) {
      this.#partial += chunk.slice(from, newline);
      if (this.#line(this.#partial, true)) return this.#lineOffset;
      this.#lineOffset += this.#partial.length + 1;
      this.#partial = '';
      from = newline + 1;
      newline = chunk.indexOf('\n', from);
    }
    this.#partial += chunk.slice(from);
    // The growing last line can only become a label within its first few characters (the colon must come
    // early), so it is looked at only while short: a long line costs nothing per chunk.
    if (this.#partial.length <= PARTIAL_LINE_LIMIT && this.#line(this.#partial, false))
      return this.#lineOffset;
    return -1;
  }

  /** True when reading should stop at this line; `complete` is false for the still growing last line. */
  #line(line: string, complete: boolean): boolean {
    if (this.#inThink || line.includes('<think>')) {
      if (complete) this.#inThink = line.lastIndexOf('<think>') > line.lastIndexOf('</think>');
      return false;
    }
    if (!line.trim()) return false;
    const fence = readFence(line, 0, line.length);
    if (this.#fence) {
      if (complete && closesFence(this.#fence, fence)) this.#fence = undefined;
      return false;
    }
    if (fence) {
      // A fence on the first line wraps the whole reply, and labels inside it count.
      if (complete && this.#sawContent) this.#fence = fence;
      if (complete) this.#sawContent = true;
      return false;
    }
    const kind = readLabel(line, 0, line.length, this.#index)?.kind;
    if (kind === 'observation') return true;
    if (this.#answered && (kind === 'thought' || kind === 'action' || kind === 'question')) return true;
    if (complete) {
      this.#sawContent = true;
      if (kind === 'answer') this.#answered = true;
    }
    return false;
  }
}
