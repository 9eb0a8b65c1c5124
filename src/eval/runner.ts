/**
 * Running an evaluation: every (item, strategy) pair, up to `concurrency` at a time, each result appended
 * to the results file as it finishes. A rerun with the same file skips what is already there; an abort
 * (Ctrl-C) keeps everything finished and drops what was in flight.
 *
 * @module
 */

import { setMaxListeners } from 'node:events';
import { DEFAULT_PRICES, type PriceTable } from '../models/pricing.js';
import { withModelTimeout } from '../models/timeout.js';
import type { Model } from '../models/types.js';
import type { Tool } from '../tools/types.js';
import { type Dataset, EvalConfigError, type EvalItem } from './datasets.js';
import { runTrials } from './engine.js';
import type { PromptSet } from './prompts.js';
import { latestResults, openResultsFile, readResults, scoreAnswer } from './results.js';
import { DEFAULT_SAMPLES } from './single-call.js';
import { runStrategy } from './strategies.js';
import { type ItemResult, resultKey, type StrategyName, type StrategyOutcome } from './types.js';

/** Default for {@link EvalOptions.concurrency}. */
export const DEFAULT_CONCURRENCY = 4;
/** Default ReAct / Act step limit: the 7 steps of the paper's notebooks. */
export const DEFAULT_EVAL_STEPS = 7;

/** What a {@link PairRunner} gets for one (item, strategy) pair. */
export interface PairContext {
  item: EvalItem;
  kind: Dataset['kind'];
  prompts: PromptSet;
  samples: number;
  maxSteps: number;
  hybridReactSteps: number;
  signal: AbortSignal;
  prices: PriceTable;
  /** Earlier tries of this pair in the results file (they ended with `error`); 0 for the first try. */
  attempt: number;
}

/**
 * Runs one pair somewhere else than in this process (e.g. on Restate workers: `restateEvalRunner`), where
 * the model and the tools live. `modelId` is the model that answered; leave it out when the run failed
 * before a model answered. Failures end in the outcome's status (`error`), never a throw.
 */
export type PairRunner = (
  strategy: StrategyName,
  context: PairContext,
) => Promise<StrategyOutcome & { modelId?: string }>;

/** Options for {@link runEval}: `model` and `createTools` to run pairs here, or `runPair` to run them elsewhere. */
export interface EvalOptions {
  /** The model (required unless `runPair` is given). */
  model?: Model;
  dataset: Dataset;
  strategies: readonly StrategyName[];
  /** Prompts for the strategies' kinds (see `loadPrompts`). */
  prompts: PromptSet;
  /**
   * A fresh pair of Wikipedia tools per episode, e.g. `() => createWikipediaTools({ backend })` (required
   * unless `runPair` is given).
   */
  createTools?: () => Tool[];
  /**
   * Runs each pair elsewhere instead of with `model` and `createTools` here. Results record the model
   * the runner reports; a result from another model than the results file already holds stops the run.
   */
  runPair?: PairRunner;
  /** The JSONL results file; existing results in it are kept and not run again. */
  resultsFile: string;
  /** Pairs run at the same time. @default 4 */
  concurrency?: number;
  /** Only the first `limit` items. @default all */
  limit?: number;
  /** CoT-SC samples (n). @default 21 */
  samples?: number;
  /** ReAct / Act step limit. @default 7 */
  maxSteps?: number;
  /** ReAct's steps inside `react-cot-sc`. @default the paper's 7 for HotpotQA, 5 for FEVER */
  hybridReactSteps?: number;
  /** Stops the run: pairs in flight are dropped, finished ones stay in the file. */
  signal?: AbortSignal;
  /**
   * Limit for one model call in milliseconds (every strategy's calls); a call past it ends that item with
   * `error`, saying how far the call got. No default: without it a call waits as long as the HTTP client
   * lets it. `taoloop eval --model-timeout` defaults to 2 minutes. Not applied with `runPair` (the
   * runner's own model decides).
   * @default undefined
   */
  modelTimeoutMs?: number;
  /** Prices per million tokens, merged over `DEFAULT_PRICES`. */
  prices?: PriceTable;
  /**
   * Model errors in a row (results with status `error`) after which the run stops, as when the server is
   * unreachable; `stoppedBy` on the result says why. @default 10
   */
  maxConsecutiveErrors?: number;
  /** Called once before any pair runs, and after each pair finishes, with totals over all results. */
  onProgress?: (progress: EvalProgress) => void;
}

/** Totals for a progress display, over resumed and new results. */
export interface EvalProgress {
  total: number;
  done: number;
  running: number;
  /** Results with score 1. */
  correct: number;
  tokens: number;
  /** Sum of the known costs in USD. */
  costUsd: number;
  /** The result that just finished (absent in the first call). */
  latest?: ItemResult;
}

/** What {@link runEval} did. */
export interface EvalRun {
  /** Every result for the chosen items and strategies, resumed ones included, in item then strategy order. */
  results: ItemResult[];
  /** Results read back from the file instead of run. */
  resumed: number;
  /** Pairs run now. */
  ran: number;
  /** True when the run stopped (the signal, or too many model errors) before every pair finished. */
  interrupted: boolean;
  /** Why the run stopped early on its own: the last model error, after `maxConsecutiveErrors` in a row. */
  stoppedBy?: string;
}

/**
 * Runs the strategies on the dataset and returns every result. Results already in `resultsFile` for the
 * same (strategy, item) are kept; those that ended with `error` are run again (the new line wins).
 *
 * @throws {EvalConfigError} when the results file holds results of another model or dataset.
 */
export async function runEval(options: EvalOptions): Promise<EvalRun> {
  const { dataset, strategies } = options;
  if (options.runPair === undefined && (options.model === undefined || options.createTools === undefined)) {
    throw new TypeError('runEval needs model and createTools, or runPair.');
  }
  const lines = readResults(options.resultsFile);
  const existing = latestResults(lines);
  checkSameRun(existing, options);
  const items = dataset.items.slice(0, options.limit ?? dataset.items.length);
  const trials = items.flatMap((item) =>
    strategies.map((strategy) => ({ key: resultKey(strategy, item.id), input: { item, strategy } })),
  );
  const models = {
    expected: options.model?.id ?? existing.find((r) => r.status !== 'error')?.modelId,
  };
  const wanted = new Set(trials.map((t) => t.key));
  const progress: EvalProgress = {
    total: trials.length,
    done: 0,
    running: 0,
    correct: 0,
    tokens: 0,
    costUsd: 0,
  };
  for (const result of existing) {
    if (result.status !== 'error' && wanted.has(resultKey(result.strategy, result.itemId)))
      count(progress, result);
  }
  options.onProgress?.({ ...progress });
  const prices = { ...DEFAULT_PRICES, ...options.prices };
  const resultsFile = openResultsFile(options.resultsFile);
  const shared = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, shared.signal]) : shared.signal;
  // Every pair in flight listens on this signal (the loop, the model call): no leak warning at high concurrency.
  // Infinity, not 0 (also "no limit"): a fetch given this signal (undici) reads the limit with `getMaxListeners`,
  // which throws (an error with a stack trace, caught and dropped) on every request when the limit is 0.
  setMaxListeners(Number.POSITIVE_INFINITY, signal);
  try {
    const run = await runTrials<{ item: EvalItem; strategy: StrategyName }, ItemResult>({
      trials,
      keyOf: (r) => resultKey(r.strategy, r.itemId),
      store: { results: lines, append: (r) => resultsFile.append(r) },
      failed: (r) => r.status === 'error',
      failure: (r) => r.error,
      accept(result) {
        if (result.status === 'error') return undefined;
        models.expected ??= result.modelId;
        return result.modelId === models.expected
          ? undefined
          : `${result.modelId} answered ${result.strategy} on ${result.itemId}, but ${models.expected} answered the other results in ${options.resultsFile}; every result of one file must come from one model.`;
      },
      async run({ item, strategy }, context) {
        progress.running += 1;
        try {
          return await runPair(
            { ...options, signal: context.signal },
            item,
            strategy,
            prices,
            context.attempt,
            models,
          );
        } finally {
          progress.running -= 1;
        }
      },
      onResult(result) {
        count(progress, result);
        options.onProgress?.({ ...progress, latest: result });
      },
      concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
      signal,
      maxConsecutiveFailures: options.maxConsecutiveErrors ?? 10,
    });
    return {
      results: run.results,
      resumed: run.resumed.length,
      ran: run.ran,
      interrupted: run.interrupted,
      ...(run.stoppedBy !== undefined && { stoppedBy: run.stoppedBy }),
    };
  } finally {
    resultsFile.close();
  }
}

/** Runs one pair and scores it; `undefined` when it was aborted (nothing is recorded). */
async function runPair(
  options: EvalOptions & { signal: AbortSignal },
  item: EvalItem,
  strategy: StrategyName,
  prices: PriceTable,
  attempt: number,
  models: { expected: string | undefined },
): Promise<ItemResult | undefined> {
  const context: PairContext = {
    item,
    kind: options.dataset.kind,
    prompts: options.prompts,
    samples: options.samples ?? DEFAULT_SAMPLES,
    maxSteps: options.maxSteps ?? DEFAULT_EVAL_STEPS,
    hybridReactSteps: options.hybridReactSteps ?? (options.dataset.kind === 'fever' ? 5 : 7),
    signal: options.signal,
    prices,
    attempt,
  };
  const { createTools } = options;
  const model =
    options.model && options.modelTimeoutMs !== undefined
      ? withModelTimeout(options.model, options.modelTimeoutMs)
      : options.model;
  let outcome: StrategyOutcome & { modelId?: string };
  if (options.runPair) outcome = await options.runPair(strategy, context);
  else if (model && createTools) {
    outcome = await runStrategy(strategy, { ...context, model, createTools });
    outcome.modelId = model.id;
  } else throw new TypeError('runEval needs model and createTools, or runPair.');
  if (outcome.status === 'aborted' || options.signal.aborted) return undefined;
  const { modelId = models.expected ?? 'unknown', ...rest } = outcome;
  return {
    strategy,
    itemId: item.id,
    dataset: options.dataset.name,
    modelId,
    question: item.question,
    gold: item.answer,
    ...scoreAnswer(options.dataset.kind, outcome.answer, item.answer),
    ...rest,
  };
}

function count(progress: EvalProgress, result: ItemResult): void {
  progress.done += 1;
  progress.correct += result.score;
  progress.tokens += (result.usage.inputTokens ?? 0) + (result.usage.outputTokens ?? 0);
  progress.costUsd += result.costUsd ?? 0;
}

function checkSameRun(existing: readonly ItemResult[], options: EvalOptions): void {
  // With `runPair` the model is known only from the results: those are checked as they come.
  const modelId = options.model?.id;
  const other = existing.find(
    (r) => (modelId !== undefined && r.modelId !== modelId) || r.dataset !== options.dataset.name,
  );
  if (other) {
    throw new EvalConfigError(
      `${options.resultsFile} holds results of ${other.modelId} on ${other.dataset}, not ${modelId ?? 'these'} on ${options.dataset.name}. Pass another --out folder, or remove the file to start over.`,
    );
  }
}
