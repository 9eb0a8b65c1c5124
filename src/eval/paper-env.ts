/**
 * The ReAct paper's FEVER episode, as its notebook and environment ran it, for replaying recorded runs:
 * reading a recorded run back into model turns, and the environment's strict action matching.
 *
 * Source: ysymyth/ReAct@6bdb3a1: `FEVER.ipynb` (`webthink`: the prompt ends with `Thought i:`, the model's
 * completion is split on `\nAction i: `, the action's first letter is lower-cased, at most 7 steps, then a
 * forced `finish[]`), `wikienv.py` (`step`: only `search[...]`, `lookup[...]`, `finish[...]` and `think[...]`
 * are actions, anything else is `Invalid action: ...`) and `wrappers.py` (reward 1 when the normalised
 * answer equals the normalised label).
 *
 * @module
 */
import { readFileSync } from 'node:fs';

/** One step of a recorded run, as `react-data` stores it (thought and action stripped). */
export interface RecordedStep {
  step: number;
  thought: string;
  action: string;
  observation: string;
}

/** A recorded ReAct FEVER run (the `react-data` trajectories format). */
export interface RecordedRun {
  question_idx: number;
  claim: string;
  steps: RecordedStep[];
  answer: string;
  gt_answer: string;
  reward: number;
  n_steps: number;
  parse_fallback_printed: boolean;
  /** The Thought / Action / Observation text exactly as the notebook printed it. */
  raw_printed: string;
}

/** One model turn of a recorded run, rebuilt as the model wrote it. */
export interface RecordedTurn {
  step: number;
  /** The model's completion after the prompt's `Thought i:`: the thought, `\nAction i: `, the action. */
  completion: string;
  /** The recorded action, stripped (what the notebook's second call returned when it fell back). */
  action: string;
  /** The observation the environment returned. */
  observation: string;
}

/** The notebook's step limit: `for i in range(1, 8)`. */
export const PAPER_MAX_STEPS = 7;

/** Reads a trajectories JSONL file. */
export function readRecordedRuns(file: string): RecordedRun[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as RecordedRun);
}

/**
 * The model turns of a recorded run. The printed text keeps the model's own whitespace (the stored
 * `thought` and `action` are stripped), so each turn is cut from `raw_printed`: between `Thought i: `,
 * `\nAction i: ` and `\nObservation i: `. A step that cannot be found there is rebuilt from the stored
 * fields.
 */
export function recordedTurns(run: RecordedRun): RecordedTurn[] {
  const raw = run.raw_printed;
  let cursor = 0;
  return run.steps.map((step) => {
    const i = step.step;
    const start = raw.indexOf(`Thought ${i}: `, cursor);
    const action = start < 0 ? -1 : raw.indexOf(`\nAction ${i}: `, start);
    const observation = action < 0 ? -1 : raw.indexOf(`\nObservation ${i}: `, action);
    if (observation < 0) {
      return {
        step: i,
        completion: `${step.thought}\nAction ${i}: ${step.action}`,
        action: step.action,
        observation: step.observation,
      };
    }
    cursor = observation;
    const thought = raw.slice(start + `Thought ${i}: `.length, action);
    const actionText = raw.slice(action + `\nAction ${i}: `.length, observation);
    return {
      step: i,
      completion: `${thought}\nAction ${i}: ${actionText}`,
      action: step.action,
      observation: step.observation,
    };
  });
}

/** An action as the paper's environment reads it. */
export type PaperAction =
  | { type: 'search' | 'lookup'; input: string }
  | { type: 'finish'; answer: string }
  | { type: 'think' }
  | { type: 'invalid'; text: string };

/**
 * The notebook's split of a completion: `completion.strip().split("\nAction i: ")` must give exactly a
 * thought and an action; `undefined` otherwise (the notebook then printed `ohh...` and asked again).
 */
export function paperSplit(
  completion: string,
  step: number,
): { thought: string; action: string } | undefined {
  const parts = completion.trim().split(`\nAction ${step}: `);
  if (parts.length !== 2) return undefined;
  return { thought: parts[0] ?? '', action: parts[1] ?? '' };
}

/**
 * The environment's reading of an action: the notebook lower-cases its first character, the environment
 * strips it and accepts only `search[...]`, `lookup[...]`, `finish[...]` or `think[...]` exactly (prefix and
 * final `]`); anything else is invalid.
 */
export function paperAction(action: string): PaperAction {
  const text = (action.slice(0, 1).toLowerCase() + action.slice(1)).trim();
  for (const type of ['search', 'lookup', 'finish', 'think'] as const) {
    if (!text.startsWith(`${type}[`) || !text.endsWith(']')) continue;
    const input = text.slice(type.length + 1, -1);
    if (type === 'finish') return { type, answer: input };
    if (type === 'think') return { type };
    return { type, input };
  }
  return { type: 'invalid', text };
}

/** The observation the environment gives for an action it answers itself (not `search` / `lookup`). */
export function paperObservation(action: PaperAction, reward: number): string | undefined {
  switch (action.type) {
    case 'finish':
      return `Episode finished, reward = ${reward}`;
    case 'think':
      return 'Nice thought.';
    case 'invalid':
      return `Invalid action: ${action.text}`;
    case 'search':
    case 'lookup':
      return undefined;
    default:
      return action satisfies never;
  }
}
