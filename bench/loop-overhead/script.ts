/**
 * The episodes every contender runs: `steps - 1` calls of a no-op tool, each with a different input, then
 * the answer. The same turns for all, written two ways: taoloop's text protocol (`Thought: ...\nAction:
 * noop[step i]`, then `Answer: ...`), and native tool calls (a thought as text plus one tool call with the
 * arguments `{ "input": "step i" }`, then the answer as plain text), which is what the peers understand.
 *
 * @module
 */
import type { JSONSchema7 } from 'json-schema';

/** Episode lengths measured: model turns per episode (tool calls + the answer). */
export const STEP_COUNTS = [8, 32, 64] as const;
export type StepCount = (typeof STEP_COUNTS)[number];

export const TOOL_NAME = 'noop';
export const TOOL_DESCRIPTION = 'Does nothing; returns a fixed word.';
/** What the no-op tool returns; also counted by the stateless models of the memory test. */
export const TOOL_OUTPUT = 'noop-ok';
/** The tool's one argument, as a JSON schema: the one taoloop sends for a text tool in native mode. */
export const TOOL_INPUT_SCHEMA: JSONSchema7 = {
  type: 'object',
  properties: { input: { type: 'string', description: 'input' } },
  required: ['input'],
  additionalProperties: false,
};

/** One model turn in the native form: a thought, and a tool call unless it is the answer. */
export interface NativeTurn {
  text: string;
  toolCall?: { id: string; input: string };
}

/** One episode of `steps` model turns. */
export interface Episode {
  steps: number;
  /** Tool calls per episode: `steps - 1`. */
  actions: number;
  question: string;
  /** The final answer every contender must return. */
  answer: string;
  /** taoloop's text protocol. */
  textTurns: readonly string[];
  /** Native tool calls. */
  nativeTurns: readonly NativeTurn[];
}

/** The tool input of action `i` (0-based). */
export const inputOf = (i: number) => `step ${i + 1}`;

const episodes = new Map<number, Episode>();

/** The episode of `steps` model turns (built once per length). */
export function episode(steps: number): Episode {
  const known = episodes.get(steps);
  if (known) return known;
  const actions = steps - 1;
  const answer = `done after ${actions} noop calls`;
  const indices = Array.from({ length: actions }, (_, i) => i);
  const thought = (i: number) => `I call noop, step ${i + 1} of ${actions}.`;
  const made: Episode = {
    steps,
    actions,
    question: `Call the noop tool ${actions} times, then say you are done.`,
    answer,
    textTurns: [
      ...indices.map((i) => `Thought: ${thought(i)}\nAction: ${TOOL_NAME}[${inputOf(i)}]`),
      `Thought: I called noop ${actions} times.\nAnswer: ${answer}`,
    ],
    nativeTurns: [
      ...indices.map((i) => ({
        text: thought(i),
        toolCall: { id: `call_${i + 1}`, input: JSON.stringify({ input: inputOf(i) }) },
      })),
      { text: answer },
    ],
  };
  episodes.set(steps, made);
  return made;
}

/** Occurrences of {@link TOOL_OUTPUT} in a prompt: the steps done so far, for the stateless models. */
export function stepsDone(prompt: string): number {
  let count = 0;
  for (let at = prompt.indexOf(TOOL_OUTPUT); at !== -1; at = prompt.indexOf(TOOL_OUTPUT, at + 1)) count++;
  return count;
}

/** The memory test's episode (8 steps) and the input of the action at which it holds every run (the 4th). */
export const MEMORY_STEPS = 8;
export const HOLD_INPUT = inputOf(3);
