/**
 * The words of a format problem, written for the model: what was wrong, the expected format in the
 * configured labels, and the valid tool names. Labels appear inside sentences, never at the start of a
 * line, so the problem text cannot itself be mistaken for protocol lines.
 *
 * @module
 */
import type { LabelSet } from './labels.js';
import type { FormatProblemKind } from './turn.js';

/** What a problem message may mention. */
export interface ProblemContext {
  labels: LabelSet;
  tools?: readonly string[] | undefined;
  /** The offending text (an action value, an answer), quoted in the message. */
  detail?: string;
  /** The model wrote its own observation, which was dropped. */
  invented?: boolean;
  /** The reply stopped inside a `<think>` block (used by `truncated`). */
  reasoning?: boolean;
  /**
   * The action was a JSON blob that could not be read (used by `unknown-syntax`): the tool it named, when
   * one could be found, and why it could not be read (`it is not valid JSON`).
   */
  json?: { tool?: string; reason: string };
}

const QUOTE_LIMIT = 80;

function quote(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return `"${oneLine.length > QUOTE_LIMIT ? `${oneLine.slice(0, QUOTE_LIMIT)}…` : oneLine}"`;
}

function words(labels: LabelSet) {
  return {
    thought: labels.thought[0] ?? 'Thought',
    action: labels.action[0] ?? 'Action',
    observation: labels.observation[0] ?? 'Observation',
    answer: labels.answer[0] ?? 'Answer',
  };
}

/** The first sentence: what was wrong. */
function what(kind: FormatProblemKind, context: ProblemContext): string {
  const w = words(context.labels);
  const detail = context.detail ?? '';
  switch (kind) {
    case 'empty':
      return 'Your reply was empty.';
    case 'no-labels':
      return `Your reply has no ${w.thought}, ${w.action} or ${w.answer} label at the start of a line.`;
    case 'no-action':
      return context.invented
        ? `You wrote an ${w.observation} yourself; observations come only from running a tool, so it was dropped, and no ${w.action} or ${w.answer} came before it.`
        : `Your reply has no ${w.action} and no ${w.answer}.`;
    case 'action-and-answer':
      return `Your reply has both an ${w.action} and an ${w.answer}; write only one per turn: an ${w.action}, then wait for its ${w.observation}, or the ${w.answer} when you are done.`;
    case 'empty-action':
      return `Your ${w.action} names no tool${detail ? ` (${quote(detail)})` : ''}.`;
    case 'placeholder-answer':
      return detail
        ? `Your ${w.answer} ${quote(detail)} is the template's placeholder, not an answer.`
        : `Your ${w.answer} is empty.`;
    case 'unknown-syntax': {
      if (context.json) {
        const { tool, reason } = context.json;
        return `Your ${w.action} is written as a JSON blob, which could not be read: ${reason}. Write the action as \`${w.action}: ${tool ?? 'tool'}[input]\`, the input inside square brackets (JSON in the brackets only for a tool that takes JSON).`;
      }
      const lower = detail.trim().toLowerCase();
      const tool = context.tools?.find((name) => name.toLowerCase() === lower);
      const hint = tool === undefined ? '' : ` Write it as \`${w.action}: ${tool}[input]\`.`;
      return `Your ${w.action} ${quote(detail)} is not in the form tool[input]; the input must be inside square brackets.${hint}`;
    }
    case 'truncated':
      return context.reasoning
        ? `Your reply was cut off at the output token limit while you were still reasoning inside \`<think>\`, before a complete ${w.action} or ${w.answer}; keep the reasoning short and write the step after \`</think>\`.`
        : `Your reply was cut off at the output token limit before a complete ${w.action} or ${w.answer}; keep the ${w.thought} short.`;
    case 'reasoning-cut':
      return 'Your reasoning was cut off before the step: write the step after `</think>`.';
    case 'only-reasoning':
      return 'Your reply holds only reasoning inside `<think>` and no step: write the step after `</think>`.';
    default: {
      const unknown: never = kind;
      return `Your reply could not be used (${String(unknown)}).`;
    }
  }
}

/**
 * The note added to an observation when a turn held more than its first action: what was not run, and why.
 * Undefined when nothing was ignored.
 */
export function describeIgnored(
  ignoredText: string | undefined,
  ignoredActions?: readonly string[],
): string | undefined {
  if (ignoredActions?.length) {
    const list = ignoredActions.map((action) => `\`${action.replace(/\s+/g, ' ').replace(/`/g, "'")}\``);
    const verb = list.length === 1 ? 'was' : 'were';
    return `(Only the first action runs each step; ${list.join(', ')} ${verb} not run.)`;
  }
  if (!ignoredText) return undefined;
  return `(Only the first action runs each step; the text after it was ignored: ${quote(ignoredText)}.)`;
}

/** The full problem text for a `none` turn. */
export function describeProblem(kind: FormatProblemKind, context: ProblemContext): string {
  const w = words(context.labels);
  const format = `Write \`${w.thought}: ...\` and on the next line \`${w.action}: tool[input]\`, or \`${w.thought}: ...\` and on the next line \`${w.answer}: ...\` when you know the answer.`;
  const tools = context.tools?.length ? ` Valid tools: ${context.tools.join(', ')}.` : '';
  return `${what(kind, context)} ${format}${tools}`;
}
