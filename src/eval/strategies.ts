/**
 * Running one strategy on one item: Standard, CoT, CoT-SC, Act, ReAct and the two hybrids.
 *
 * ReAct and Act run through {@link runAgent} with the Wikipedia tools; Standard, CoT and CoT-SC are tool-less
 * model calls (`single-call.ts`). The hybrids switch exactly at the paper's conditions (Yao et al. 2022,
 * section 3.2, "Combining internal and external knowledge"): ReAct → CoT-SC when ReAct returns no answer
 * within its steps; CoT-SC → ReAct when the majority answer holds fewer than n/2 of the n votes.
 *
 * @module
 */

import { addUsage } from '../agent/budget.js';
import { runAgent } from '../agent/loop.js';
import type { RunResult } from '../agent/types.js';
import { addCost, type PriceTable } from '../models/pricing.js';
import type { Model } from '../models/types.js';
import { ENGLISH_LABELS, type LabelSet } from '../react/labels.js';
import type { Tool } from '../tools/types.js';
import { errorMessage } from '../util/own.js';
import { type DatasetKind, EvalConfigError, type EvalItem } from './datasets.js';
import { agentPrompt, type PromptKind, type PromptSet } from './prompts.js';
import { answerOnce, selfConsistency } from './single-call.js';
import type { StrategyName, StrategyOutcome } from './types.js';

/** Everything a strategy needs for one item. */
export interface StrategyContext {
  model: Model;
  item: EvalItem;
  kind: DatasetKind;
  prompts: PromptSet;
  /** A fresh set of tools (the Wikipedia `search` and `lookup`) for one episode. */
  createTools: () => Tool[];
  /** CoT-SC samples (n). */
  samples: number;
  /** ReAct / Act step limit. */
  maxSteps: number;
  /** ReAct's step limit inside `react-cot-sc` (the paper: 7 for HotpotQA, 5 for FEVER). */
  hybridReactSteps: number;
  signal?: AbortSignal | undefined;
  prices?: PriceTable | undefined;
}

/** FEVER items are claims: the question label is `Claim`, as in the paper's FEVER prompts. */
const FEVER_LABELS_SET: LabelSet = { ...ENGLISH_LABELS, question: ['Claim', 'Question'] };
const ACT_INSTRUCTIONS =
  'In this task, write no Thought: each turn is a single Action line, as in the examples.';

/** The strategies each strategy's prompts come from. */
export function promptsNeeded(strategy: StrategyName): PromptKind[] {
  switch (strategy) {
    case 'standard':
      return ['standard'];
    case 'cot':
    case 'cot-sc':
      return ['cot'];
    case 'act':
      return ['act'];
    case 'react':
      return ['react'];
    case 'react-cot-sc':
    case 'cot-sc-react':
      return ['react', 'cot'];
    default:
      return strategy satisfies never;
  }
}

function requirePrompt(context: StrategyContext, kind: PromptKind): string {
  const prompt = context.prompts[kind];
  if (prompt === undefined) throw new EvalConfigError(`No "${kind}" prompt was loaded.`);
  return prompt;
}

/** Runs `strategy` on `context.item`. Model and tool failures end in the outcome's status, never a throw. */
export async function runStrategy(
  strategy: StrategyName,
  context: StrategyContext,
): Promise<StrategyOutcome> {
  switch (strategy) {
    case 'standard':
    case 'cot':
      return answerOnce({ ...single(context, strategy), style: strategy, temperature: 0 });
    case 'cot-sc':
      return selfConsistency({ ...single(context, 'cot'), samples: context.samples });
    case 'act':
    case 'react':
      return runAgentStrategy(context, strategy, context.maxSteps);
    case 'react-cot-sc':
      return reactThenCotSc(context);
    case 'cot-sc-react':
      return cotScThenReact(context);
    default:
      return strategy satisfies never;
  }
}

function single(context: StrategyContext, kind: 'standard' | 'cot') {
  return {
    model: context.model,
    prompt: requirePrompt(context, kind),
    question: context.item.question,
    questionLabel: context.kind === 'fever' ? 'Claim' : 'Question',
    signal: context.signal,
    prices: context.prices,
  };
}

/** ReAct → CoT-SC: CoT-SC runs only when ReAct ended without an answer (and was not aborted). */
export async function reactThenCotSc(context: StrategyContext): Promise<StrategyOutcome> {
  const react = await runAgentStrategy(context, 'react', context.hybridReactSteps);
  if (react.status === 'answered' || react.status === 'aborted') return { ...react, switched: false };
  const sc = await selfConsistency({ ...single(context, 'cot'), samples: context.samples });
  return combine(react, sc);
}

/** CoT-SC → ReAct: ReAct runs only when the majority answer holds fewer than n/2 votes. */
export async function cotScThenReact(context: StrategyContext): Promise<StrategyOutcome> {
  const sc = await selfConsistency({ ...single(context, 'cot'), samples: context.samples });
  const vote = sc.vote;
  if (sc.status === 'aborted' || !vote || vote.votes >= vote.samples / 2) return { ...sc, switched: false };
  const react = await runAgentStrategy(context, 'react', context.maxSteps);
  return { ...combine(sc, react), vote };
}

/** The outcome of a hybrid that switched: the second strategy's answer, both strategies' costs. */
function combine(first: StrategyOutcome, second: StrategyOutcome): StrategyOutcome {
  const cost =
    first.costUsd === undefined || second.costUsd === undefined
      ? undefined
      : addCost(first.costUsd, second.costUsd);
  const { costUsd: _secondCost, ...rest } = second;
  return {
    ...rest,
    steps: first.steps + second.steps,
    usage: addUsage(first.usage, second.usage),
    ...(cost !== undefined && { costUsd: cost }),
    formatErrors: first.formatErrors + second.formatErrors,
    inventedObservations: first.inventedObservations + second.inventedObservations,
    toolErrors: first.toolErrors + second.toolErrors,
    toolCalls: (first.toolCalls ?? 0) + (second.toolCalls ?? 0),
    ...((first.toolError ?? second.toolError) !== undefined && {
      toolError: first.toolError ?? second.toolError,
    }),
    switched: true,
  };
}

/** What an eval episode of ReAct or Act needs besides the model and the tools. */
export interface EvalAgentInput {
  style: 'react' | 'act';
  kind: DatasetKind;
  /** The strategy's few-shot prompt in the paper's format (`prompts.react` or `prompts.act`). */
  prompt: string;
  question: string;
  maxSteps: number;
}

/** Parsed prompts by text: a run of 500 items parses its prompt once. */
const parsedPrompts = new Map<string, ReturnType<typeof agentPrompt>>();

/**
 * The agent options of one ReAct or Act episode, except the model, the tools, the signal and the prices:
 * the same for a local eval and for a Restate worker serving `taoloop eval --restate` (`evalRunOptions`).
 * Turns are not streamed: nobody watches an eval's tokens, and streaming costs several times the CPU per
 * call (bench/eval-throughput).
 */
export function evalAgentOptions(input: EvalAgentInput) {
  let prompt = parsedPrompts.get(input.prompt);
  if (prompt === undefined) {
    prompt = agentPrompt(input.prompt);
    if (parsedPrompts.size >= 16) parsedPrompts.clear();
    parsedPrompts.set(input.prompt, prompt);
  }
  const instructions = [prompt.instructions, input.style === 'act' ? ACT_INSTRUCTIONS : '']
    .filter((part) => part !== '')
    .join('\n');
  return {
    question: input.question,
    maxSteps: input.maxSteps,
    prompt: { labels: input.kind === 'fever' ? FEVER_LABELS_SET : ENGLISH_LABELS, examples: prompt.examples },
    modelSettings: { temperature: 0, streaming: false },
    ...(instructions !== '' && { instructions }),
  };
}

async function runAgentStrategy(
  context: StrategyContext,
  style: 'react' | 'act',
  maxSteps: number,
): Promise<StrategyOutcome> {
  try {
    const result = await runAgent({
      model: context.model,
      tools: context.createTools(),
      ...evalAgentOptions({
        style,
        kind: context.kind,
        prompt: requirePrompt(context, style),
        question: context.item.question,
        maxSteps,
      }),
      ...(context.signal && { signal: context.signal }),
      ...(context.prices && { limits: { prices: context.prices } }),
    });
    return fromRunResult(result);
  } catch (error) {
    return errorOutcome(error);
  }
}

/** The outcome of a run that failed before it could start (a configuration mistake, an unreachable server). */
export function errorOutcome(error: unknown): StrategyOutcome {
  return {
    answer: null,
    status: 'error',
    steps: 0,
    usage: {},
    formatErrors: 0,
    inventedObservations: 0,
    toolErrors: 0,
    error: errorMessage(error),
  };
}

/** A loop result as a strategy outcome: counts of format errors, invented observations and tool errors. */
export function fromRunResult(result: RunResult): StrategyOutcome {
  const { steps } = result;
  const failedTools = steps.filter((step) => step.observation?.source === 'tool' && !step.observation.ok);
  return {
    answer: result.status === 'answered' ? (result.answer ?? null) : null,
    status: result.status,
    steps: steps.length,
    usage: result.usage,
    ...(result.costUsd !== undefined && { costUsd: result.costUsd }),
    formatErrors: steps.filter((step) => step.turn.type === 'none').length,
    inventedObservations: steps.filter((step) => step.turn.inventedObservation === true).length,
    toolErrors: failedTools.length,
    toolCalls: steps.filter((step) => step.observation?.source === 'tool').length,
    ...(failedTools[0] && { toolError: failedTools[0].observation!.text.slice(0, 300) }),
    ...(result.error !== undefined && { error: result.error }),
  };
}
