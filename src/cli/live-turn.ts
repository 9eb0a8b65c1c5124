/**
 * Printing a model turn while it streams: the reasoning (dimmed), the thought, then the action or answer
 * line appear as their tokens arrive, and once the turn is complete the screen holds what the whole turn
 * prints without streaming (`turnParts`). It is given what the loop says may be shown of the reply
 * (`model-delta`'s `shown`: nothing after an invented observation, and an unfinished line that may still
 * become a label held back until it is known not to be one), and reads it as the loop reads a turn
 * (`readPartialTurn`, shared with the UI message stream), only to print it.
 *
 * @module
 */
import type { LabelSet } from '../react/labels.js';
import { readPartialTurn } from '../react/partial-turn.js';
import { type PrintLabels, partialTurnParts, reasoningPart, type TurnPart } from './turn-parts.js';

/** How a streamed turn is read and printed. */
export interface LiveTurnOptions {
  /** The labels the model writes with (for reading). */
  labels: LabelSet;
  /** The labels the turn is printed with. */
  printLabels: PrintLabels;
  /** The run's tool names, so tool names read as the loop reads them. */
  tools: readonly string[];
  /** Print the reasoning. */
  showReasoning: boolean;
  /**
   * Native tool calling: the text is the thought before a tool call or the answer, which only the complete
   * turn tells, so only the reasoning streams. @default false
   */
  native?: boolean;
  write: (text: string) => void;
}

/** What is printed of one streamed turn, and what may be printed now. */
export class LiveTurn {
  #text = '';
  #providerReasoning = '';
  /** The parts printed so far; the last one is still open (no newline after it yet). */
  readonly #printed: TurnPart[] = [];
  readonly #options: LiveTurnOptions;

  constructor(options: LiveTurnOptions) {
    this.#options = options;
  }

  /** True once anything of the turn was printed. */
  get started(): boolean {
    return this.#printed.length > 0;
  }

  /** A piece of the provider's separate reasoning. */
  reasoning(delta: string): void {
    this.#providerReasoning += delta;
    this.#show(this.#partialParts());
  }

  /** A piece of the turn's text that may be shown (`model-delta`'s `shown`). */
  text(delta: string): void {
    this.#text += delta;
    this.#show(this.#partialParts());
  }

  /**
   * Ends the turn with its complete parts: prints what they add to what is on screen. In the rare case where
   * the complete turn reads differently from what was printed of it, the whole turn is printed again below.
   */
  finish(parts: readonly TurnPart[]): void {
    const write = this.#options.write;
    if (this.#printed.length > 0 && extends_(parts, this.#printed)) {
      this.#show(parts);
      write('\n');
      return;
    }
    if (this.#printed.length > 0) write('\n');
    for (const part of parts) write(`${part.style(part.text)}\n`);
  }

  /** Ends what was printed of a turn that will not complete (the model failed; another one takes over). */
  abandon(): void {
    if (this.#printed.length > 0) this.#options.write('\n');
    this.#printed.length = 0;
  }

  /** The parts known from what has arrived. */
  #partialParts(): TurnPart[] {
    const { labels, printLabels, tools, showReasoning, native } = this.#options;
    if (native) {
      const provider = this.#providerReasoning.trim();
      return showReasoning && provider ? [reasoningPart(provider)] : [];
    }
    const read = readPartialTurn(this.#text, this.#providerReasoning, { labels, tools });
    if (read.turn === undefined)
      return showReasoning && read.reasoning ? [reasoningPart(read.reasoning)] : [];
    return partialTurnParts(
      read.turn,
      showReasoning ? read.reasoning : undefined,
      printLabels,
      read.inputSettled,
    );
  }

  /**
   * Prints what `parts` add to the screen: the rest of the open part, then each new part on its own line.
   * Parts that do not extend what is printed are not printed (yet): the turn may read right again as more
   * arrives, and `finish` settles it.
   */
  #show(parts: readonly TurnPart[]): void {
    if (!extends_(parts, this.#printed)) return;
    const write = this.#options.write;
    const open = this.#printed.length - 1;
    const last = this.#printed[open];
    const grown = parts[open];
    if (last && grown && grown.text.length > last.text.length) {
      write(grown.style(grown.text.slice(last.text.length)));
      this.#printed[open] = grown;
    }
    // A later part closes the ones before it: they are complete.
    for (const part of parts.slice(this.#printed.length)) {
      if (this.#printed.length > 0) write('\n');
      write(part.style(part.text));
      this.#printed.push(part);
    }
  }
}

/**
 * True when `parts` read as a continuation of `printed`: the same kinds in order, the closed parts the
 * same, the open (last) part grown or the same.
 */
function extends_(parts: readonly TurnPart[], printed: readonly TurnPart[]): boolean {
  if (parts.length < printed.length) return false;
  return printed.every((shown, i) => {
    const part = parts[i]!;
    if (part.kind !== shown.kind) return false;
    return i === printed.length - 1 ? part.text.startsWith(shown.text) : part.text === shown.text;
  });
}
