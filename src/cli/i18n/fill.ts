/**
 * Filling in the CLI's message templates, and messages kept as a key and values until they are printed in
 * the language of the command line (a {@link LocalizedText}).
 *
 * @module
 */
import type { ErrorMessages } from './messages.js';

/** `template` with each `{name}` replaced by `values[name]` (names not given stay as they are). */
export function fill(template: string, values: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? String(values[name]) : whole,
  );
}

/**
 * A message of {@link ErrorMessages} by its key, with the values to fill in; a value may itself be such a
 * message (a phrase like "the "tools" field of the config file …"), put in the same language.
 */
export interface LocalizedText {
  key: keyof ErrorMessages;
  values: Readonly<Record<string, string | number | LocalizedText>>;
}

/** `text` in the language of `errors`. */
export function localize(errors: ErrorMessages, text: LocalizedText): string {
  const values: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(text.values))
    values[name] = typeof value === 'object' ? localize(errors, value) : value;
  return fill(errors[text.key], values);
}
