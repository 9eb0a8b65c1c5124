/**
 * Context compaction strategies: {@link PrepareStepFunction}s that keep the transcript inside the model's
 * context window (the `prompt.compaction` option). The trace always keeps every step whole; only what the
 * model is sent changes.
 *
 * - {@link markerCompaction} (the default): the oldest observations are replaced by a short marker, in
 *   chunks that keep a provider's prompt cache useful (`fitEntries`).
 * - {@link summaryCompaction}: the old observations are replaced by a summary a (possibly cheaper) model
 *   writes; later compactions summarise the previous summary with the newer steps.
 *
 * @module
 */
import type { Model } from '../models/types.js';
import { estimateTokens, fitEntries } from './context.js';
import { BudgetExceededError } from './errors.js';
import type { PrepareStepFunction, PrepareStepOptions } from './hook-types.js';
import type { Step, StepObservation } from './types.js';

/**
 * The marker strategy: when the transcript would pass `transcriptBudgetTokens`, the oldest observations
 * (after the first findings) are replaced by `[observation shortened to fit the context window: N
 * characters]`; never the system prompt, the question or the latest step. A pure function of the steps.
 * Does nothing when the context window is unknown.
 */
export function markerCompaction(): PrepareStepFunction {
  return ({ steps, transcriptBudgetTokens, renderMessages }) => {
    if (transcriptBudgetTokens === undefined) return undefined;
    const fitted = fitSteps(steps, transcriptBudgetTokens);
    return fitted === steps ? undefined : { messages: renderMessages(fitted) };
  };
}

/** `steps` with the oldest observations shortened to fit `budgetTokens`; `steps` itself when all fit. */
function fitSteps(steps: readonly Step[], budgetTokens: number): readonly Step[] {
  const entries = steps.map((s) => ({ modelText: s.transcriptText, observation: s.observation?.text }));
  const fitted = fitEntries(entries, budgetTokens);
  let changed = false;
  const result = steps.map((step, i) => {
    const text = fitted[i]?.observation;
    if (!step.observation || text === undefined || text === step.observation.text) return step;
    changed = true;
    return { ...step, observation: { ...step.observation, text } };
  });
  return changed ? result : steps;
}

/** Options for {@link summaryCompaction}. */
export interface SummaryCompactionOptions {
  /** The model that writes the summary; a cheaper one than the run's will do. */
  model: Model;
  /** Latest steps whose observations are always sent whole. @default 2 */
  keepLatestSteps?: number;
  /** Cap on the summary's length, in tokens (the summary call's `maxOutputTokens`). @default 512 */
  maxSummaryTokens?: number;
  /** Replaces the instructions the summary model gets (its system prompt). @default {@link SUMMARY_INSTRUCTIONS} */
  instructions?: string;
}

/** What the summary model is told by default. */
export const SUMMARY_INSTRUCTIONS =
  'You compress the working memory of an agent that answers a question step by step with tools. ' +
  'Summarise the observations below: keep every fact, number, name and source that could help answer ' +
  'the question, and say which actions found nothing. Write plain sentences, no preamble.';

/** The summary a run carries: of the observations of steps 1..`upTo`. */
interface RunSummary {
  upTo: number;
  text: string;
}

/**
 * The LLM-summary strategy: when the transcript would pass `transcriptBudgetTokens`, the observations of
 * all but the `keepLatestSteps` latest steps are replaced by one summary that `model` writes (the model's
 * turns stay, so the trajectory keeps its actions). The summary stands in the last summarised step's
 * observation, a note pointing to it in the earlier ones; it is reused for the following steps
 * until the transcript passes the budget again, when the summary and the newer observations are
 * summarised together. When there is nothing left to summarise, the marker strategy shortens the rest.
 *
 * The summary call goes through the run's journal and counts in its usage, cost and budgets (a
 * `hook-model-end` event with `purpose: 'summary'`). It is checked against the run's token and cost budgets
 * before it is made, like the run's own calls: when they have no room for it, no summary is written for
 * this step and the marker strategy shortens the old observations instead (the run's own call is then
 * checked as usual, and ends the run with `budget` if it does not fit either); the next compaction tries
 * the summary again. A failed summary call ends the run with `error` (`compaction failed: ...`). Does
 * nothing when the context window is unknown (set `prompt.contextWindowTokens`).
 * One strategy object may serve several runs at once: what it remembers is per run.
 *
 * @example
 * ```ts
 * await runAgent({
 *   model,
 *   tools,
 *   question,
 *   prompt: { contextWindowTokens: 32_000, compaction: summaryCompaction({ model: cheapModel }) },
 * });
 * ```
 */
export function summaryCompaction(options: SummaryCompactionOptions): PrepareStepFunction {
  const keepLatest = options.keepLatestSteps ?? 2;
  if (!Number.isInteger(keepLatest) || keepLatest < 0)
    throw new RangeError(`keepLatestSteps must be a whole number of at least 0, got ${keepLatest}.`);
  const runs = new WeakMap<readonly Step[], RunSummary>();
  return async (args) => {
    const { steps, transcriptBudgetTokens: budget } = args;
    if (budget === undefined) return undefined;
    let summary = runs.get(steps);
    let view = withSummary(steps, summary);
    if (transcriptTokens(view) > budget) {
      const upTo = steps.length - keepLatest;
      if (upTo > (summary?.upTo ?? 0)) {
        const text = await summariseWithinBudget(
          args,
          options,
          summary,
          steps.slice(summary?.upTo ?? 0, upTo),
        );
        // No room in the budget for the summary: the markers below shorten what it would have replaced.
        if (text !== undefined) {
          summary = { upTo, text };
          runs.set(steps, summary);
          view = withSummary(steps, summary);
        }
      }
      view = fitSteps(view, budget);
    }
    return view === steps ? undefined : { messages: args.renderMessages(view) };
  };
}

/**
 * {@link summarise}, or `undefined` when the run's budget has no room for the summary call (the call is not
 * made; see {@link summaryCompaction}).
 */
async function summariseWithinBudget(...args: Parameters<typeof summarise>): Promise<string | undefined> {
  try {
    return await summarise(...args);
  } catch (error) {
    if (error instanceof BudgetExceededError) return undefined;
    throw error;
  }
}

/** Asks the summary model for a summary of the previous one and `steps`' observations. */
async function summarise(
  args: PrepareStepOptions,
  options: SummaryCompactionOptions,
  previous: RunSummary | undefined,
  steps: readonly Step[],
): Promise<string> {
  const question = args.messages.find((m) => m.role === 'user')?.content ?? '';
  const parts = [question];
  if (previous) parts.push(`Summary of steps 1-${previous.upTo}:\n${previous.text}`);
  for (const step of steps) {
    const action = step.turn.type === 'action' ? `${step.turn.tool}[${step.turn.input}]` : step.turn.type;
    for (const [i, observation] of observationsOf(step).entries())
      parts.push(
        `Step ${step.index}${i ? ` (call ${i + 1})` : ''}: ${action}\nObservation: ${observation.text}`,
      );
  }
  const response = await args.generate(
    options.model,
    {
      messages: [
        { role: 'system', content: options.instructions ?? SUMMARY_INSTRUCTIONS },
        { role: 'user', content: parts.join('\n\n') },
      ],
      temperature: 0,
      maxOutputTokens: options.maxSummaryTokens ?? 512,
    },
    'summary',
  );
  const text = response.text.trim();
  if (!text) throw new Error(`the summary model ${options.model.id} returned an empty summary`);
  return text;
}

/** A step's observations: its own, then those of its other native calls. */
function observationsOf(step: Step): StepObservation[] {
  const own = step.observation ? [step.observation] : [];
  return [...own, ...(step.otherCalls ?? []).map((call) => call.observation)];
}

/** `steps` with the observations of steps 1..`summary.upTo` replaced by the summary. */
function withSummary(steps: readonly Step[], summary: RunSummary | undefined): readonly Step[] {
  if (!summary) return steps;
  return steps.map((step, i) => {
    if (i >= summary.upTo) return step;
    const text =
      i === summary.upTo - 1
        ? `[summary of the observations of steps 1-${summary.upTo}]\n${summary.text}`
        : `[observation summarised in the observation of step ${summary.upTo}]`;
    return {
      ...step,
      ...(step.observation && { observation: { ...step.observation, text } }),
      ...(step.otherCalls && {
        otherCalls: step.otherCalls.map((call) => ({
          ...call,
          observation: {
            ...call.observation,
            text: `[observation summarised in the observation of step ${summary.upTo}]`,
          },
        })),
      }),
    };
  });
}

/** The estimated tokens of the steps' transcript. */
function transcriptTokens(steps: readonly Step[]): number {
  let tokens = 0;
  for (const step of steps) {
    tokens += estimateTokens(step.transcriptText) + 8;
    for (const observation of observationsOf(step)) tokens += estimateTokens(observation.text);
  }
  return tokens;
}
