/**
 * The parts of a step that are not the paper's logic: the limits and hooks before a model call
 * ({@link nextCall}), how the call is made ({@link turnSettings}, then `model-call.ts`), and reading a
 * response into a step ({@link readStep}). The loop (`loop.ts`) decides every stop reason; these only
 * report what they found.
 *
 * @module
 */
import { ModelTimeoutError } from '../models/errors.js';
import { errorMessage } from '../util/own.js';
import { BudgetExceededError } from './errors.js';
import { finalAnswerTurn } from './final-answer.js';
import { type NextCall, prepareCall } from './hooks.js';
import type { AnsweredBy, TurnSettings } from './model-call.js';
import { nativeTurn } from './native.js';
import { DEFAULT_MAX_STEPS, type Limit, type Run } from './run.js';
import { repairToolCalls } from './tool-repair.js';
import { maxTurnChars } from './turn-cap.js';
import { nativeStepText, readTextStep } from './turns.js';
import type { AgentEvent, Step } from './types.js';

/**
 * The next model call, or the limit that stops the run before it. The step limit is checked before the
 * hooks run (no summary is written for a run that stops here), the budget on the request they prepared
 * (compaction, `prepareStep`). The call `forceFinalAnswer` asks for is not limited, but a hook's own model
 * call always is: a hook that lets its `generate`'s {@link BudgetExceededError} through stops the run with
 * `budget` (the forced call included: the hook could not do what it needed for it).
 *
 * @throws {Error} when a hook fails (`prepareStep failed: ...`).
 */
export async function* nextCall(run: Run, index: number): AsyncGenerator<AgentEvent, NextCall | Limit> {
  const { settings, budget } = run;
  if (!run.forcing && run.actionSteps >= (settings.maxSteps ?? DEFAULT_MAX_STEPS))
    return { status: 'max_steps' };
  let call: NextCall;
  try {
    call = yield* prepareCall(run, index);
  } catch (error) {
    if (error instanceof BudgetExceededError) return { status: 'budget', error: error.message };
    throw error;
  }
  const overBudget = run.forcing ? undefined : budget.check(call.request);
  return overBudget === undefined ? call : { status: 'budget', error: overBudget };
}

/**
 * Reads a response into a step: parsed (text mode, the stream cut then the parser, the same streamed or
 * not) or read from the tool call (native mode, after `repairToolCall` had its chance, whose model calls
 * are yielded as `hook-model-end` events). Records its usage, and that of the repair's model calls.
 */
export async function* readStep(
  run: Run,
  call: NextCall,
  answered: AnsweredBy,
  index: number,
  modelStartedMs: number,
): AsyncGenerator<AgentEvent, { step: Step; droppedText?: string }> {
  const { settings, plan } = run;
  const { router, request } = call;
  const { modelId } = answered;
  // Recorded before a repair's model calls, which are checked against the budget it leaves.
  const costUsd = run.budget.record(request, answered.response.usage, answered.response.text, modelId);
  const { response, repairs, events } = plan.native
    ? await repairToolCalls(run, answered.response, index, request.messages, router)
    : { response: answered.response, repairs: undefined, events: [] };
  yield* events;
  const reading = plan.native
    ? {
        turn: finalAnswerTurn(response, plan.answer) ?? nativeTurn(response, router.tools, settings.labels),
        ...nativeStepText(response),
        droppedText: undefined,
      }
    : readTextStep(response, { tools: router.names, labels: settings.labels });
  const { turn, reasoning } = reading;
  const toolCall = plan.native && turn.type === 'action' ? response.toolCalls?.[0] : undefined;
  const step: Step = {
    index,
    modelText: response.text,
    transcriptText: reading.transcriptText,
    turn,
    usage: response.usage,
    finishReason: response.finishReason,
    modelDurationMs: Math.round(performance.now() - modelStartedMs),
    ...(costUsd !== undefined && { costUsd }),
    ...(toolCall && { toolCall }),
    ...(reasoning !== undefined && { reasoning }),
    ...(modelId !== settings.model.id && { modelId }),
    ...(repairs && { toolCallRepairs: repairs }),
  };
  return { step, ...(reading.droppedText !== undefined && { droppedText: reading.droppedText }) };
}

/** How the step's model call is made (`model-call.ts`), from the run's settings and effects. */
export function turnSettings(run: Run, call: NextCall, step: number): TurnSettings {
  const { settings } = run;
  return {
    step,
    // A durable journal records whole results: its calls are not streamed.
    stream: run.effects.streams && (settings.streaming ?? true),
    labels: settings.labels,
    cut: !run.plan.native,
    maxChars: maxTurnChars(settings.maxOutputTokens),
    modelTimeoutMs: settings.modelTimeoutMs,
    messageOnly: !run.effects.streams,
    stopState: run.stopState,
    // A streamed call aborted mid-way (the run's abort, its clock, `modelTimeoutMs`) still spent tokens:
    // counted (estimated) in the run's usage, cost and budgets before the run ends or falls back.
    onAborted: (usage, text, modelId) => run.budget.record(call.request, usage, text, modelId),
  };
}

/** A model error worded for the result; a per-call timeout says how far the call got. */
export function modelErrorMessage(error: unknown, modelTimeoutMs: number | undefined): string {
  // A ModelTimeoutError says how far the call got ("no response headers within 120 s").
  if (error instanceof ModelTimeoutError && modelTimeoutMs === undefined) return error.message;
  if (error instanceof Error && error.name === 'TimeoutError') {
    const what = error instanceof ModelTimeoutError ? error.what : `no answer within ${modelTimeoutMs} ms`;
    return `The model call failed: ${what} (modelTimeoutMs: ${modelTimeoutMs} ms).`;
  }
  // A ModelCallError already says "Model call to <id> failed: ...".
  if (error instanceof Error && error.name === 'ModelCallError') return error.message;
  return `The model call failed: ${errorMessage(error)}`;
}
