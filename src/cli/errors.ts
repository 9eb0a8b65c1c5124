/**
 * Errors the CLI reports as usage errors: exit code 2, a message, never a stack trace.
 *
 * @module
 */
import { EN } from './i18n/en.js';
import { type LocalizedText, localize } from './i18n/fill.js';

/**
 * A mistake in how the CLI was called (bad option, missing model, unreadable folder). `message` is English;
 * `localized`, when given, is the same message by key, which `main` prints in the command line's `--lang`.
 */
export class UsageError extends Error {
  override name = 'UsageError';
  readonly localized: LocalizedText | undefined;
  /**
   * True when the message quotes a file's own keys (a cases file's `maxSteps`), which must not be turned
   * into flag names (`--max-steps`) when printed.
   */
  readonly literal: boolean;

  constructor(message: string, localized?: LocalizedText, options: { literal?: boolean } = {}) {
    super(message);
    this.localized = localized;
    this.literal = options.literal === true;
  }
}

/**
 * A {@link UsageError} whose text is `errors[key]` of the CLI's messages with `values` filled in: English in
 * its `message`, in the command line's language when `main` prints it.
 */
export function usageError(key: LocalizedText['key'], values: LocalizedText['values'] = {}): UsageError {
  const text = { key, values };
  return new UsageError(localize(EN.errors, text), text);
}

/** Exit codes: 0 answered, 1 the run ended without an answer, 2 bad usage or no model configured. */
export const EXIT = { answered: 0, noAnswer: 1, usage: 2 } as const;
