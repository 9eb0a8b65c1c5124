/**
 * Running an evaluation: every (item, strategy) pair, up to `concurrency` at a time, each result appended
 * to the results file as it finishes. A rerun with the same file skips what is already there; an abort
 * (Ctrl-C) keeps everything finished and drops what was in flight.
 *
 * @module
 */
import { DEFAULT_PRICES, type PriceTable } from '../models/pricing.js';
import type { Model } from '../models/types.js';
import type { Tool } from '../tools/types.js';
import { type Dataset, EvalConfigError, type EvalItem } from './datasets.js';
import type { PromptSet } from './prompts.js';
import { appendResult, latestResults, readResults, scoreAnswer } from './results.js';
import { DEFAULT_SAMPLES } from './single-call.js';
import { runStrategy } from './strategies.js';
import { type ItemResult, resultKey, type StrategyName } from './types.js';

/** Default for {@link EvalOptions.concurrency}. */
export const DEFAULT_CONCURRENCY = 4;
/** Default ReAct / Act step limit: the 7 steps of the paper's notebooks. */
export const DEFAULT_EVAL_STEPS = 7;

/** Options for {@link runEval}. */
export interface EvalOptions {
  model: Model;
  dataset: Dataset;
  strategies: readonly StrategyName[];
  /** Prompts for the strategies' kinds (see `loadPrompts`). */
  prompts: PromptSet;
  /** A fresh pair of Wikipedia tools per episode, e.g. `() => createWikipediaTools({ backend })`. */
  createTools: () => Tool[];
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
  /** Prices per million tokens, merged over {@link DEFAULT_PRICES}. */
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
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const errors = { inARow: 0, max: options.maxConsecutiveErrors ?? 10, last: '' };
  const items = dataset.items.slice(0, options.limit ?? dataset.items.length);
  const existing = latestResults(readResults(options.resultsFile));
  checkSameRun(existing, options);
  const done = new Map(
    existing.filter((r) => r.status !== 'error').map((r) => [resultKey(r.strategy, r.itemId), r]),
  );
  const wanted = items.flatMap((item) => strategies.map((strategy) => ({ item, strategy })));
  const todo = wanted.filter(({ item, strategy }) => !done.has(resultKey(strategy, item.id)));
  const progress: EvalProgress = {
    total: wanted.length,
    done: 0,
    running: 0,
    correct: 0,
    tokens: 0,
    costUsd: 0,
  };
  for (const { item, strategy } of wanted) {
    const result = done.get(resultKey(strategy, item.id));
    if (result) count(progress, result);
  }
  const resumed = progress.done;
  options.onProgress?.({ ...progress });
  const prices = { ...DEFAULT_PRICES, ...options.prices };
  let next = 0;
  let ran = 0;
  const worker = async () => {
    for (let task = todo[next++]; task && !signal?.aborted; task = todo[next++]) {
      progress.running += 1;
      const result = await runPair({ ...options, signal }, task.item, task.strategy, prices);
      progress.running -= 1;
      if (result === undefined) continue;
      appendResult(options.resultsFile, result);
      done.set(resultKey(task.strategy, task.item.id), result);
      ran += 1;
      errors.inARow = result.status === 'error' ? errors.inARow + 1 : 0;
      errors.last = result.error ?? errors.last;
      if (errors.inARow >= errors.max) stop.abort();
      count(progress, result);
      options.onProgress?.({ ...progress, latest: result });
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency ?? DEFAULT_CONCURRENCY, todo.length));
  await Promise.all(Array.from({ length: workers }, worker));
  const results = wanted.flatMap(({ item, strategy }) => done.get(resultKey(strategy, item.id)) ?? []);
  const interrupted = results.length < wanted.length;
  const stoppedBy = stop.signal.aborted
    ? `${errors.inARow} results in a row ended with a model error; the last: ${errors.last}`
    : undefined;
  return { results, resumed, ran, interrupted, ...(stoppedBy !== undefined && { stoppedBy }) };
}

/** Runs one pair and scores it; `undefined` when it was aborted (nothing is recorded). */
async function runPair(
  options: EvalOptions,
  item: EvalItem,
  strategy: StrategyName,
  prices: PriceTable,
): Promise<ItemResult | undefined> {
  const outcome = await runStrategy(strategy, {
    model: options.model,
    item,
    kind: options.dataset.kind,
    prompts: options.prompts,
    createTools: options.createTools,
    samples: options.samples ?? DEFAULT_SAMPLES,
    maxSteps: options.maxSteps ?? DEFAULT_EVAL_STEPS,
    hybridReactSteps: options.hybridReactSteps ?? (options.dataset.kind === 'fever' ? 5 : 7),
    signal: options.signal,
    prices,
  });
  if (outcome.status === 'aborted' || options.signal?.aborted) return undefined;
  return {
    strategy,
    itemId: item.id,
    dataset: options.dataset.name,
    modelId: options.model.id,
    question: item.question,
    gold: item.answer,
    ...scoreAnswer(options.dataset.kind, outcome.answer, item.answer),
    ...outcome,
  };
}

function count(progress: EvalProgress, result: ItemResult): void {
  progress.done += 1;
  progress.correct += result.score;
  progress.tokens += (result.usage.inputTokens ?? 0) + (result.usage.outputTokens ?? 0);
  progress.costUsd += result.costUsd ?? 0;
}

function checkSameRun(existing: readonly ItemResult[], options: EvalOptions): void {
  const other = existing.find((r) => r.modelId !== options.model.id || r.dataset !== options.dataset.name);
  if (other) {
    throw new EvalConfigError(
      `${options.resultsFile} holds results of ${other.modelId} on ${other.dataset}, not ${options.model.id} on ${options.dataset.name}. Pass another --out folder, or remove the file to start over.`,
    );
  }
}
