/**
 * The figures of a cases run: pass^k (τ-bench), pass rate, cost, percentiles, and a paired bootstrap
 * comparison of two configurations. Pure functions over {@link CaseTrial} records.
 *
 * @module
 */

import { addCost } from '../models/pricing.js';
import { mulberry32 } from '../util/mulberry32.js';
import type { CaseTrial } from './cases.js';

const wholeK = (k: number) => {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a whole number ≥ 1, got ${k}`);
};

/**
 * pass^k of one task: the chance that k tries drawn without replacement from its n tries all passed,
 * C(c, k) / C(n, k) for c passes, computed as the product Π_{i<k} (c − i) / (n − i) (no big numbers).
 * `undefined` when the task has fewer than k tries.
 *
 * @throws RangeError when k is not a whole number ≥ 1, or the counts are not whole with 0 ≤ passes ≤ trials.
 */
export function taskPassHatK(trials: number, passes: number, k: number): number | undefined {
  wholeK(k);
  if (!Number.isInteger(trials) || !Number.isInteger(passes) || passes < 0 || passes > trials)
    throw new RangeError(`expected whole counts with 0 ≤ passes ≤ trials, got ${passes} of ${trials}`);
  if (trials < k) return undefined;
  if (passes < k) return 0;
  let value = 1;
  for (let i = 0; i < k; i++) value *= (passes - i) / (trials - i);
  return value;
}

/**
 * pass^k over tasks: the mean over tasks of C(c, k) / C(n, k), each task with n tries and c passes. It is
 * the chance that all k tries of a task pass, so it falls as k grows for an agent that is not reliable;
 * pass^1 is the mean pass rate.
 *
 * Source: Yao et al. 2024, "τ-bench: A Benchmark for Tool-Agent-User Interaction in Real-World Domains",
 * section 5 (the pass^k metric, estimated from n ≥ k trials per task).
 *
 * @returns `undefined` when there are no tasks or some task has fewer than k tries.
 * @throws RangeError when k is not a whole number ≥ 1 (see `taskPassHatK`).
 */
export function passHatK(
  counts: readonly { trials: number; passes: number }[],
  k: number,
): number | undefined {
  wholeK(k);
  if (counts.length === 0) return undefined;
  let sum = 0;
  for (const { trials, passes } of counts) {
    const value = taskPassHatK(trials, passes, k);
    if (value === undefined) return undefined;
    sum += value;
  }
  return sum / counts.length;
}

/**
 * The nearest-rank percentile: the smallest value such that at least p% of the values are ≤ it, i.e.
 * the value at rank ⌈p/100 × N⌉ (1-based, at least 1) of the sorted values. Always one of the values
 * (no interpolation). `undefined` for no values.
 *
 * @param p - 0 to 100.
 */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}

/** The figures of one case over its tries. */
export interface CaseSummary {
  caseId: string;
  trials: number;
  passes: number;
  /** C(passes, k) / C(trials, k) for the summary's k; `undefined` with fewer than k tries. */
  passK: number | undefined;
  /** The tries that failed, in try order. */
  failing: CaseTrial[];
  /** Wall time of all its tries (ms). */
  durationMs: number;
  /** The trace files of its tries, in try order. */
  traces: { trial: number; path: string }[];
}

/** The figures of one configuration's tries (see {@link summarizeTrials}). */
export interface CasesSummary {
  /** The configuration's label (`''` when there are no tries). */
  config: string;
  /** The model ids that ran the tries, in first-seen order. */
  modelIds: string[];
  /** Cases summarised. */
  tasks: number;
  /** Tries in all. */
  trials: number;
  /** The fewest and most tries of any case. */
  trialsPerTask: { min: number; max: number };
  /** pass^k for k = 1, 2, 4, ... (powers of two) up to the asked k, and that k; `undefined` as in {@link passHatK}. */
  passK: { k: number; value: number | undefined }[];
  /** Passed tries / all tries (0 to 1); `undefined` with no tries. */
  passRate: number | undefined;
  /** Mean cost of one try (USD); `undefined` unless every try has a cost. */
  costPerTaskUsd: number | undefined;
  /** Cost of all tries (USD); `undefined` unless every try has a cost. */
  totalCostUsd: number | undefined;
  /** Token sums over all tries; a field is `undefined` unless every try reports it. */
  tokens: { input: number | undefined; output: number | undefined };
  /** Wall time of one try in ms, nearest-rank percentiles (`percentile`). */
  latencyMs: { p50: number | undefined; p95: number | undefined };
  /** Steps of one try, nearest-rank percentiles. */
  steps: { p50: number | undefined; p95: number | undefined };
  /** Every case, in `caseIds` order (or first-seen order). */
  cases: CaseSummary[];
  /** The cases with at least one failed try. */
  failing: CaseSummary[];
  /** The k asked for. */
  k: number;
}

/** The ks reported for `k`: 1, 2, 4, ... up to k, and k itself, sorted. */
export function reportedKs(k: number): number[] {
  wholeK(k);
  const ks = new Set<number>([k]);
  for (let power = 1; power <= k; power *= 2) ks.add(power);
  return [...ks].sort((a, b) => a - b);
}

/** One configuration's label; throws when the tries mix configurations. */
function configOf(trials: readonly CaseTrial[]): string {
  const configs = [...new Set(trials.map((t) => t.config))];
  if (configs.length > 1)
    throw new RangeError(
      `expected the tries of one configuration, got ${configs.join(', ')}; split them by config`,
    );
  return configs[0] ?? '';
}

/** Tries grouped by case in first-seen order; a later record of the same try number replaces an earlier one. */
function byCase(trials: readonly CaseTrial[]): Map<string, CaseTrial[]> {
  const latest = new Map<string, Map<number, CaseTrial>>();
  for (const trial of trials) {
    const tries = latest.get(trial.caseId) ?? new Map<number, CaseTrial>();
    tries.set(trial.trial, trial);
    latest.set(trial.caseId, tries);
  }
  const grouped = new Map<string, CaseTrial[]>();
  for (const [caseId, tries] of latest)
    grouped.set(
      caseId,
      [...tries.values()].sort((a, b) => a.trial - b.trial),
    );
  return grouped;
}

/** Sum of costs, `undefined` unless every try has one (and there is at least one). */
function totalCost(trials: readonly CaseTrial[]): number | undefined {
  if (trials.length === 0 || trials.some((t) => t.costUsd === undefined)) return undefined;
  return trials.reduce<number | undefined>((sum, t) => addCost(sum, t.costUsd), 0);
}

function sumOf(trials: readonly CaseTrial[], field: 'inputTokens' | 'outputTokens'): number | undefined {
  if (trials.length === 0 || trials.some((t) => t.usage[field] === undefined)) return undefined;
  return trials.reduce((sum, t) => sum + (t.usage[field] ?? 0), 0);
}

/**
 * Summarises the tries of one configuration. A case with more than k tries uses all of them.
 *
 * @param options.k - the largest k of pass^k (a whole number ≥ 1).
 * @param options.caseIds - the cases to report, in this order (a case with no tries has `trials: 0`,
 *   so pass^k is `undefined`); tries of other cases are left out. @default every case, first-seen order
 * @throws RangeError for a bad k, or tries of more than one configuration.
 */
export function summarizeTrials(
  trials: readonly CaseTrial[],
  options: { k: number; caseIds?: readonly string[] },
): CasesSummary {
  const { k } = options;
  const ks = reportedKs(k);
  const config = configOf(trials);
  const grouped = byCase(trials);
  const ids = options.caseIds ?? [...grouped.keys()];
  const cases: CaseSummary[] = ids.map((caseId) => {
    const tries = grouped.get(caseId) ?? [];
    const passes = tries.filter((t) => t.passed).length;
    return {
      caseId,
      trials: tries.length,
      passes,
      passK: taskPassHatK(tries.length, passes, k),
      failing: tries.filter((t) => !t.passed),
      durationMs: tries.reduce((sum, t) => sum + t.durationMs, 0),
      traces: tries.flatMap((t) => (t.trace === undefined ? [] : [{ trial: t.trial, path: t.trace }])),
    };
  });
  const used = ids.flatMap((id) => grouped.get(id) ?? []);
  const total = totalCost(used);
  const counts = cases.map((c) => c.trials);
  return {
    config,
    modelIds: [...new Set(used.map((t) => t.modelId))],
    tasks: cases.length,
    trials: used.length,
    trialsPerTask: {
      min: counts.length ? Math.min(...counts) : 0,
      max: counts.length ? Math.max(...counts) : 0,
    },
    passK: ks.map((kk) => ({ k: kk, value: passHatK(cases, kk) })),
    passRate: used.length ? used.filter((t) => t.passed).length / used.length : undefined,
    costPerTaskUsd: total === undefined ? undefined : total / used.length,
    totalCostUsd: total,
    tokens: { input: sumOf(used, 'inputTokens'), output: sumOf(used, 'outputTokens') },
    latencyMs: p50p95(used.map((t) => t.durationMs)),
    steps: p50p95(used.map((t) => t.steps)),
    cases,
    failing: cases.filter((c) => c.passes < c.trials),
    k,
  };
}

/** A metric of two configurations compared over paired cases. */
export interface MetricComparison {
  /** Mean over paired cases of the per-case mean in a, and in b. */
  meanA: number;
  meanB: number;
  /** Mean over paired cases of (b − a). */
  difference: number;
  /** Paired bootstrap percentile interval of `difference`. */
  interval: { low: number; high: number };
}

/** Two configurations compared case by case (see {@link compareConfigs}). */
export interface ConfigComparison {
  configA: string;
  configB: string;
  /** Per paired case: mean pass rate in each configuration, and b − a; cost per try when known. */
  cases: {
    caseId: string;
    passRateA: number;
    passRateB: number;
    difference: number;
    costA?: number;
    costB?: number;
  }[];
  /** Case ids tried by only one configuration (left out of the figures). */
  unpaired: { onlyA: string[]; onlyB: string[] };
  /** Pass rate (0 to 1); absent when no case is paired. */
  passRate?: MetricComparison;
  /** Cost of one try (USD); present only when there are paired cases and every paired try has a cost. */
  costPerTryUsd?: MetricComparison;
  /** Which has the higher pass rate: `neither` when its interval contains 0, or no case is paired. */
  better: 'a' | 'b' | 'neither';
  resamples: number;
  confidence: number;
  seed: number;
}

/** The median and the 95th percentile (`percentile`). */
const p50p95 = (values: readonly number[]) => ({ p50: percentile(values, 50), p95: percentile(values, 95) });

const mean = (values: readonly number[]) => values.reduce((s, v) => s + v, 0) / values.length;

/**
 * Paired bootstrap percentile intervals of the mean of each list of per-case differences (all lists as
 * long as the number of cases, resampled with the same draws).
 */
function bootstrap(
  diffs: readonly (readonly number[])[],
  resamples: number,
  confidence: number,
  seed: number,
) {
  const n = diffs[0]?.length ?? 0;
  const random = mulberry32(seed);
  const means = diffs.map(() => new Float64Array(resamples));
  for (let r = 0; r < resamples; r++) {
    const sums = diffs.map(() => 0);
    for (let j = 0; j < n; j++) {
      const i = Math.floor(random() * n);
      diffs.forEach((list, m) => {
        sums[m]! += list[i]!;
      });
    }
    sums.forEach((sum, m) => {
      means[m]![r] = sum / n;
    });
  }
  const alpha = 1 - confidence;
  const lowAt = Math.floor((alpha / 2) * resamples);
  const highAt = Math.max(0, Math.ceil((1 - alpha / 2) * resamples) - 1);
  return means.map((values) => {
    values.sort();
    return { low: values[lowAt]!, high: values[highAt]! };
  });
}

/**
 * Compares configuration b with a over the cases both tried (paired by case id): per case the mean pass
 * rate of its tries in each, the difference b − a, its mean, and a paired bootstrap percentile interval:
 * the paired cases are resampled with replacement `resamples` times, the mean difference of each resample
 * is taken, and the interval runs from the (1 − confidence)/2 to the (1 + confidence)/2 quantile of those
 * means (sorted; lower index ⌊α/2·R⌋, upper ⌈(1 − α/2)·R⌉ − 1). The cost per try uses the same resamples.
 * Deterministic: the resampling uses mulberry32 seeded with `seed`.
 *
 * Sources: Efron & Tibshirani 1993, "An Introduction to the Bootstrap" (percentile interval, ch. 13);
 * Koehn 2004, "Statistical Significance Tests for Machine Translation Evaluation" (paired bootstrap
 * resampling of test items).
 *
 * @param options.resamples - @default 10000
 * @param options.confidence - between 0 and 1. @default 0.95
 * @param options.seed - a whole number. @default 1
 * @throws RangeError for bad options, or when a side mixes configurations.
 */
export function compareConfigs(
  a: readonly CaseTrial[],
  b: readonly CaseTrial[],
  options: { resamples?: number; confidence?: number; seed?: number } = {},
): ConfigComparison {
  const { resamples = 10_000, confidence = 0.95, seed = 1 } = options;
  if (!Number.isInteger(resamples) || resamples < 1)
    throw new RangeError('resamples must be a whole number ≥ 1');
  if (!(confidence > 0 && confidence < 1)) throw new RangeError('confidence must be between 0 and 1');
  if (!Number.isInteger(seed)) throw new RangeError('seed must be a whole number');
  const [configA, configB] = [configOf(a), configOf(b)];
  const [byA, byB] = [byCase(a), byCase(b)];
  const rate = (tries: CaseTrial[]) => tries.filter((t) => t.passed).length / tries.length;
  const cost = (tries: CaseTrial[]) => {
    const total = totalCost(tries);
    return total === undefined ? undefined : total / tries.length;
  };
  const cases: ConfigComparison['cases'] = [];
  for (const [caseId, triesA] of byA) {
    const triesB = byB.get(caseId);
    if (!triesB) continue;
    const [passRateA, passRateB, costA, costB] = [rate(triesA), rate(triesB), cost(triesA), cost(triesB)];
    const row: ConfigComparison['cases'][number] = {
      caseId,
      passRateA,
      passRateB,
      difference: passRateB - passRateA,
    };
    if (costA !== undefined) row.costA = costA;
    if (costB !== undefined) row.costB = costB;
    cases.push(row);
  }
  const onlyA = [...byA.keys()].filter((id) => !byB.has(id));
  const onlyB = [...byB.keys()].filter((id) => !byA.has(id));
  const result: ConfigComparison = {
    configA,
    configB,
    cases,
    unpaired: { onlyA, onlyB },
    better: 'neither',
    resamples,
    confidence,
    seed,
  };
  if (cases.length === 0) return result;
  const costKnown = cases.every((c) => c.costA !== undefined && c.costB !== undefined);
  const pairs: [number[], number[]][] = [[cases.map((c) => c.passRateA), cases.map((c) => c.passRateB)]];
  if (costKnown) pairs.push([cases.map((c) => c.costA ?? 0), cases.map((c) => c.costB ?? 0)]);
  const diffs = pairs.map(([xs, ys]) => ys.map((y, i) => y - xs[i]!));
  const intervals = bootstrap(diffs, resamples, confidence, seed);
  const [passRate, costPerTry] = pairs.map(
    ([xs, ys], m): MetricComparison => ({
      meanA: mean(xs),
      meanB: mean(ys),
      difference: mean(diffs[m]!),
      interval: intervals[m]!,
    }),
  );
  result.passRate = passRate!;
  if (costPerTry) result.costPerTryUsd = costPerTry;
  if (passRate!.interval.low > 0) result.better = 'b';
  else if (passRate!.interval.high < 0) result.better = 'a';
  return result;
}
