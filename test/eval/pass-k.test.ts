/**
 * The figures: pass^k against hand-computed values and an exact binomial oracle, nearest-rank percentiles,
 * the summary of one configuration, and the paired bootstrap comparison (deterministic for a seed).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CaseTrial } from '../../src/eval/cases.js';
import {
  compareConfigs,
  passHatK,
  percentile,
  reportedKs,
  summarizeTrials,
  taskPassHatK,
} from '../../src/eval/pass-k.js';

const close = (actual: number | undefined, expected: number, what = '') => {
  assert.ok(
    actual !== undefined && Math.abs(actual - expected) < 1e-12,
    `${what}: ${actual} is not ${expected}`,
  );
};

function trial(caseId: string, n: number, passed: boolean, extra: Partial<CaseTrial> = {}): CaseTrial {
  return {
    caseId,
    trial: n,
    config: 'a',
    modelId: 'scripted',
    status: passed ? 'answered' : 'max_steps',
    answer: passed ? 'yes' : null,
    passed,
    checks: [{ name: 'status', passed, detail: passed ? 'answered' : 'expected answered, got max_steps' }],
    steps: 2,
    toolCalls: [],
    usage: { inputTokens: 100, outputTokens: 10 },
    costUsd: 0.001,
    durationMs: 1000,
    ...extra,
  };
}

/** The try without a cost (no price known). */
const noCost = ({ costUsd: _, ...rest }: CaseTrial): CaseTrial => rest;

/** `passes` passing tries then failing ones, up to `tries`. */
const tries = (caseId: string, count: number, passes: number, extra: Partial<CaseTrial> = {}) =>
  Array.from({ length: count }, (_, i) => trial(caseId, i, i < passes, extra));

const binomial = (n: number, k: number): bigint => {
  if (k < 0 || k > n) return 0n;
  let value = 1n;
  for (let i = 0; i < k; i++) value = (value * BigInt(n - i)) / BigInt(i + 1);
  return value;
};

describe('pass^k (τ-bench)', () => {
  test('hand-computed values for n = 4', () => {
    for (let k = 1; k <= 4; k++) close(taskPassHatK(4, 4, k), 1, `c=4 k=${k}`);
    close(taskPassHatK(4, 3, 1), 3 / 4, 'c=3 k=1');
    close(taskPassHatK(4, 3, 2), 3 / 6, 'c=3 k=2');
    close(taskPassHatK(4, 3, 3), 1 / 4, 'c=3 k=3');
    assert.equal(taskPassHatK(4, 3, 4), 0);
    close(taskPassHatK(4, 2, 2), 1 / 6, 'c=2 k=2');
    assert.equal(taskPassHatK(4, 0, 1), 0);
    // The mean over tasks: (1 + 1/2 + 1/6) / 3.
    const counts = [
      { trials: 4, passes: 4 },
      { trials: 4, passes: 3 },
      { trials: 4, passes: 2 },
    ];
    close(passHatK(counts, 2), 5 / 9, 'mean k=2');
    close(passHatK(counts, 1), 3 / 4, 'pass^1 is the pass rate');
    close(passHatK(counts, 4), 1 / 3, 'mean k=4');
  });

  test('equals C(c,k)/C(n,k) computed exactly', () => {
    for (let n = 1; n <= 14; n++)
      for (let c = 0; c <= n; c++)
        for (let k = 1; k <= n; k++) {
          const exact = Number(binomial(c, k)) / Number(binomial(n, k));
          const got = taskPassHatK(n, c, k);
          assert.ok(
            got !== undefined && Math.abs(got - exact) < 1e-12,
            `n=${n} c=${c} k=${k}: ${got} vs ${exact}`,
          );
        }
  });

  test('undefined with no tasks or a task with fewer than k tries; more tries than k are all used', () => {
    assert.equal(passHatK([], 1), undefined);
    assert.equal(
      passHatK(
        [
          { trials: 4, passes: 4 },
          { trials: 1, passes: 1 },
        ],
        2,
      ),
      undefined,
    );
    assert.equal(taskPassHatK(0, 0, 1), undefined);
    close(taskPassHatK(8, 6, 4), 15 / 70, 'n=8 c=6 k=4');
  });

  test('bad k or counts throw RangeError', () => {
    for (const k of [0, -1, 1.5, Number.NaN])
      assert.throws(() => passHatK([{ trials: 1, passes: 1 }], k), RangeError);
    assert.throws(() => passHatK([], 0), RangeError);
    assert.throws(() => taskPassHatK(2, 3, 1), RangeError);
    assert.throws(() => reportedKs(0), RangeError);
  });

  test('reported ks: powers of two up to k, and k', () => {
    assert.deepEqual(reportedKs(1), [1]);
    assert.deepEqual(reportedKs(4), [1, 2, 4]);
    assert.deepEqual(reportedKs(5), [1, 2, 4, 5]);
    assert.deepEqual(reportedKs(12), [1, 2, 4, 8, 12]);
  });
});

test('percentile: nearest rank', () => {
  const values = [50, 15, 40, 20, 35];
  assert.equal(percentile(values, 0), 15);
  assert.equal(percentile(values, 25), 20, 'rank ⌈1.25⌉ = 2');
  assert.equal(percentile(values, 30), 20);
  assert.equal(percentile(values, 40), 20);
  assert.equal(percentile(values, 50), 35);
  assert.equal(percentile(values, 100), 50);
  const oneToTwenty = Array.from({ length: 20 }, (_, i) => 20 - i);
  assert.equal(percentile(oneToTwenty, 95), 19);
  assert.equal(percentile(oneToTwenty, 50), 10);
  assert.equal(percentile([], 50), undefined);
  assert.deepEqual(values, [50, 15, 40, 20, 35], 'the input is not sorted in place');
});

describe('summarizeTrials', () => {
  const all = [...tries('x', 4, 3, { trace: 'traces/x.jsonl' }), ...tries('y', 4, 4), ...tries('z', 4, 2)];

  test('the headline figures', () => {
    const s = summarizeTrials(all, { k: 4 });
    assert.equal(s.config, 'a');
    assert.deepEqual(s.modelIds, ['scripted']);
    assert.equal(s.tasks, 3);
    assert.equal(s.trials, 12);
    assert.deepEqual(s.trialsPerTask, { min: 4, max: 4 });
    assert.deepEqual(
      s.passK.map((p) => p.k),
      [1, 2, 4],
    );
    close(s.passK[0]!.value, 0.75, 'pass^1');
    close(s.passK[1]!.value, 5 / 9, 'pass^2');
    close(s.passK[2]!.value, 1 / 3, 'pass^4');
    assert.equal(s.passRate, 0.75);
    close(s.costPerTaskUsd, 0.001, 'cost per task');
    assert.equal(s.totalCostUsd, 0.012);
    assert.deepEqual(s.tokens, { input: 1200, output: 120 });
    assert.deepEqual(s.latencyMs, { p50: 1000, p95: 1000 });
    assert.deepEqual(s.steps, { p50: 2, p95: 2 });
    assert.deepEqual(
      s.cases.map((c) => [c.caseId, c.trials, c.passes]),
      [
        ['x', 4, 3],
        ['y', 4, 4],
        ['z', 4, 2],
      ],
    );
    assert.deepEqual(
      s.failing.map((c) => c.caseId),
      ['x', 'z'],
    );
    assert.deepEqual(
      s.failing[0]!.failing.map((t) => t.trial),
      [3],
    );
    assert.equal(s.cases[1]!.passK, 1);
    assert.equal(s.cases[0]!.passK, 0);
    assert.equal(s.cases[0]!.durationMs, 4000);
    assert.deepEqual(s.cases[0]!.traces[0], { trial: 0, path: 'traces/x.jsonl' });
  });

  test('percentiles of latency and steps', () => {
    const timed = Array.from({ length: 20 }, (_, i) =>
      trial('t', i, true, { durationMs: (i + 1) * 100, steps: i + 1 }),
    );
    const s = summarizeTrials(timed, { k: 1 });
    assert.deepEqual(s.latencyMs, { p50: 1000, p95: 1900 });
    assert.deepEqual(s.steps, { p50: 10, p95: 19 });
  });

  test('an unknown cost or token count makes the sums unknown', () => {
    const s = summarizeTrials([...tries('x', 2, 2), noCost(trial('x', 2, true, { usage: {} }))], {
      k: 1,
    });
    assert.equal(s.costPerTaskUsd, undefined);
    assert.equal(s.totalCostUsd, undefined);
    assert.deepEqual(s.tokens, { input: undefined, output: undefined });
  });

  test('caseIds: that order, missing cases with no tries, other cases left out', () => {
    const s = summarizeTrials(all, { k: 2, caseIds: ['z', 'new', 'y'] });
    assert.deepEqual(
      s.cases.map((c) => [c.caseId, c.trials]),
      [
        ['z', 4],
        ['new', 0],
        ['y', 4],
      ],
    );
    assert.equal(s.trials, 8);
    assert.equal(s.passK[1]!.value, undefined, 'a case without tries makes pass^k unknown');
    assert.equal(s.cases[1]!.passK, undefined);
    assert.deepEqual(s.trialsPerTask, { min: 0, max: 4 });
  });

  test('a try recorded twice counts once (the later record)', () => {
    const s = summarizeTrials([...tries('x', 2, 1), trial('x', 1, true)], { k: 2 });
    assert.deepEqual([s.cases[0]!.trials, s.cases[0]!.passes], [2, 2]);
  });

  test('tries of two configurations are refused', () => {
    assert.throws(
      () => summarizeTrials([trial('x', 0, true), trial('x', 1, true, { config: 'b' })], { k: 1 }),
      RangeError,
    );
    assert.throws(() => summarizeTrials(all, { k: 0 }), RangeError);
  });

  test('no tries', () => {
    const s = summarizeTrials([], { k: 2 });
    assert.equal(s.tasks, 0);
    assert.equal(s.passRate, undefined);
    assert.deepEqual(s.passK, [
      { k: 1, value: undefined },
      { k: 2, value: undefined },
    ]);
  });
});

describe('compareConfigs (paired bootstrap)', () => {
  /** One configuration's tries: passes per case given as a list, 4 tries each. */
  const side = (config: string, passes: readonly number[], extra: Partial<CaseTrial> = {}) =>
    passes.flatMap((p, i) => tries(`c${i}`, 4, p, { config, ...extra }));
  const zeros = Array.from({ length: 20 }, () => 0);
  const mostly = zeros.map((_, i) => (i < 2 ? 2 : 4));

  test('b clearly better: the interval holds the mean difference and excludes 0', () => {
    const c = compareConfigs(side('a', zeros), side('b', mostly), { resamples: 2000 });
    assert.equal(c.configA, 'a');
    assert.equal(c.configB, 'b');
    assert.equal(c.cases.length, 20);
    close(c.passRate!.difference, 0.95, 'difference');
    assert.equal(c.passRate!.meanA, 0);
    close(c.passRate!.meanB, 0.95, 'mean b');
    const { low, high } = c.passRate!.interval;
    assert.ok(low <= 0.95 && 0.95 <= high, `${low}..${high}`);
    assert.ok(low > 0 && high <= 1);
    assert.equal(c.better, 'b');
    const reversed = compareConfigs(side('b', mostly), side('a', zeros), { resamples: 2000 });
    assert.equal(reversed.better, 'a');
    assert.ok(reversed.passRate!.interval.high < 0);
  });

  test('deterministic for a seed', () => {
    const noisy = zeros.map((_, i) => (i * 7) % 5);
    const other = zeros.map((_, i) => (i * 3) % 5);
    const a = side(
      'a',
      noisy.map((n) => Math.min(n, 4)),
    );
    const b = side(
      'b',
      other.map((n) => Math.min(n, 4)),
    );
    const first = compareConfigs(a, b, { resamples: 500, seed: 7 });
    assert.deepEqual(compareConfigs(a, b, { resamples: 500, seed: 7 }), first);
    assert.notDeepEqual(compareConfigs(a, b, { resamples: 500, seed: 8 }).passRate, first.passRate);
  });

  test('equal configurations: neither', () => {
    const same = zeros.map((_, i) => i % 5);
    const c = compareConfigs(side('a', same), side('b', same));
    assert.deepEqual(c.passRate!.interval, { low: 0, high: 0 });
    assert.equal(c.better, 'neither');
    // Differences of ±0.25 that cancel out: the interval straddles 0.
    const up = zeros.map((_, i) => (i % 2 ? 3 : 1));
    const down = zeros.map((_, i) => (i % 2 ? 2 : 2));
    const noisy = compareConfigs(side('a', down), side('b', up));
    assert.equal(noisy.passRate!.difference, 0);
    assert.ok(noisy.passRate!.interval.low < 0 && noisy.passRate!.interval.high > 0);
    assert.equal(noisy.better, 'neither');
  });

  test('the 95% interval is about ±1.96 standard errors for many cases', () => {
    // 200 cases whose differences are -0.5, -0.25, 0, 0.25, 0.5 in turn: mean 0, SE = sd / sqrt(n).
    const n = 200;
    const a = Array.from({ length: n }, () => 2);
    const b = Array.from({ length: n }, (_, i) => i % 5);
    const c = compareConfigs(side('a', a), side('b', b));
    const diffs = b.map((x, i) => (x - a[i]!) / 4);
    const sd = Math.sqrt(diffs.reduce((s, d) => s + d * d, 0) / n);
    const expected = (1.96 * sd) / Math.sqrt(n);
    const { low, high } = c.passRate!.interval;
    assert.ok(Math.abs(-low / expected - 1) < 0.05, `low ${low}, expected about ${-expected}`);
    assert.ok(Math.abs(high / expected - 1) < 0.05, `high ${high}, expected about ${expected}`);
  });

  test('unpaired cases are listed and left out; one paired case gives a point interval', () => {
    const a = [...tries('shared', 4, 1, { config: 'a' }), ...tries('onlyA', 4, 4, { config: 'a' })];
    const b = [...tries('shared', 2, 2, { config: 'b' }), ...tries('onlyB', 4, 0, { config: 'b' })];
    const c = compareConfigs(a, b, { resamples: 100 });
    assert.deepEqual(c.unpaired, { onlyA: ['onlyA'], onlyB: ['onlyB'] });
    assert.deepEqual(c.cases, [
      { caseId: 'shared', passRateA: 0.25, passRateB: 1, difference: 0.75, costA: 0.001, costB: 0.001 },
    ]);
    assert.deepEqual(c.passRate!.interval, { low: 0.75, high: 0.75 });
    const none = compareConfigs(tries('x', 1, 1), tries('y', 1, 1, { config: 'b' }));
    assert.equal(none.passRate, undefined);
    assert.equal(none.better, 'neither');
  });

  test('cost per try is compared only when every try has a cost', () => {
    const a = side('a', [4, 4, 4], { costUsd: 0.002 });
    const b = side('b', [4, 4, 4], { costUsd: 0.001 });
    const c = compareConfigs(a, b, { resamples: 100 });
    close(c.costPerTryUsd!.difference, -0.001, 'cost difference');
    close(c.costPerTryUsd!.interval.low, -0.001, 'cost interval');
    const unknown = compareConfigs(a, side('b', [4, 4, 4]).map(noCost), { resamples: 100 });
    assert.equal(unknown.costPerTryUsd, undefined);
  });

  test('bad options throw RangeError', () => {
    assert.throws(() => compareConfigs([], [], { resamples: 0 }), RangeError);
    assert.throws(() => compareConfigs([], [], { confidence: 1 }), RangeError);
    assert.throws(() => compareConfigs([], [], { seed: 0.5 }), RangeError);
  });
});
