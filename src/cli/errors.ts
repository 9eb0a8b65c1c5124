/**
 * Errors the CLI reports as usage errors: exit code 2, a message, never a stack trace.
 *
 * @module
 */

/** A mistake in how the CLI was called (bad option, missing model, unreadable folder). */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Exit codes: 0 answered, 1 the run ended without an answer, 2 bad usage or no model configured. */
export const EXIT = { answered: 0, noAnswer: 1, usage: 2 } as const;
