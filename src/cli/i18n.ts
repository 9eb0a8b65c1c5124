/**
 * The CLI's words in each `--lang`: messages to the person, the human tool's and human model's prompts,
 * and a translated summary of the format rules for the model. The system prompt itself is rendered in
 * English prose by `src/react/prompt.ts` (with translated labels); `instructions` restates its rules in
 * the run's language so a model prompted in Portuguese, French or Indonesian stays in that language.
 *
 * @module
 */
import type { StopReason } from '../agent/types.js';
import type { LabelLanguage } from '../react/labels.js';
import { EN } from './i18n/en.js';
import { fill } from './i18n/fill.js';
import { FR } from './i18n/fr.js';
import { ID } from './i18n/id.js';
import type { CliMessages } from './i18n/messages.js';
import { PT } from './i18n/pt.js';

export { fill, type LocalizedText, localize } from './i18n/fill.js';
export type {
  ApprovalMessages,
  ChatMessages,
  CliMessages,
  ErrorMessages,
  UsageMessages,
} from './i18n/messages.js';

/** The CLI's messages, by `--lang` code. */
export const CLI_MESSAGES: Readonly<Record<LabelLanguage, CliMessages>> = { en: EN, pt: PT, fr: FR, id: ID };

/** Why a run ended without an answer, in `messages`' language. */
export function noAnswerMessage(
  messages: CliMessages,
  status: Exclude<StopReason, 'answered'>,
  detail: string | undefined,
): string {
  if (status === 'budget') {
    // The budget's template closes `({detail}).` itself: the detail's own full stop would double it.
    return fill(messages.noAnswer.budget, { detail: (detail ?? messages.budgetDetail).replace(/\.$/, '') });
  }
  return fill(messages.noAnswer[status], { detail: detail ?? messages.failedDetail });
}

/**
 * The library's budget message (`token budget: …`, `cost budget: …`, `time budget: …`) in `messages`'
 * language; any other text unchanged.
 */
export function budgetDetail(messages: CliMessages, error: string): string {
  const tokens =
    /^token budget: (\d+) of (\d+) tokens used, and the next call needs about (\d+) more\.$/.exec(error);
  if (tokens) return fill(messages.budgetTokens, { used: tokens[1]!, max: tokens[2]!, next: tokens[3]! });
  const cost =
    /^cost budget: \$([\d.]+) of \$([\d.]+) spent, and the next call's input costs about \$([\d.]+)\.$/.exec(
      error,
    );
  if (cost)
    return fill(messages.budgetCost, { spent: `$${cost[1]}`, max: `$${cost[2]}`, next: `$${cost[3]}` });
  const time = /^time budget: the run took longer than (\d+) ms\.$/.exec(error);
  if (time) return fill(messages.budgetTime, { seconds: Number(time[1]) / 1000 });
  return error;
}

/**
 * The `--lang` of a command line, for messages printed before or around a run (an unexpected error):
 * `--lang X` or `--lang=X` in `argv`, else `TAOLOOP_LANG`, else English; an unknown code is English.
 */
export function languageOf(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): LabelLanguage {
  let code: string | undefined = env.TAOLOOP_LANG;
  for (const [i, arg] of argv.entries()) {
    if (arg === '--') break;
    if (arg === '--lang') code = argv[i + 1];
    else if (arg.startsWith('--lang=')) code = arg.slice('--lang='.length);
  }
  return code !== undefined && Object.hasOwn(CLI_MESSAGES, code) ? (code as LabelLanguage) : 'en';
}
