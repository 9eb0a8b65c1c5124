/**
 * Catching a model that repeats itself: the same action with the same observation gets a note, and after
 * a few repeats the run stops with `repeated_action` instead of burning the step budget.
 *
 * @module
 */

/** What to do after an action. */
export interface RepeatVerdict {
  /** A note appended to the observation, when the action was a repeat. */
  note?: string;
  /** True when the repeats are used up. */
  stop: boolean;
}

/** Counts (tool, input, observation) repeats over one run. */
export class RepeatTracker {
  readonly #seen = new Map<string, { observation: string; repeats: number }>();
  readonly #maxRepeats: number;

  /** @param maxRepeats the repeat that stops the run; earlier repeats are answered with a note. */
  constructor(maxRepeats: number) {
    this.#maxRepeats = maxRepeats;
  }

  /** Records an action and its observation. */
  record(tool: string, input: string, observation: string): RepeatVerdict {
    // Tool names cannot hold U+0000 (the router allows letters, digits, `_` and `-`), so the key is unique.
    const key = `${tool}\u0000${input.trim()}`;
    const previous = this.#seen.get(key);
    if (!previous || previous.observation !== observation) {
      this.#seen.set(key, { observation, repeats: 0 });
      return { stop: false };
    }
    previous.repeats += 1;
    if (previous.repeats >= this.#maxRepeats) return { stop: true };
    return {
      note: `(You already ran ${tool}[${input.trim()}] and got this same result. Do something different, or give the Answer.)`,
      stop: false,
    };
  }
}
