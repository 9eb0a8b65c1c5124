/**
 * A check that work grows linearly with its input, made without a wall-clock bound: the time for an input
 * ten times larger is compared with the time for the smaller one, each the fastest of several runs (the
 * least disturbed by GC and by other processes on a busy machine). Linear growth is about 10x; quadratic
 * growth is 100x and more. The margin (40x, plus a few milliseconds for timer resolution) absorbs a noisy
 * shared machine and still fails a quadratic algorithm.
 */
import assert from 'node:assert/strict';

/** The fastest of `runs` calls of `work`, in milliseconds. */
export function fastestMs(work: () => void, runs = 5): number {
  let fastest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    work();
    fastest = Math.min(fastest, performance.now() - start);
  }
  return fastest;
}

/**
 * Asserts that `work(make(size * 10))` takes at most 40 times as long as `work(make(size))` (plus 20 ms).
 * @param label names the input in the failure message.
 */
export function assertLinear<T>(
  label: string,
  make: (size: number) => T,
  work: (input: T) => void,
  size: number,
): void {
  const small = make(size);
  const large = make(size * 10);
  fastestMs(() => work(small)); // warm the JIT up
  const smallMs = fastestMs(() => work(small));
  const largeMs = fastestMs(() => work(large));
  assert.ok(
    largeMs <= smallMs * 40 + 20,
    `${label}: ${size} took ${smallMs.toFixed(2)} ms, ${size * 10} took ${largeMs.toFixed(2)} ms (more than 40x: not linear)`,
  );
}
