/**
 * The one harness behind `taoloop eval` (the paper's strategies on its datasets) and `taoloop test` (a
 * team's own cases, k tries each): run every trial up to `concurrency` at a time, keep each result as it
 * finishes, skip what a stored result already answers, and stop on a signal or after too many failures in
 * a row. What a trial is (a strategy on an item, one try of a case) and where results are kept are the
 * caller's.
 *
 * Portable: no Node built-in; the results file is the caller's {@link TrialStore}.
 *
 * @module
 */

/** Where finished trials are kept: the results already there, and an append for each new one. */
export interface TrialStore<R> {
  /** Results stored before this run, oldest first (a later result of the same key replaces an earlier one). */
  readonly results: readonly R[];
  /** Keeps one finished result; called once per trial, in the order trials finish. */
  append(result: R): void;
}

/** Options for {@link runTrials}. */
export interface TrialsOptions<T, R> {
  /** Every trial of the run, each under a key unique within the run, in report order. */
  trials: readonly { key: string; input: T }[];
  /** The key a stored result answers. */
  keyOf(result: R): string;
  /**
   * Runs one trial. `attempt` counts the stored results of the same key that were tried again (0 for the
   * first try). Returns `undefined` when the trial was stopped by `signal` (nothing is stored); failures
   * are results (see `failed`), never a throw.
   */
  run(input: T, context: { signal: AbortSignal; attempt: number }): Promise<R | undefined>;
  /** Results are kept here; a stored result that is not `failed` is not run again. */
  store: TrialStore<R>;
  /**
   * A result that failed for a reason outside the task (a model error: the server was unreachable): stored, run
   * again by the next run, and counted towards `maxConsecutiveFailures`.
   */
  failed(result: R): boolean;
  /**
   * Checks a new result before it is stored; a message stops the run (the result is dropped), such as a
   * result from another model than the file holds.
   * @default every result is accepted
   */
  accept?: (result: R) => string | undefined;
  /** Trials run at the same time. @default 4 */
  concurrency?: number;
  /** Stops the run: trials in flight are dropped, finished ones stay stored. */
  signal?: AbortSignal;
  /** Failed results in a row after which the run stops (`stoppedBy` says why). @default 10 */
  maxConsecutiveFailures?: number;
  /** A failed result's reason, for `stoppedBy`. @default none */
  failure?: (result: R) => string | undefined;
  /** Called after each trial is stored, with the result. */
  onResult?: (result: R) => void;
}

/** What {@link runTrials} did. */
export interface TrialsRun<R> {
  /** The latest result of every trial that has one, resumed ones included, in trial order. */
  results: R[];
  /** Results read back from the store instead of run. */
  resumed: R[];
  /** Trials run now. */
  ran: number;
  /** True when the run stopped (the signal, too many failures, a result refused) before every trial had a result. */
  interrupted: boolean;
  /** Why the run stopped on its own: a refused result, or the last failure after too many in a row. */
  stoppedBy?: string;
}

/**
 * Runs the trials that no stored result answers yet (stored failures are run again) and returns every
 * result in trial order.
 */
export async function runTrials<T, R>(options: TrialsOptions<T, R>): Promise<TrialsRun<R>> {
  const { keyOf, store } = options;
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const latest = new Map<string, R>();
  const tries = new Map<string, number>();
  for (const result of store.results) {
    const key = keyOf(result);
    latest.set(key, result);
    tries.set(key, (tries.get(key) ?? 0) + 1);
  }
  const done = new Map([...latest].filter(([, result]) => !options.failed(result)));
  const resumed = options.trials.flatMap(({ key }) => done.get(key) ?? []);
  const todo = options.trials.filter(({ key }) => !done.has(key));
  const failures = { inARow: 0, max: options.maxConsecutiveFailures ?? 10, last: '' };
  let refused: string | undefined;
  let next = 0;
  let ran = 0;
  const worker = async () => {
    for (let trial = todo[next++]; trial && !signal.aborted; trial = todo[next++]) {
      const result = await options.run(trial.input, { signal, attempt: tries.get(trial.key) ?? 0 });
      if (result === undefined || signal.aborted) continue;
      const problem = options.accept?.(result);
      if (problem !== undefined) {
        refused ??= problem;
        stop.abort();
        continue;
      }
      store.append(result);
      done.set(trial.key, result);
      ran += 1;
      const failed = options.failed(result);
      failures.inARow = failed ? failures.inARow + 1 : 0;
      if (failed) failures.last = options.failure?.(result) ?? failures.last;
      if (failures.inARow >= failures.max) stop.abort();
      options.onResult?.(result);
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency ?? 4, todo.length));
  await Promise.all(Array.from({ length: workers }, worker));
  const results = options.trials.flatMap(({ key }) => done.get(key) ?? []);
  const stoppedBy = !stop.signal.aborted
    ? undefined
    : (refused ?? `${failures.inARow} results in a row ended with a model error; the last: ${failures.last}`);
  return {
    results,
    resumed,
    ran,
    interrupted: results.length < options.trials.length,
    ...(stoppedBy !== undefined && { stoppedBy }),
  };
}
