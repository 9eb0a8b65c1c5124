/**
 * Printing a model turn while it streams: the reasoning (dimmed) and the thought appear as their tokens
 * arrive; the action or answer line follows when the turn is complete, as it is printed without streaming.
 * The reply is read as the loop reads it (`readReply`: the stream cut, then the parser), so nothing after an
 * invented observation is ever printed, and a line that may still become a label is held back until it is
 * known not to be one.
 *
 * @module
 */
import pc from 'picocolors';
import type { LabelSet } from '../react/labels.js';
import { readReply } from '../react/reply.js';
import { safeText } from './safe-text.js';

/** A line that may still become a label: only header characters so far, no colon, not too long. */
const MAYBE_LABEL = /^[\p{L}\p{M}\p{N} \t_*'’#-]{0,96}$/u;
/** The end of a text that may be the start of a `<think>` or `</think>` tag. */
const PARTIAL_TAG = /<\/?t?h?i?n?k?$/i;

/** What is printed of one streamed turn, and what may be printed now. */
export class LiveTurn {
  #text = '';
  #providerReasoning = '';
  #reasoningShown = '';
  #thoughtShown = '';
  /** Something printed turned out not to be part of the turn (rare): the whole turn is printed again. */
  #diverged = false;
  readonly #labels: LabelSet;
  readonly #thoughtLabel: string;
  readonly #showReasoning: boolean;
  readonly #write: (text: string) => void;

  constructor(options: {
    labels: LabelSet;
    thoughtLabel: string;
    showReasoning: boolean;
    write: (text: string) => void;
  }) {
    this.#labels = options.labels;
    this.#thoughtLabel = options.thoughtLabel;
    this.#showReasoning = options.showReasoning;
    this.#write = options.write;
  }

  /** True once anything of the turn was printed. */
  get started(): boolean {
    return this.#reasoningShown !== '' || this.#thoughtShown !== '';
  }

  /** True when the printed text turned out wrong and the complete turn must be printed on its own. */
  get diverged(): boolean {
    return this.#diverged;
  }

  /** A piece of the provider's separate reasoning. */
  reasoning(delta: string): void {
    this.#providerReasoning += delta;
    this.#show();
  }

  /** A piece of the turn's text. */
  text(delta: string): void {
    this.#text += delta;
    this.#show();
  }

  /** Ends the printed reasoning and thought lines; returns whether the thought line was printed. */
  finish(thought: string | undefined): boolean {
    if (!this.#diverged && thought !== undefined && this.#thoughtShown !== '') {
      this.#grow('thought', thought);
    }
    const printedThought = this.#thoughtShown !== '' && !this.#diverged;
    if (this.#reasoningShown !== '' || this.#thoughtShown !== '') this.#write('\n');
    return printedThought;
  }

  #show(): void {
    if (this.#diverged) return;
    const read = readReply(this.#text, { labels: this.#labels });
    if (this.#showReasoning && this.#thoughtShown === '') {
      const reasoning = [this.#providerReasoning.trim(), read.reasoning ?? ''].filter(Boolean).join('\n\n');
      this.#grow('reasoning', withoutPartialTag(reasoning));
    }
    const thought = read.turn.thought;
    if (thought !== undefined) this.#grow('thought', printable(thought));
  }

  /** Prints what `value` adds to what was printed of `part`. */
  #grow(part: 'reasoning' | 'thought', value: string): void {
    const shown = part === 'reasoning' ? this.#reasoningShown : this.#thoughtShown;
    if (value === shown || value === '') return;
    if (!value.startsWith(shown)) {
      this.#diverged = true;
      this.#write('\n');
      return;
    }
    let out = safeText(value.slice(shown.length));
    if (shown === '') {
      if (part === 'thought' && this.#reasoningShown !== '') this.#write('\n');
      out = part === 'thought' ? `${this.#thoughtLabel}: ${out}` : out;
    }
    this.#write(pc.dim(out));
    if (part === 'reasoning') this.#reasoningShown = value;
    else this.#thoughtShown = value;
  }
}

/** The thought without its last line while that line may still become a label, nor a partial tag. */
function printable(thought: string): string {
  const newline = thought.lastIndexOf('\n');
  const last = thought.slice(newline + 1);
  const kept = newline >= 0 && MAYBE_LABEL.test(last) ? thought.slice(0, newline).trimEnd() : thought;
  return withoutPartialTag(kept);
}

function withoutPartialTag(text: string): string {
  return text.replace(PARTIAL_TAG, '').trimEnd();
}
