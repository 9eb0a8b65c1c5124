/**
 * The ReAct loop (Yao et al. 2022): the model writes a Thought and an Action, the program runs the tool and
 * appends the real Observation, until an Answer or a limit. One async generator; {@link runAgent} drains it.
 *
 * @module
 */
import type { ModelResponse } from '../models/types.js';
import { ENGLISH_LABELS, type LabelSet } from '../react/labels.js';
import { parseTurn } from '../react/parse.js';
import { withTelemetry } from '../telemetry/otel.js';
import { createToolRouter } from '../tools/router.js';
import { errorMessage, timeoutSignal } from '../util/own.js';
import { act } from './act.js';
import { Budget } from './budget.js';
import { conversationAfter, readConversation, summarizeTrajectory } from './conversation.js';
import { awaited, type Effects, runToEnd, streamEvents } from './effects.js';
import { addUsage, requestTurn } from './model-call.js';
import { nativeTurn } from './native.js';
import { RepeatTracker } from './repeats.js';
import { buildRequest, planRequests } from './request.js';
import { cutTranscriptText, formatErrorObservation } from './turns.js';
import type { AgentEvent, AgentOptions, RunResult, RunUsage, Step, StopReason } from './types.js';

/** Default for {@link AgentOptions.maxSteps}. */
export const DEFAULT_MAX_STEPS = 8;

/**
 * Runs the agent, yielding an {@link AgentEvent} for everything that happens, and returns the
 * {@link RunResult} (also carried by the final `run-end` event).
 *
 * Model failures and aborts end the run with status `error` / `aborted` and keep the partial trajectory;
 * tool failures and unusable turns become observations. Caller mistakes (an invalid tool list) throw
 * before any model call.
 *
 * @throws {ToolConfigError} for an invalid tool list.
 * @throws {AgentConfigError} for options that cannot work together (native mode on a model without tool calls).
 */
export async function* streamAgent(options: AgentOptions): AsyncGenerator<AgentEvent, RunResult> {
  // The run's clock keeps the process alive, so it is cleared however the run ends, a consumer that
  // stops reading early included.
  const timer = options.timeoutMs === undefined ? undefined : timeoutSignal(options.timeoutMs);
  try {
    const run = streamEvents(runLoop(options, timer?.signal));
    return yield* options.telemetry ? withTelemetry(run, options.telemetry) : run;
  } finally {
    timer?.clear();
  }
}

/**
 * The loop itself, written once as a synchronous generator that yields its events and the promises it
 * waits for (see `effects.ts`): {@link streamAgent} passes the events on, {@link runAgent} skips them.
 */
function* runLoop(
  callerOptions: AgentOptions,
  deadline: AbortSignal | undefined,
): Effects<AgentEvent, RunResult> {
  const started = performance.now();
  const signal = anySignal(callerOptions.signal, deadline);
  const labels = callerOptions.labels ?? ENGLISH_LABELS;
  // Object spreads cost about a microsecond each on Node 20, so the hot path builds objects field by field.
  const options: AgentOptions & { labels: LabelSet } = Object.assign({}, callerOptions, { labels });
  if (signal) options.signal = signal;
  const { model } = options;
  const conversation = readConversation(callerOptions);
  const { question } = conversation;
  const router = createToolRouter(options.tools);
  const plan = planRequests(options, labels, options.tools, conversation);
  const budget = new Budget(options);
  // A run that ends on its own clock stops with `budget`, not `aborted`.
  const stopped = (): RunResult =>
    deadline?.aborted && !callerOptions.signal?.aborted
      ? finish('budget', { error: `time budget: the run took longer than ${callerOptions.timeoutMs} ms.` })
      : finish('aborted', { error: 'The run was aborted.' });
  const { systemPrompt } = plan;
  const repeats = new RepeatTracker(options.maxRepeatedActions ?? 3);
  const stopState = { send: true };
  const steps: Step[] = [];
  let usage: RunUsage = {};
  let actionSteps = 0;
  let formatErrors = 0;
  const finish = (status: StopReason, extra: { answer?: string; error?: string } = {}): RunResult => {
    const result: RunResult = { status } as RunResult;
    if (extra.answer !== undefined) result.answer = extra.answer;
    if (extra.error !== undefined) result.error = extra.error;
    result.question = question;
    result.messages = conversationAfter(callerOptions, extra.answer, trajectoryOf(options, steps));
    result.modelId = model.id;
    result.steps = steps;
    result.usage = usage;
    if (budget.costUsd !== undefined) result.costUsd = budget.costUsd;
    result.durationMs = Math.round(performance.now() - started);
    return result;
  };
  yield { type: 'run-start', question, modelId: model.id, tools: [...router.names], systemPrompt };

  let result: RunResult | undefined;
  while (!result) {
    if (signal?.aborted) {
      result = stopped();
      break;
    }
    if (actionSteps >= (options.maxSteps ?? DEFAULT_MAX_STEPS)) {
      result = finish('max_steps');
      break;
    }
    const index = steps.length + 1;
    const request = buildRequest(plan, options, steps, stopState.send);
    const overBudget = budget.check(request);
    if (overBudget) {
      result = finish('budget', { error: overBudget });
      break;
    }
    yield { type: 'model-start', step: index };
    const modelStarted = performance.now();
    let response: ModelResponse;
    const callTimer =
      options.modelTimeoutMs === undefined ? undefined : timeoutSignal(options.modelTimeoutMs);
    const callSignal = anySignal(request.signal, callTimer?.signal);
    if (callSignal) request.signal = callSignal;
    try {
      if (options.journal) {
        // A journal records whole results, so the call is not streamed; a resumed run gets the recorded turn.
        // A new call each time the journal runs the effect: it may retry it.
        const turn = () =>
          runToEnd(
            requestTurn(model, request, { stream: false, labels, stopState, cut: !plan.native, step: index }),
          );
        response = yield* awaited(options.journal(`step-${index}-model`, turn));
      } else {
        response = yield* requestTurn(model, request, {
          stream: options.streaming ?? true,
          labels,
          stopState,
          cut: !plan.native,
          step: index,
        });
      }
    } catch (error) {
      result = signal?.aborted ? stopped() : finish('error', { error: modelErrorMessage(error, options) });
      break;
    } finally {
      callTimer?.clear();
    }
    usage = addUsage(usage, response.usage);
    const stepCost = budget.record(request, response.usage, response.text);
    const { text, finishReason } = response;
    const turn = plan.native
      ? nativeTurn(response, options.tools, labels)
      : parseTurn(text, { tools: router.names, labels, finishReason });
    const transcriptText = turn.inventedObservation ? cutTranscriptText(text, labels) : text.trimEnd();
    const modelDurationMs = Math.round(performance.now() - modelStarted);
    const step: Step = {
      index,
      modelText: text,
      transcriptText,
      turn,
      usage: response.usage,
      finishReason,
      modelDurationMs,
    };
    if (stepCost !== undefined) step.costUsd = stepCost;
    const toolCall = plan.native && turn.type === 'action' ? response.toolCalls?.[0] : undefined;
    if (toolCall) step.toolCall = toolCall;
    steps.push(step);
    yield { type: 'model-end', step: index, text, turn, usage: response.usage, finishReason };
    if (turn.inventedObservation) {
      yield {
        type: 'invented-observation',
        step: index,
        droppedText: text.slice(transcriptText.length).trim(),
      };
    }

    switch (turn.type) {
      case 'answer':
        yield { type: 'step-end', step };
        result = finish('answered', { answer: turn.text });
        break;
      case 'none':
        formatErrors += 1;
        step.observation = { text: formatErrorObservation(turn), source: 'format-error', ok: false };
        yield { type: 'step-end', step };
        if (formatErrors >= (options.maxConsecutiveFormatErrors ?? 2)) result = finish('format_errors');
        break;
      case 'action': {
        formatErrors = 0;
        actionSteps += 1;
        const observation = yield* act(turn, index, router, options);
        const repeat = repeats.record(turn.tool, turn.input, observation.text);
        if (repeat.note) observation.text = `${observation.text}\n${repeat.note}`;
        step.observation = observation;
        yield { type: 'step-end', step };
        if (repeat.stop) result = finish('repeated_action');
        break;
      }
      default:
        turn satisfies never;
    }
  }
  yield { type: 'run-end', result };
  return result;
}

/** The summary kept with the answer when `earlierTrajectories` is `'summary'`. */
function trajectoryOf(options: AgentOptions, steps: readonly Step[]): string | undefined {
  return options.earlierTrajectories === 'summary' ? summarizeTrajectory(steps) : undefined;
}

/** Runs a generator to its end and returns its result. */
async function drain<T>(generator: AsyncGenerator<unknown, T>): Promise<T> {
  let next = await generator.next();
  while (!next.done) next = await generator.next();
  return next.value;
}

/** One signal for two (the caller's and a deadline), either of which may be absent. */
function anySignal(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return AbortSignal.any([a, b]);
}

/** A model error worded for the result; a per-call timeout says so. */
function modelErrorMessage(error: unknown, options: AgentOptions): string {
  if (error instanceof Error && error.name === 'TimeoutError') {
    return `The model call failed: no answer within ${options.modelTimeoutMs} ms (modelTimeoutMs).`;
  }
  // A ModelCallError already says "Model call to <id> failed: ...".
  if (error instanceof Error && error.name === 'ModelCallError') return error.message;
  return `The model call failed: ${errorMessage(error)}`;
}

/**
 * Runs the agent to the end and returns its {@link RunResult}.
 *
 * @example
 * ```ts
 * const result = await runAgent({ model, question: 'What is 20 * 12 * 7?', tools: [calculator] });
 * if (result.status === 'answered') console.log(result.answer);
 * ```
 */
export async function runAgent(options: AgentOptions): Promise<RunResult> {
  // Telemetry is a consumer of the events; without it, nothing reads them and the loop runs undriven by
  // an async generator (see `effects.ts`).
  if (options.telemetry) return drain(streamAgent(options));
  const timer = options.timeoutMs === undefined ? undefined : timeoutSignal(options.timeoutMs);
  try {
    return await runToEnd(runLoop(options, timer?.signal));
  } finally {
    timer?.clear();
  }
}
