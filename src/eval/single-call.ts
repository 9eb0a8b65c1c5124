/**
 * The strategies without tools: Standard (answer directly), CoT (a thought, then the answer) and CoT-SC
 * (n CoT samples at temperature 0.7, majority vote). Each sample is one model call through the
 * {@link Model} interface; the answer is read from an `Answer:` line or a `Finish[...]` action.
 *
 * Source: Yao et al. 2022, section 3.2 ("Baselines"); CoT-SC after Wang et al. 2022, self-consistency.
 *
 * @module
 */
import { addUsage } from '../agent/budget.js';
import { ModelCallError, ModelTimeoutError } from '../models/errors.js';
import { addCost, costUsd, findPrice, type PriceTable } from '../models/pricing.js';
import type { Model, ModelUsage } from '../models/types.js';
import { parseTurn } from '../react/parse.js';
import { errorMessage } from '../util/own.js';
import { normalizeAnswer } from './metrics.js';
import type { StrategyOutcome, Vote } from './types.js';

/** Default number of CoT-SC samples (the paper's n = 21). */
export const DEFAULT_SAMPLES = 21;
/** CoT-SC sampling temperature (the paper's 0.7). */
export const SAMPLE_TEMPERATURE = 0.7;

/** What one tool-less call needs. */
export interface SingleCallInput {
  model: Model;
  /** The paper's Standard or CoT prompt text (examples in `Question:` / `Thought:` / `Answer:` form). */
  prompt: string;
  style: 'standard' | 'cot';
  question: string;
  /** `Question` for QA, `Claim` for FEVER. */
  questionLabel: string;
  temperature: number;
  signal?: AbortSignal | undefined;
  prices?: PriceTable | undefined;
}

const FORMAT = {
  standard: 'Reply with the answer only, on one line:\nAnswer: <the answer>',
  cot: 'Reason step by step in one Thought, then give the answer:\nThought: <your reasoning>\nAnswer: <the answer>',
} as const;

/**
 * The system prompt of a Standard or CoT call: the format, then the paper's examples as written. A prompt
 * without examples (zero-shot: empty, or only a task statement) goes before the format instead.
 */
export function singleCallPrompt(prompt: string, style: 'standard' | 'cot'): string {
  const text = prompt.trim();
  if (!/^(Question|Claim)\b/m.test(text)) return text === '' ? FORMAT[style] : `${text}\n\n${FORMAT[style]}`;
  return `${FORMAT[style]}\n\nExamples:\n\n${text}`;
}

/**
 * The answer in a Standard or CoT reply: the first `Answer:` line or `Finish[...]` action, as the ReAct
 * parser reads them; `null` when there is none (or it is empty). Text after a model-written
 * `Observation:` is ignored.
 */
export function extractAnswer(text: string): { answer: string | null; inventedObservation: boolean } {
  const turn = parseTurn(text, { tools: [] });
  return {
    answer: turn.type === 'answer' && turn.text.trim() !== '' ? turn.text.trim() : null,
    inventedObservation: turn.inventedObservation === true,
  };
}

/** Makes one Standard or CoT call. Model failures give `error` (or `aborted`), never a throw. */
export async function answerOnce(input: SingleCallInput): Promise<StrategyOutcome> {
  const { model, signal } = input;
  const base = { steps: 1, formatErrors: 0, inventedObservations: 0, toolErrors: 0 };
  try {
    const response = await model.generate({
      messages: [
        { role: 'system', content: singleCallPrompt(input.prompt, input.style) },
        { role: 'user', content: `${input.questionLabel}: ${input.question}` },
      ],
      stopSequences: [`\n${input.questionLabel}:`],
      temperature: input.temperature,
      ...(signal && { signal }),
    });
    const { answer, inventedObservation } = extractAnswer(response.text);
    const cost = costUsd(response.usage, findPrice(model.id, input.prices));
    return {
      ...base,
      answer,
      status: answer === null ? 'format_errors' : 'answered',
      usage: response.usage,
      ...(cost !== undefined && { costUsd: cost }),
      formatErrors: answer === null ? 1 : 0,
      inventedObservations: inventedObservation ? 1 : 0,
    };
  } catch (error) {
    const aborted = signal?.aborted === true;
    return {
      ...base,
      answer: null,
      status: aborted ? 'aborted' : 'error',
      usage: {},
      // ModelCallError and ModelTimeoutError already say "Model call to <id> failed / timed out: ...".
      ...(!aborted && {
        error:
          error instanceof ModelCallError || error instanceof ModelTimeoutError
            ? error.message
            : `The model call failed: ${errorMessage(error)}`,
      }),
    };
  }
}

/**
 * The majority answer among samples, compared after normalisation (HotpotQA's `normalize_answer`);
 * samples without an answer do not vote. A tie goes to the answer that reached the top count first in
 * sample order. The answer is returned as the first sample wrote it.
 */
export function majorityVote(answers: readonly (string | null)[]): Vote {
  const tally = new Map<string, { answer: string; votes: number }>();
  let best: { answer: string; votes: number } | undefined;
  for (const answer of answers) {
    if (answer === null) continue;
    const key = normalizeAnswer(answer);
    const entry = tally.get(key) ?? { answer, votes: 0 };
    entry.votes += 1;
    tally.set(key, entry);
    if (!best || entry.votes > best.votes) best = entry;
  }
  return { answer: best?.answer ?? null, votes: best?.votes ?? 0, samples: answers.length };
}

/**
 * CoT-SC: `samples` CoT calls at temperature 0.7, one after another, then {@link majorityVote}. Ends early
 * with `aborted` when the signal fires; a failed call counts as a sample without an answer.
 */
export async function selfConsistency(
  input: Omit<SingleCallInput, 'style' | 'temperature'> & { samples: number },
): Promise<StrategyOutcome> {
  const answers: (string | null)[] = [];
  let usage: ModelUsage = {};
  let cost: number | undefined = 0;
  let formatErrors = 0;
  let invented = 0;
  const errors: string[] = [];
  for (let i = 0; i < input.samples; i++) {
    const sample = await answerOnce({ ...input, style: 'cot', temperature: SAMPLE_TEMPERATURE });
    if (sample.status === 'aborted') {
      return { ...sample, steps: answers.length + 1, usage: addUsage(usage, sample.usage) };
    }
    answers.push(sample.answer);
    usage = addUsage(usage, sample.usage);
    // Known only when every call's cost is known.
    cost = cost === undefined || sample.costUsd === undefined ? undefined : addCost(cost, sample.costUsd);
    formatErrors += sample.formatErrors;
    invented += sample.inventedObservations;
    if (sample.error !== undefined) errors.push(sample.error);
  }
  const vote = majorityVote(answers);
  return {
    answer: vote.answer,
    status: vote.answer !== null ? 'answered' : errors.length === answers.length ? 'error' : 'format_errors',
    steps: answers.length,
    usage,
    ...(cost !== undefined && { costUsd: cost }),
    formatErrors,
    inventedObservations: invented,
    toolErrors: 0,
    vote,
    ...(vote.answer === null && errors[0] !== undefined && { error: errors[0] }),
  };
}
