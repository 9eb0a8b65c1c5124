/**
 * The ReAct loop (Yao et al. 2022): the model writes a Thought and an Action, the program runs the tool and
 * appends the real Observation, until an Answer or a limit. One async generator; {@link runAgent} drains it.
 *
 * @module
 */
import { withTelemetry } from '../telemetry/otel.js';
import { errorMessage } from '../util/own.js';
import type { AnsweredBy } from './fallback.js';
import { observeSteps, type PreparedCall } from './hooks.js';
import { type ActedStep, actStep } from './native-calls.js';
import { DEFAULT_MAX_ANSWER_CORRECTIONS, judgeAnswer } from './output.js';
import { pausable, type ResumeInput } from './pause.js';
import { RunPaused } from './pause-errors.js';
import {
  callModel,
  DEFAULT_MAX_STEPS,
  drain,
  finish,
  type Limit,
  modelErrorMessage,
  nextCall,
  readStep,
  startRun,
  stopped,
} from './run.js';
import { formatErrorObservation, ignoredNote } from './turns.js';
import type { AgentEvent, AgentOptions, RunResult } from './types.js';

export { DEFAULT_MAX_STEPS, drain };

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
 * The loop (Yao et al. 2022): check the limits, call the model, read its turn, then answer, send a format
 * error back, or act and append the observation. It waits by `await` (and `yield*` for what streams).
 * Every side effect of a step (the model call in `callModel`, an approval and every tool call in `actStep`,
 * a hook's model call) passes through `options.journal` when there is one. Every stop reason is decided
 * here, in the `finish(...)` calls, and nowhere else.
 */
async function* react(callerOptions: AgentOptions): AsyncGenerator<AgentEvent, RunResult> {
  const run = startRun(callerOptions);
  const { options, plan, steps } = run;
  const { signal } = options;
  try {
    yield {
      type: 'run-start',
      question: run.question,
      modelId: options.model.id,
      tools: [...run.router.names],
      systemPrompt: plan.systemPrompt,
    };
    let result: RunResult | undefined;
    while (!result) {
      // 1. Limits before each model call: the signal, the steps, the budget of the prepared request.
      // With `forceFinalAnswer` a limit buys one last call, without tools, that must answer.
      if (signal?.aborted) {
        result = stopped(run);
        break;
      }
      const index = steps.length + 1;
      let call: PreparedCall | Limit;
      try {
        call = yield* nextCall(run, index);
      } catch (error) {
        result = signal?.aborted ? stopped(run) : finish(run, 'error', { error: errorMessage(error) });
        break;
      }
      if ('status' in call) {
        // A limit met while preparing the forced call itself (a hook's model call over budget) ends the run.
        if (options.forceFinalAnswer && !run.forcing && !signal?.aborted) {
          run.forcing = call;
          continue;
        }
        result = finish(run, call.status, call);
        break;
      }

      // 2. The model call.
      yield { type: 'model-start', step: index };
      const modelStartedMs = performance.now();
      let answered: AnsweredBy;
      try {
        answered = yield* callModel(run, call, index);
      } catch (error) {
        result = signal?.aborted
          ? stopped(run)
          : finish(run, 'error', { error: modelErrorMessage(error, options) });
        break;
      }

      // 3. The turn, kept as a step.
      const { step, droppedText } = yield* readStep(run, call, answered, index, modelStartedMs);
      const { turn } = step;
      steps.push(step);
      yield {
        type: 'model-end',
        step: index,
        text: step.modelText,
        turn,
        usage: step.usage,
        finishReason: step.finishReason,
        ...(step.reasoning !== undefined && { reasoning: step.reasoning }),
      };
      if (turn.inventedObservation)
        yield { type: 'invented-observation', step: index, droppedText: droppedText ?? '' };

      // 4. The answer, a format error sent back, or the action run and its observation appended.
      // The forced last call ends the run whatever it gives: an accepted answer, or the limit it stood in for.
      if (run.forcing && turn.type !== 'answer') {
        yield { type: 'step-end', step };
        result = finish(run, run.forcing.status, run.forcing);
        break;
      }
      switch (turn.type) {
        case 'answer': {
          // Checked against `output` and `checkAnswer`; a refusal goes back as an observation, using no step.
          const verdict = await judgeAnswer(turn.text, steps, options, plan.turnFormat.labels.answer);
          if (!verdict.ok) {
            run.refusedAnswers += 1;
            step.observation = { text: verdict.observation, source: 'answer-check', ok: false };
            yield { type: 'step-end', step };
            if (run.forcing) result = finish(run, run.forcing.status, run.forcing);
            else if (run.refusedAnswers > (options.maxAnswerCorrections ?? DEFAULT_MAX_ANSWER_CORRECTIONS)) {
              const error = `The answer was refused ${run.refusedAnswers} times; the last time: ${verdict.problem}.`;
              result = finish(run, 'format_errors', { error });
            }
            break;
          }
          yield { type: 'step-end', step };
          result = finish(run, 'answered', {
            answer: turn.text,
            ...('output' in verdict && { output: verdict.output }),
            ...(run.forcing && { forced: true }),
          });
          break;
        }
        case 'none':
          run.formatErrors += 1;
          step.observation = { text: formatErrorObservation(turn), source: 'format-error', ok: false };
          yield { type: 'step-end', step };
          if (run.formatErrors >= (options.maxConsecutiveFormatErrors ?? 2))
            result = finish(run, 'format_errors');
          break;
        case 'action': {
          run.formatErrors = 0;
          run.actionSteps += 1;
          const calls = plan.native ? (answered.response.toolCalls ?? []) : [];
          let acted: ActedStep;
          try {
            // Every native call is answered; unknown-tool hints and repeat notes go on each call that ran.
            acted = yield* actStep(turn, calls, index, call.router, options, {
              repeats: run.repeats,
              native: plan.native,
            });
          } catch (error) {
            // A tool call waits for a person (`pauseForApproval`): the run ends here (`pause.ts`).
            if (!(error instanceof RunPaused)) throw error;
            result = finish(run, 'paused', { pending: error.pending });
            break;
          }
          const { observation } = acted;
          if (acted.otherCalls) step.otherCalls = acted.otherCalls;
          // Only the first action of a turn runs; the model is told what was not run.
          const ignored = ignoredNote(turn);
          if (ignored) observation.text = `${observation.text}\n${ignored}`;
          step.observation = observation;
          yield { type: 'step-end', step };
          if (acted.stop) result = finish(run, 'repeated_action');
          break;
        }
        default:
          turn satisfies never;
      }
    }
    yield { type: 'run-end', result };
    return result;
  } finally {
    run.clock?.clear();
  }
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
