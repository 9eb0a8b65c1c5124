/**
 * Types of the evaluation harness: strategies, what one strategy run on one item gives, and the per-item
 * record written to the results file.
 *
 * @module
 */
import type { StopReason } from '../agent/types.js';
import type { ModelUsage } from '../models/types.js';

/**
 * The prompting strategies the ReAct paper compares (Yao et al. 2022, section 3.2, "Baselines" and
 * "Combining internal and external knowledge"):
 * - `standard`: the answer straight away (one call);
 * - `cot`: a thought, then the answer (one call);
 * - `cot-sc`: `n` CoT samples at temperature 0.7, majority answer;
 * - `act`: actions and observations, no thoughts;
 * - `react`: thoughts, actions and observations;
 * - `react-cot-sc`: ReAct, falling back to CoT-SC when ReAct gives no answer within its steps;
 * - `cot-sc-react`: CoT-SC, falling back to ReAct when the majority answer holds fewer than n/2 votes.
 */
export const STRATEGIES = [
  'standard',
  'cot',
  'cot-sc',
  'act',
  'react',
  'react-cot-sc',
  'cot-sc-react',
] as const;

/** One of {@link STRATEGIES}. */
export type StrategyName = (typeof STRATEGIES)[number];

/** The CoT-SC vote: the majority answer and how many samples gave it. */
export interface Vote {
  /** The majority answer as first written, or `null` when no sample gave an answer. */
  answer: string | null;
  /** Samples whose answer normalises to the majority answer. */
  votes: number;
  /** Samples drawn (n). */
  samples: number;
}

/** What one strategy run on one item gives, before scoring. */
export interface StrategyOutcome {
  /** The final answer, or `null` when the strategy gave none. */
  answer: string | null;
  /** Why it ended: `answered`, or the loop's stop reason (for single calls: `format_errors`, `error`, `aborted`). */
  status: StopReason;
  /** Model calls made (ReAct / Act steps, format retries included; n for CoT-SC). */
  steps: number;
  usage: ModelUsage;
  /** USD, when the price and every call's token counts are known. */
  costUsd?: number;
  /** Model turns that could not be parsed. */
  formatErrors: number;
  /** Turns in which the model wrote its own `Observation:`, which was dropped. */
  inventedObservations: number;
  /** Tool calls that failed (the observation was an error). */
  toolErrors: number;
  /** Tool calls made (agent strategies; absent in results written before it was counted). */
  toolCalls?: number;
  /** The first failed tool call's observation, e.g. `Error: Wikipedia API ...`, to say why tools failed. */
  toolError?: string;
  /** Hybrids: true when the fallback strategy ran. */
  switched?: boolean;
  /** CoT-SC and the hybrids that ran it: the vote. */
  vote?: Vote;
  /** What went wrong, for `error`. */
  error?: string;
}

/** One line of the results file: a strategy's outcome on one item, scored. */
export interface ItemResult extends StrategyOutcome {
  strategy: StrategyName;
  itemId: string;
  dataset: string;
  modelId: string;
  question: string;
  gold: string;
  /** 1 when correct: exact match (QA) or label accuracy (FEVER). */
  score: 0 | 1;
  /** QA only: HotpotQA F1. */
  f1?: number;
}

/** The key a result is stored and resumed under. */
export function resultKey(strategy: StrategyName, itemId: string): string {
  return `${strategy}\u0000${itemId}`;
}

/**
 * Parses a comma-separated strategy list (`react,cot-sc`), case-insensitive, duplicates dropped; the
 * paper's arrows are accepted too (`react->cot-sc`). Names it does not know are returned in `unknown`.
 */
export function parseStrategies(list: string): { strategies: StrategyName[]; unknown: string[] } {
  const names = list
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const known = new Set<string>(STRATEGIES);
  const aliases: Readonly<Record<string, StrategyName>> = {
    'react->cot-sc': 'react-cot-sc',
    'cot-sc->react': 'cot-sc-react',
    cotsc: 'cot-sc',
  };
  const strategies: StrategyName[] = [];
  const unknown: string[] = [];
  for (const name of names) {
    const resolved = Object.hasOwn(aliases, name) ? aliases[name] : name;
    if (resolved !== undefined && known.has(resolved)) {
      const strategy = resolved as StrategyName;
      if (!strategies.includes(strategy)) strategies.push(strategy);
    } else unknown.push(name);
  }
  return { strategies, unknown };
}
