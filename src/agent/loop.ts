/**
 * The ReAct loop (Yao et al. 2022): the model writes a Thought and an Action, the program runs the tool and
 * appends the real Observation, until an Answer or a limit. One async generator; {@link runAgent} drains it.
 *
 * @module
 */
import { ENGLISH_LABELS } from '../react/labels.js';
import { parseTurn } from '../react/parse.js';
import { renderMessages, renderSystemPrompt, stopSequences } from '../react/prompt.js';
import { createToolRouter } from '../tools/router.js';
import { errorMessage } from '../util/own.js';
import { addUsage, callModel } from './model-call.js';
import { cutTranscriptText, formatErrorObservation } from './turns.js';
import type { AgentEvent, AgentOptions, RunResult, Step, StopReason } from './types.js';

/** Default for {@link AgentOptions.maxSteps}. */
export const DEFAULT_MAX_STEPS = 8;

/**
 * Runs the agent, yielding an {@link AgentEvent} for everything that happens, and returns the
 * {@link RunResult} (also carried by the final `run-end` event).
 *
 * Model failures and aborts end the run with status `error` / `aborted` and keep the partial trajectory;
 * tool failures become observations. Caller mistakes (an invalid tool list) throw before any model call.
 *
 * @throws {ToolConfigError} for an invalid tool list.
 */
export async function* streamAgent(options: AgentOptions): AsyncGenerator<AgentEvent, RunResult> {
  const started = performance.now();
  const labels = options.labels ?? ENGLISH_LABELS;
  const router = createToolRouter(options.tools);
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  const maxFormatErrors = options.maxConsecutiveFormatErrors ?? 2;
  const systemPrompt = renderSystemPrompt({
    tools: options.tools,
    labels,
    instructions: options.instructions,
    examples: options.examples,
  });
  const steps: Step[] = [];
  let usage = {};
  let actionSteps = 0;
  let formatErrors = 0;
  const finish = (status: StopReason, extra: { answer?: string; error?: string } = {}): RunResult => ({
    status,
    ...extra,
    question: options.question,
    modelId: options.model.id,
    steps,
    usage,
    durationMs: Math.round(performance.now() - started),
  });
  yield {
    type: 'run-start',
    question: options.question,
    modelId: options.model.id,
    tools: [...router.names],
    systemPrompt,
  };

  let result: RunResult | undefined;
  while (!result) {
    if (options.signal?.aborted) {
      result = finish('aborted', { error: 'The run was aborted.' });
      break;
    }
    if (actionSteps >= maxSteps) {
      result = finish('max_steps');
      break;
    }
    const index = steps.length + 1;
    const messages = renderMessages({
      systemPrompt,
      question: options.question,
      labels,
      entries: steps.map(toEntry),
    });
    yield { type: 'model-start', step: index };
    const modelStarted = performance.now();
    let response: Awaited<ReturnType<typeof options.model.generate>>;
    try {
      const call = callModel(
        options.model,
        {
          messages,
          stopSequences: stopSequences(labels),
          temperature: options.temperature ?? 0,
          ...(options.maxOutputTokens !== undefined && { maxOutputTokens: options.maxOutputTokens }),
          ...(options.signal && { signal: options.signal }),
        },
        { stream: options.streaming ?? true, labels },
      );
      let next = await call.next();
      while (!next.done) {
        yield { type: 'model-delta', step: index, text: next.value };
        next = await call.next();
      }
      response = next.value;
    } catch (error) {
      result = options.signal?.aborted
        ? finish('aborted', { error: 'The run was aborted.' })
        : finish('error', { error: `The model call failed: ${errorMessage(error)}` });
      break;
    }
    usage = addUsage(usage, response.usage);
    const turn = parseTurn(response.text, {
      tools: router.names,
      labels,
      finishReason: response.finishReason,
    });
    const step: Step = {
      index,
      modelText: response.text,
      transcriptText: cutTranscriptText(response.text, labels),
      turn,
      usage: response.usage,
      finishReason: response.finishReason,
      modelDurationMs: Math.round(performance.now() - modelStarted),
    };
    steps.push(step);
    yield {
      type: 'model-end',
      step: index,
      text: response.text,
      turn,
      usage: response.usage,
      finishReason: response.finishReason,
    };

    switch (turn.type) {
      case 'answer':
        yield { type: 'step-end', step };
        result = finish('answered', { answer: turn.text });
        break;
      case 'none':
        formatErrors += 1;
        step.observation = { text: formatErrorObservation(turn), source: 'format-error', ok: false };
        yield { type: 'step-end', step };
        if (formatErrors >= maxFormatErrors) result = finish('format_errors');
        break;
      case 'action': {
        formatErrors = 0;
        actionSteps += 1;
        yield { type: 'tool-start', step: index, tool: turn.tool, input: turn.input };
        const outcome = await router.call(turn.tool, turn.input, {
          ...(options.signal && { signal: options.signal }),
          ...(options.toolTimeoutMs !== undefined && { timeoutMs: options.toolTimeoutMs }),
        });
        step.observation = {
          text: outcome.observation,
          source: 'tool',
          ok: outcome.ok,
          durationMs: outcome.durationMs,
        };
        yield { type: 'tool-end', step: index, tool: turn.tool, input: turn.input, ...outcome };
        yield { type: 'step-end', step };
        break;
      }
      default:
        turn satisfies never;
    }
  }
  yield { type: 'run-end', result };
  return result;
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
  const run = streamAgent(options);
  let next = await run.next();
  while (!next.done) next = await run.next();
  return next.value;
}

function toEntry(step: Step) {
  return { modelText: step.transcriptText, observation: step.observation?.text };
}
