/**
 * The ReAct loop (Yao et al. 2022): the model writes a Thought and an Action, the program runs the tool and
 * appends the real Observation, until an Answer or a limit. One async generator; {@link runAgent} drains it.
 *
 * @module
 */
import type { Turn } from '../react/turn.js';
import { errorMessage } from '../util/own.js';
import { drain, RecordedEffects } from './effects.js';
import { AgentConfigError, RunPaused } from './errors.js';
import type { NextCall } from './hooks.js';
import { effectName } from './ids.js';
import { type AnsweredBy, modelTurn } from './model-call.js';
import { type ActedStep, actStep } from './native-calls.js';
import { observe, stepObserved } from './observe.js';
import { type AgentConfig, type AgentOptions, runSettings } from './options.js';
import { DEFAULT_MAX_ANSWER_CORRECTIONS, judgeAnswer } from './output.js';
import { finishPause, openResume, type ResumeInput } from './pause.js';
import {
  DEFAULT_MAX_STEPS,
  finish,
  type Limit,
  type ParentLink,
  type Run,
  startRun,
  stopped,
} from './run.js';
import { modelErrorMessage, nextCall, readStep, turnSettings } from './step.js';
import { formatErrorObservation, ignoredNote } from './turns.js';
import type { AgentEvent, AgentMessage, RunResult } from './types.js';

export { DEFAULT_MAX_STEPS, drain };

/**
 * Runs the agent, yielding an {@link AgentEvent} for everything that happens, and returns the
 * {@link RunResult} (also carried by the final `run-end` event).
 *
 * Model failures and aborts end the run with status `error` / `aborted` and keep the partial trajectory;
 * tool failures and unusable turns become observations. Caller mistakes (an unknown option, an invalid tool
 * list) throw before any model call. A consumer that stops reading early (`break`) closes the run: a
 * streamed model call is cancelled.
 *
 * @throws {AgentConfigError} for an option that does not exist (naming the group it belongs to) and for
 * options that cannot work together (`modelSettings.mode: 'native'` on a model without tool calls).
 * @throws {ToolConfigError} for an invalid tool list.
 */
export function streamAgent<O = unknown>(options: AgentOptions<O>): AsyncGenerator<AgentEvent, RunResult<O>> {
  return streamRun(options as AgentConfig) as AsyncGenerator<AgentEvent, RunResult<O>>;
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

/**
 * A run, fresh, resumed (`resume`) or nested in a parent run (`parent`): set up once ({@link startRun}),
 * then the loop's events, each passed to the observers (`hooks.observers`, then `onStepEnd` at a
 * `step-end`) before the consumer sees it. A resumed run does not show again what it replays: those events
 * were seen when it paused (they are in `result.steps`).
 *
 * Events are passed on one by one rather than with `yield*`, which would throw a consumer's `throw()` into
 * the loop, where it would read as a failed model call. However the consumer stops, the loop is closed:
 * its `finally` blocks run and a streamed model call is cancelled.
 */
export async function* streamRun(
  options: AgentConfig & { question?: string | undefined; messages?: readonly AgentMessage[] | undefined },
  link: { resume?: ResumeInput; parent?: ParentLink } = {},
): AsyncGenerator<AgentEvent, RunResult> {
  const settings = runSettings(options);
  const observers = settings.observers ?? [];
  if (!Array.isArray(observers))
    throw new AgentConfigError(
      '`hooks.observers` must be an array of observers: [{ event(event) { ... } }].',
    );
  const resume = link.resume && (await openResume(settings, link.resume));
  const run = startRun(settings, { ...(resume && { resume }), ...(link.parent && { parent: link.parent }) });
  const { onStepEnd } = settings;
  const { signal } = run.settings;
  const loop = react(run);
  let finished = false;
  try {
    for (;;) {
      let next: IteratorResult<AgentEvent, RunResult>;
      try {
        next = await loop.next();
      } catch (error) {
        throw brokenReplay(run) ?? error;
      }
      if (next.done) {
        finished = true;
        return next.value;
      }
      const event = next.value;
      // What a resumed run replays was seen when it paused (a nested run's too, replayed with its parent).
      if (run.effects.replaying && event.type !== 'run-start' && event.type !== 'run-end') continue;
      // A run that paused gets its state here, and a `run-pause` event before its `run-end`.
      const pause = event.type === 'run-end' ? await finishPause(run, event.result) : undefined;
      for (const delivered of pause ? [pause, event] : [event]) {
        for (const observer of observers) await observe(() => observer.event(delivered), signal);
        const failure =
          delivered.type === 'step-end' && onStepEnd
            ? await stepObserved(onStepEnd, delivered.step, signal)
            : undefined;
        yield delivered;
        if (failure === undefined || delivered.type !== 'step-end') continue;
        const hookError: AgentEvent = {
          type: 'hook-error',
          step: delivered.step.index,
          hook: 'onStepEnd',
          error: failure,
        };
        for (const observer of observers) await observe(() => observer.event(hookError), signal);
        yield hookError;
      }
    }
  } finally {
    if (!finished) {
      // Not waited for: the run is over.
      for (const observer of observers) await observe(() => observer.abandon?.(), 'ended');
      await loop.return(undefined as never);
    }
  }
}

/** A copy of a turn (its one array too): the loop acts on its own, whatever a reader does to the event's. */
function turnCopy(turn: Turn): Turn {
  if (turn.type !== 'action' || turn.ignoredActions === undefined) return { ...turn };
  return { ...turn, ignoredActions: [...turn.ignoredActions] };
}

/** The error of a resumed run that stopped following its recorded journal, if it did. */
function brokenReplay(run: Run): Error | undefined {
  return run.effects instanceof RecordedEffects ? run.effects.broken : undefined;
}

/**
 * The loop (Yao et al. 2022): check the limits, call the model, read its turn, then answer, send a format
 * error back, or act and append the observation. It waits by `await` (and `yield*` for what streams).
 * Every side effect of a step (its model call, a hook's, an approval, a tool call) goes through
 * `run.effects`. Every stop reason is decided here, in the `finish(...)` calls, and nowhere else.
 */
async function* react(run: Run): AsyncGenerator<AgentEvent, RunResult> {
  const { settings, plan, steps } = run;
  const { signal } = settings;
  try {
    yield {
      type: 'run-start',
      question: run.question,
      modelId: settings.model.id,
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
      let call: NextCall | Limit;
      try {
        call = yield* nextCall(run, index);
      } catch (error) {
        result = signal?.aborted ? stopped(run) : finish(run, 'error', { error: errorMessage(error) });
        break;
      }
      if ('status' in call) {
        // A limit met while preparing the forced call itself (a hook's model call over budget) ends the run.
        if (settings.forceFinalAnswer && !run.forcing && !signal?.aborted) {
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
        answered = yield* run.effects.model(effectName(index, 'model'), () =>
          modelTurn(call.models, call.request, turnSettings(run, call, index)),
        );
      } catch (error) {
        result = signal?.aborted
          ? stopped(run)
          : finish(run, 'error', { error: modelErrorMessage(error, settings.modelTimeoutMs) });
        break;
      }

      // 3. The turn, kept as a step.
      const { step, droppedText } = yield* readStep(run, call, answered, index, modelStartedMs);
      const { turn } = step;
      steps.push(step);
      // A copy: the loop acts on `turn`, whatever a reader of the event does to its own.
      yield {
        type: 'model-end',
        step: index,
        text: step.modelText,
        turn: turnCopy(turn),
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
          const verdict = await judgeAnswer(turn.text, steps, settings, plan.turnFormat.labels.answer);
          if (!verdict.ok) {
            run.refusedAnswers += 1;
            step.observation = { text: verdict.observation, source: 'answer-check', ok: false };
            yield { type: 'step-end', step };
            if (run.forcing) result = finish(run, run.forcing.status, run.forcing);
            else if (run.refusedAnswers > (settings.maxAnswerCorrections ?? DEFAULT_MAX_ANSWER_CORRECTIONS)) {
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
          if (run.formatErrors >= (settings.maxConsecutiveFormatErrors ?? 2))
            result = finish(run, 'format_errors');
          break;
        case 'action': {
          run.formatErrors = 0;
          run.actionSteps += 1;
          const calls = plan.native ? (answered.response.toolCalls ?? []) : [];
          let acted: ActedStep;
          try {
            // Every native call is answered; unknown-tool hints and repeat notes go on each call that ran.
            acted = yield* actStep(run, turn, calls, index, call.router);
          } catch (error) {
            // A tool call waits for a person (`pauseForApproval`): the run ends here (`pause.ts`).
            if (!(error instanceof RunPaused)) throw error;
            result = finish(run, 'paused', { pending: error.pending });
            break;
          }
          const { observation } = acted;
          if (acted.otherCalls) step.otherCalls = acted.otherCalls;
          if (acted.callsOverLimit) step.callsOverLimit = acted.callsOverLimit;
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
