/**
 * The ReAct loop (Yao et al. 2022): the model writes a Thought and an Action, the program runs the tool and
 * appends the real Observation, until an Answer or a limit. One async generator; {@link runAgent} drains it.
 *
 * @module
 */
import { ModelTimeoutError } from '../models/errors.js';
import { ENGLISH_LABELS } from '../react/labels.js';
import { withTelemetry } from '../telemetry/otel.js';
import { createToolRouter } from '../tools/router.js';
import { anySignal, errorMessage, timeoutSignal } from '../util/own.js';
import { abortedMessage } from '../util/signal.js';
import { Budget } from './budget.js';
import { conversationAfter, readConversation, summarizeTrajectory } from './conversation.js';
import { journaledTurn, newRunId } from './durable.js';
import { type AnsweredBy, callWithFallbacks, usageByModel } from './fallback.js';
import { finalAnswerTurn } from './final-answer.js';
import { observeSteps, type PreparedCall, prepareCall } from './hooks.js';
import { nativeTurn } from './native.js';
import { type ActedStep, actStep } from './native-calls.js';
import { DEFAULT_MAX_ANSWER_CORRECTIONS, judgeAnswer } from './output.js';
import { pausable, type ResumeInput } from './pause.js';
import { RunPaused } from './pause-errors.js';
import { recordedTurn, recorderOf } from './pause-journal.js';
import { RepeatTracker } from './repeats.js';
import { planRequests } from './request.js';
import { repairToolCalls } from './tool-repair.js';
import { maxTurnChars } from './turn-cap.js';
import { formatErrorObservation, ignoredNote, nativeStepText, readTextStep } from './turns.js';
import type {
  AgentEvent,
  AgentOptions,
  PendingApprovalRequest,
  RunResult,
  Step,
  StopReason,
} from './types.js';

/** Default for {@link AgentOptions.maxSteps}. */
export const DEFAULT_MAX_STEPS = 8;

/**
 * Runs the agent, yielding an {@link AgentEvent} for everything that happens, and returns the
 * {@link RunResult} (also carried by the final `run-end` event).
 *
 * Model failures and aborts end the run with status `error` / `aborted` and keep the partial trajectory;
 * tool failures and unusable turns become observations. Caller mistakes (an invalid tool list) throw
 * before any model call. A consumer that stops reading early (`break`) closes the run: a streamed model
 * call is cancelled.
 *
 * @throws {ToolConfigError} for an invalid tool list.
 * @throws {AgentConfigError} for options that cannot work together (native mode on a model without tool calls).
 */
export function streamAgent<O = unknown>(options: AgentOptions<O>): AsyncGenerator<AgentEvent, RunResult<O>> {
  return streamRun(options);
}

/** {@link streamAgent}, or a resumed run's when `resume` is given (`resume.ts`). */
export async function* streamRun<O = unknown>(
  options: AgentOptions<O>,
  resume?: ResumeInput,
): AsyncGenerator<AgentEvent, RunResult<O>> {
  const inner = pausable(react, options as AgentOptions, resume);
  // Outside `pausable`: a resumed run's replayed steps were observed when it paused.
  const loop = options.onStepEnd ? observeSteps(inner, options.onStepEnd) : inner;
  const run = options.telemetry ? withTelemetry(loop, options.telemetry) : loop;
  // Passed on event by event rather than with `yield*`, which would throw a consumer's `throw()` into the
  // loop, where it would read as a failed model call. However the consumer stops, the loop is closed: its
  // `finally` blocks run and a streamed model call is cancelled.
  let finished = false;
  try {
    let next = await run.next();
    while (!next.done) {
      yield next.value;
      next = await run.next();
    }
    finished = true;
    // The loop handles any output type; `O` (from the `output` schema) only types the result for the caller.
    return next.value as RunResult<O>;
  } finally {
    if (!finished) await run.return(undefined as never);
  }
}

/**
 * The loop: check the limits, call the model, read its turn, answer or act, append the observation.
 * Every side effect of a step (the model call, an approval, every tool call, read tools too) passes through
 * `options.journal` when there is one; stop reasons are decided here and nowhere else.
 */
async function* react(callerOptions: AgentOptions): AsyncGenerator<AgentEvent, RunResult> {
  const started = performance.now();
  // The run's own clock (`timeoutMs`) keeps the process alive, so it is cleared however the run ends.
  const clock = callerOptions.timeoutMs === undefined ? undefined : timeoutSignal(callerOptions.timeoutMs);
  try {
    const signal = anySignal(callerOptions.signal, clock?.signal);
    const labels = callerOptions.labels ?? ENGLISH_LABELS;
    const options = { ...callerOptions, labels, ...(signal && { signal }) };
    // The run's ID in each tool call's `callId`; a durable engine passes one that survives a restart.
    if (options.runId === undefined) options.runId = newRunId();
    const maxChars = maxTurnChars(options.maxOutputTokens);
    const { model } = options;
    const models = [model, ...(options.fallbackModels ?? [])];
    const conversation = readConversation(callerOptions);
    const { question } = conversation;
    const router = createToolRouter(options.tools);
    const plan = planRequests(options, labels, options.tools, conversation);
    const budget = new Budget(options);
    budget.register(options); // for nested agents (`agentTool`), which share it
    const repeats = new RepeatTracker(options.maxRepeatedActions ?? 3);
    const stopState = { send: true };
    const steps: Step[] = [];
    let actionSteps = 0;
    let formatErrors = 0;
    let refusedAnswers = 0;
    /** Set while making the last call `forceFinalAnswer` asks for: the limit that ends the run otherwise. */
    let forcing: { status: StopReason; error?: string } | undefined;
    const finish = (status: StopReason, extra: FinishExtra = {}): RunResult => ({
      status,
      ...extra,
      question,
      messages: conversationAfter(callerOptions, extra.answer, trajectoryOf(options, steps)),
      modelId: model.id,
      steps,
      usage: budget.usage,
      ...(models.length > 1 && { usageByModel: usageByModel(model.id, steps) }),
      ...(budget.costUsd !== undefined && { costUsd: budget.costUsd }),
      durationMs: Math.round(performance.now() - started),
    });
    // A run that ends on its own clock stops with `budget`, not `aborted`.
    const stopped = (): RunResult =>
      clock?.signal.aborted && !callerOptions.signal?.aborted
        ? finish('budget', { error: `time budget: the run took longer than ${options.timeoutMs} ms.` })
        : finish('aborted', { error: abortedMessage(callerOptions.signal) });
    yield {
      type: 'run-start',
      question,
      modelId: model.id,
      tools: [...router.names],
      systemPrompt: plan.systemPrompt,
    };

    let result: RunResult | undefined;
    while (!result) {
      // 1. Limits, checked before each model call.
      if (signal?.aborted) {
        result = stopped();
        break;
      }
      const index = steps.length + 1;
      // The step limit is checked before the hooks run (no summary is written for a run that stops here),
      // the budget on the request they prepared (compaction, prepareStep).
      let limit = forcing ? undefined : stepLimit(actionSteps, options);
      let call: PreparedCall | undefined;
      if (!limit) {
        const forced = forcing !== undefined;
        const context = {
          plan,
          options,
          router,
          budget,
          step: index,
          steps,
          sendStop: stopState.send,
          forced,
        };
        try {
          call = yield* prepareCall(context);
        } catch (error) {
          result = signal?.aborted ? stopped() : finish('error', { error: errorMessage(error) });
          break;
        }
        if (!forcing) limit = budgetLimit(budget.check(call.request));
      }
      if (limit && options.forceFinalAnswer && !signal?.aborted) {
        forcing = limit;
        continue; // the next request is the forced one, built from the same steps
      }
      if (limit || !call) {
        result = finish(limit?.status ?? 'error', limit ?? {});
        break;
      }
      const { request, router: stepRouter } = call;

      // 2. The model call. With a journal (the seam a durable engine records side effects through), the
      // call is recorded whole, so it is not streamed, and a resumed run gets the recorded turn.
      yield { type: 'model-start', step: index };
      const modelStarted = performance.now();
      // Each model of the list (the model, then `fallbackModels`) gets its own `modelTimeoutMs` clock; with a
      // journal, the whole journaled call has one (`journaledTurn`).
      const turnOptions = {
        stream: options.streaming ?? true,
        labels,
        stopState,
        cut: !plan.native,
        step: index,
        maxChars,
      };
      let answered: AnsweredBy;
      try {
        answered =
          options.journal && !recorderOf(options.journal)
            ? await journaledTurn(options.journal, index, request, options.modelTimeoutMs, (attempt) =>
                drain(callWithFallbacks(call.models, attempt, { ...turnOptions, stream: false })),
              )
            : yield* recordedTurn(options.journal, index, () =>
                callWithFallbacks(call.models, request, {
                  ...turnOptions,
                  modelTimeoutMs: options.modelTimeoutMs,
                }),
              );
      } catch (error) {
        result = signal?.aborted ? stopped() : finish('error', { error: modelErrorMessage(error, options) });
        break;
      }
      const { modelId } = answered;
      // Native calls that cannot run go to `repairToolCall` first (`tool-repair.ts`).
      const { response, repairs } = plan.native
        ? await repairToolCalls(answered.response, index, request.messages, stepRouter, options)
        : { response: answered.response, repairs: undefined };

      // 3. The turn: parsed (text mode) or read from the tool call (native mode), kept as a step.
      const stepCost = budget.record(request, response.usage, response.text, modelId);
      const { text, finishReason } = response;
      // A streamed and a whole reply are read the same way: the stream cut, then the parser (text mode).
      const reading = plan.native
        ? {
            turn: finalAnswerTurn(response, plan.answer) ?? nativeTurn(response, stepRouter.tools, labels),
            ...nativeStepText(response),
          }
        : readTextStep(response, { tools: stepRouter.names, labels });
      const { turn, transcriptText, reasoning } = reading;
      const toolCall = plan.native && turn.type === 'action' ? response.toolCalls?.[0] : undefined;
      const step: Step = {
        index,
        modelText: text,
        transcriptText,
        turn,
        usage: response.usage,
        finishReason,
        modelDurationMs: Math.round(performance.now() - modelStarted),
        ...(stepCost !== undefined && { costUsd: stepCost }),
        ...(toolCall && { toolCall }),
        ...(reasoning !== undefined && { reasoning }),
        ...(modelId !== model.id && { modelId }),
        ...(repairs && { toolCallRepairs: repairs }),
      };
      steps.push(step);
      yield {
        type: 'model-end',
        step: index,
        text,
        turn,
        usage: response.usage,
        finishReason,
        ...(reasoning !== undefined && { reasoning }),
      };
      if (turn.inventedObservation) {
        const droppedText = 'droppedText' in reading ? (reading.droppedText ?? '') : '';
        yield { type: 'invented-observation', step: index, droppedText };
      }

      // 4. The answer, a format error sent back, or the action run (approval and the tool call
      // pass through `options.journal` too, in `act`) and its observation appended.
      // The forced last call ends the run whatever it gives: an accepted answer, or the limit it stood in for.
      if (forcing && turn.type !== 'answer') {
        yield { type: 'step-end', step };
        result = finish(forcing.status, forcing);
        break;
      }
      switch (turn.type) {
        case 'answer': {
          // Checked against `output` and `checkAnswer`; a refusal goes back as an observation, using no step.
          const verdict = await judgeAnswer(turn.text, steps, options, plan.turnFormat.labels.answer);
          if (!verdict.ok) {
            refusedAnswers += 1;
            step.observation = { text: verdict.observation, source: 'answer-check', ok: false };
            yield { type: 'step-end', step };
            if (forcing) result = finish(forcing.status, forcing);
            else if (refusedAnswers > (options.maxAnswerCorrections ?? DEFAULT_MAX_ANSWER_CORRECTIONS)) {
              const error = `The answer was refused ${refusedAnswers} times; the last time: ${verdict.problem}.`;
              result = finish('format_errors', { error });
            }
            break;
          }
          yield { type: 'step-end', step };
          result = finish('answered', {
            answer: turn.text,
            ...('output' in verdict && { output: verdict.output }),
            ...(forcing && { forced: true }),
          });
          break;
        }
        case 'none':
          formatErrors += 1;
          step.observation = { text: formatErrorObservation(turn), source: 'format-error', ok: false };
          yield { type: 'step-end', step };
          if (formatErrors >= (options.maxConsecutiveFormatErrors ?? 2)) result = finish('format_errors');
          break;
        case 'action': {
          formatErrors = 0;
          actionSteps += 1;
          const calls = plan.native ? (response.toolCalls ?? []) : [];
          let acted: ActedStep;
          try {
            // Every native call is answered; unknown-tool hints and repeat notes go on each call that ran.
            acted = yield* actStep(turn, calls, index, stepRouter, options, { repeats, native: plan.native });
          } catch (error) {
            // A tool call waits for a person (`pauseForApproval`): the run ends here (`pause.ts`).
            if (!(error instanceof RunPaused)) throw error;
            result = finish('paused', { pending: error.pending });
            break;
          }
          const { observation } = acted;
          if (acted.otherCalls) step.otherCalls = acted.otherCalls;
          // Only the first action of a turn runs; the model is told what was not run.
          const ignored = ignoredNote(turn);
          if (ignored) observation.text = `${observation.text}\n${ignored}`;
          step.observation = observation;
          yield { type: 'step-end', step };
          if (acted.stop) result = finish('repeated_action');
          break;
        }
        default:
          turn satisfies never;
      }
    }
    yield { type: 'run-end', result };
    return result;
  } finally {
    clock?.clear();
  }
}

/** What a run's result adds to its status. */
interface FinishExtra {
  answer?: string;
  error?: string;
  output?: unknown;
  forced?: boolean;
  pending?: PendingApprovalRequest[];
}

/** A limit that stops the run before the next model call. */
type Limit = { status: StopReason; error?: string };

/** The step limit, when the run reached it. */
function stepLimit(actionSteps: number, options: AgentOptions): Limit | undefined {
  return actionSteps >= (options.maxSteps ?? DEFAULT_MAX_STEPS) ? { status: 'max_steps' } : undefined;
}

/** The budget limit, when `budget.check` says the next call must not start. */
function budgetLimit(error: string | undefined): Limit | undefined {
  return error === undefined ? undefined : { status: 'budget', error };
}

/** The summary kept with the answer when `earlierTrajectories` is `'summary'`. */
function trajectoryOf(options: AgentOptions, steps: readonly Step[]): string | undefined {
  return options.earlierTrajectories === 'summary' ? summarizeTrajectory(steps) : undefined;
}

/**
 * Runs the agent to the end and returns its {@link RunResult}: {@link streamAgent}, drained.
 *
 * @example
 * ```ts
 * const result = await runAgent({ model, question: 'What is 20 * 12 * 7?', tools: [calculator] });
 * if (result.status === 'answered') console.log(result.answer);
 * ```
 */
export function runAgent<O = unknown>(options: AgentOptions<O>): Promise<RunResult<O>> {
  return drain(streamAgent(options));
}

/** Runs a generator to its end, passing over what it yields, and returns its result. */
export async function drain<T>(generator: AsyncGenerator<unknown, T>): Promise<T> {
  let next = await generator.next();
  while (!next.done) next = await generator.next();
  return next.value;
}

/** A model error worded for the result; a per-call timeout says so. */
function modelErrorMessage(error: unknown, options: AgentOptions): string {
  // A ModelTimeoutError says how far the call got ("no response headers within 120 s").
  if (error instanceof ModelTimeoutError && options.modelTimeoutMs === undefined) {
    return error.message;
  }
  if (error instanceof Error && error.name === 'TimeoutError') {
    const what =
      error instanceof ModelTimeoutError ? error.what : `no answer within ${options.modelTimeoutMs} ms`;
    return `The model call failed: ${what} (modelTimeoutMs: ${options.modelTimeoutMs} ms).`;
  }
  // A ModelCallError already says "Model call to <id> failed: ...".
  if (error instanceof Error && error.name === 'ModelCallError') return error.message;
  return `The model call failed: ${errorMessage(error)}`;
}
