/**
 * Commander's errors about the command line (an unknown option, a missing argument, an invalid choice...)
 * in the `--lang` of the command line. Commander gives an error's `code` and its English message; the
 * names in it (the option, the argument, the value, commander's "did you mean" suggestion, the option
 * parser's reason) are read out of that message and put into the language's sentence. A message that
 * does not have the expected shape (another commander version, a code not handled here) is printed in
 * English as commander wrote it, so no information is ever lost.
 *
 * @module
 */
import { type CliMessages, fill, type UsageMessages } from './i18n.js';
import { safeText } from './safe-text.js';

type Values = Record<string, string>;

/** `template`'s `{name}`s as a regular expression that reads them back out of a filled-in text. */
function pattern(template: string): { regex: RegExp; names: string[] } {
  const names: string[] = [];
  const source = template
    .split(/(\{\w+\})/)
    .map((part) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (name === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(name);
      return '([\\s\\S]*?)';
    })
    .join('');
  return { regex: new RegExp(`^${source}$`), names };
}

/** The `{name}` values of `text` if it is `template` filled in, else undefined. */
function match(template: string, text: string): Values | undefined {
  const { regex, names } = pattern(template);
  const found = regex.exec(text);
  if (!found) return undefined;
  return Object.fromEntries(names.map((name, i) => [name, found[i + 1] ?? '']));
}

/** An option parser's reason (or commander's list of choices) in `usage`'s language; other text unchanged. */
function detailIn(usage: UsageMessages, english: UsageMessages, detail: string): string {
  for (const key of ['choices', 'wholeNumber', 'port', 'usd', 'price', 'duration'] as const) {
    const values = match(english[key], detail);
    if (values) return fill(usage[key], values);
  }
  return detail;
}

/** Commander's `\n(Did you mean …?)` in `usage`'s language; '' when there is none. */
function suggestionIn(usage: UsageMessages, suggestion: string | undefined): string {
  if (!suggestion) return '';
  const several = /^\n\(Did you mean one of (.*)\?\)$/s.exec(suggestion);
  if (several) return `\n${fill(usage.didYouMeanOneOf, { names: several[1]! })}`;
  const one = /^\n\(Did you mean (.*)\?\)$/s.exec(suggestion);
  return one ? `\n${fill(usage.didYouMean, { name: one[1]! })}` : suggestion;
}

/** The sentence for `code`, without the `error:` word, or undefined when `message` has another shape. */
function sentence(
  messages: CliMessages,
  english: CliMessages,
  code: string,
  message: string,
): string | undefined {
  const usage = messages.usage;
  const en = english.usage;
  const text = message.replace(/^error: /, '');
  switch (code) {
    case 'commander.unknownOption':
    case 'commander.unknownCommand': {
      const [, name, suggestion] =
        /^unknown (?:option|command) '(.*?)'(\n\(Did you mean .*\?\))?$/s.exec(text) ?? [];
      if (name === undefined) return undefined;
      const template = code === 'commander.unknownOption' ? usage.unknownOption : usage.unknownCommand;
      return fill(template, { option: name, command: name }) + suggestionIn(usage, suggestion);
    }
    case 'commander.missingArgument': {
      const values = match(en.missingArgument, text);
      return values && fill(usage.missingArgument, values);
    }
    case 'commander.optionMissingArgument': {
      const values = match(en.optionMissingArgument, text);
      return values && fill(usage.optionMissingArgument, values);
    }
    case 'commander.invalidArgument': {
      for (const key of ['invalidEnvValue', 'invalidOptionValue', 'invalidArgumentValue'] as const) {
        const values = match(en[key], text);
        if (values) return fill(usage[key], { ...values, detail: detailIn(usage, en, values.detail ?? '') });
      }
      return undefined;
    }
    case 'commander.excessArguments': {
      // Commander says "Expected 1 argument" / "Expected 0 arguments"; the counts are what matter.
      const [, command, expected, got] =
        /^too many arguments(?: for '(.*)')?\. Expected (\d+) arguments? but got (\d+)\.$/s.exec(text) ?? [];
      if (expected === undefined || got === undefined) return undefined;
      return fill(usage.excessArguments, { command: command ?? 'taoloop', expected, got });
    }
    default:
      return undefined;
  }
}

/**
 * What to print for a commander error that commander reported with `printed` (its text, ending in a
 * newline): in English exactly `printed` and the help hint, as commander printed them before; in another
 * language the translated sentence (English when `message` has an unexpected shape) and the hint, with
 * terminal control characters shown as escapes.
 *
 * @param lang - the language's messages, from `CLI_MESSAGES[languageOf(argv)]`.
 * @param english - `CLI_MESSAGES.en`: the patterns commander's and the option parsers' texts are read with.
 * @param code - the `CommanderError`'s `code`, such as `commander.unknownOption`.
 * @param printed - what commander passed to `outputError`: `error: …\n`.
 */
export function usageErrorText(
  lang: CliMessages,
  english: CliMessages,
  code: string,
  printed: string,
): string {
  if (lang === english) return `${printed}${english.usage.helpHint}\n`;
  const message = printed.replace(/\n$/, '');
  const translated = sentence(lang, english, code, message);
  // The names come from the command line, which may hold terminal control characters.
  const text = safeText(translated === undefined ? message : `${lang.usage.error}: ${translated}`);
  return `${text}\n${lang.usage.helpHint}\n`;
}
