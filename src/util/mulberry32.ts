/**
 * mulberry32 (Tommy Ettinger's 32-bit generator): a small, fast, seeded pseudo-random generator. The same seed
 * gives the same sequence on every run and every platform, which is all its users need: the tiny GGUF's
 * weights (scripts/make-tiny-gguf.ts), the benchmarks' chunkings and texts (bench/), the tests' chunkings and
 * the paired bootstrap's resampling.
 * Not for anything secret. The bootstrap of `taoloop test --compare` (src/eval/pass-k.ts) uses it too;
 * scripts/lib/mulberry32.ts re-exports it for scripts, bench and tests.
 *
 * @param seed - any number; only its low 32 bits (as an unsigned integer) are used.
 * @returns a function that returns the next number of the sequence, uniform in [0, 1).
 * @example
 * const next = mulberry32(16);
 * next(); // the same first number on every run
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
