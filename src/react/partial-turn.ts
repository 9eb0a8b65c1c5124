/**
 * Reading a model turn while it streams, for front ends that show it as it arrives (the CLI's `LiveTurn`,
 * the UI message stream): what the reasoning, the thought and the action or answer are so far. It reads
 * what the loop says may be shown of the reply (`model-delta`'s `shown`: nothing after an invented
 * observation, and an unfinished line that may still become a label held back), as the loop reads a whole
 * turn (`readReply`). Only for showing: the loop acts on the complete turn.
 *
 * @module
 */
import type { LabelSet } from './labels.js';
import { readReply } from './reply.js';
import { readThinking } from './think.js';
import type { Turn } from './turn.js';

/** What is known of a turn still arriving. */
export interface PartialTurn {
  /**
   * The reasoning so far: the provider's (trimmed), then the reply's `<think>` blocks, separated by a blank
   * line, as `Step.reasoning` joins them; `''` when there is none.
   */
  reasoning: string;
  /**
   * The turn read from what arrived, once anything outside `<think>` blocks did (until then a step read
   * from inside a block may still be followed by the real one, so only the reasoning is known). Its last
   * part may still grow; an action's closing bracket, a format problem and an invented observation are
   * known only from the complete turn.
   */
  turn?: Turn;
  /**
   * For an action: true when its input read so far can only grow (see {@link readPartialTurn}); an input
   * that is not may still lose its quotes. Always true for other turns.
   */
  inputSettled: boolean;
}

/** How a streamed turn is read. */
export interface PartialTurnOptions {
  /** The labels the model writes with. */
  labels: LabelSet;
  /** The run's tool names, so tool names read as the loop reads them. */
  tools: readonly string[];
}

/** An input that starts with a quote or backtick (the parser may strip one pair around the whole input). */
const QUOTED = /^["'`]/;

/**
 * Reads `shown` (the text of the reply that may be shown so far) and `providerReasoning` (the reasoning the
 * provider sent apart from the text). An action's input is settled when it does not start with a quote or
 * backtick and more text does not change it (`["a"` reads `a` with its quotes stripped, `["a"x` reads
 * `"a"x`): the parser strips one pair around the whole input, which only the input's end tells.
 */
export function readPartialTurn(
  shown: string,
  providerReasoning: string,
  options: PartialTurnOptions,
): PartialTurn {
  const { labels, tools } = options;
  const read = readReply(shown, { labels, tools });
  const reasoning = [providerReasoning.trim(), read.reasoning ?? ''].filter(Boolean).join('\n\n');
  if (readThinking(shown).outside.trim() === '') return { reasoning, inputSettled: true };
  const { turn } = read;
  return {
    reasoning,
    turn,
    inputSettled: turn.type !== 'action' || inputSettled(shown, turn.input, options),
  };
}

function inputSettled(shown: string, input: string, options: PartialTurnOptions): boolean {
  if (QUOTED.test(input)) return false;
  const more = readReply(`${shown}x`, options).turn;
  return more.type === 'action' && more.input.startsWith(input);
}
