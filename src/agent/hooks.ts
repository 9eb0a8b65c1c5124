/**
 * Step hooks: `prepareStep` may change the next model call (model, tools offered, extra instructions, the
 * messages, sampling settings), after the run's compaction strategy (itself a `prepareStep` function, see
 * `compaction.ts`); `onStepEnd` observes each finished step. Shapes follow the AI SDK's `prepareStep` and
 * `onStepFinish` (https://ai-sdk.dev/docs/agents/loop-control) where they fit the ReAct loop.
 *
 * @module
 */
import type { Model, ModelMessage, ModelRequest, ModelResponse } from '../models/types.js';
import { createToolRouter, type ToolRouter } from '../tools/router.js';
import { errorMessage } from '../util/own.js';
import { markerCompaction } from './compaction.js';
import { recordedCall } from './effects.js';
import { BudgetExceededError } from './errors.js';
import { forceAnswerRequest } from './final-answer.js';
import type {
  OnStepEndFunction,
  PrepareStepFunction,
  PrepareStepOptions,
  PrepareStepResult,
} from './hook-types.js';
import type { RunSettings } from './options.js';
import { buildRequest, renderStepMessages, stepSystemPrompt, transcriptBudgetTokens } from './request.js';
import type { Run } from './run.js';
import type { AgentEvent } from './types.js';

export type { OnStepEndFunction, PrepareStepFunction, PrepareStepOptions, PrepareStepResult };

/** The model call a step will make, as the hooks left it. */
export interface NextCall {
  request: ModelRequest;
  /** The models to try in order: the step's model, then `fallbackModels`. */
  models: readonly Model[];
  /** The tools this step offers (the run's router unless `activeTools` narrowed them). */
  router: ToolRouter;
}

/** What the journal records for a hook's model call that failed: the error's message, thrown again on replay. */
interface HookCallFailure {
  hookError: string;
}

/**
 * Builds the step's request and passes it through the compaction strategy, then `prepareStep`. Yields a
 * `hook-model-end` event for each model call a hook made. A hook's `generate` checks the run's budget
 * before each call and throws {@link BudgetExceededError} when there is no room.
 *
 * @throws {Error} `prepareStep failed: ...` (or `compaction failed: ...`) when a hook throws or returns
 * something that cannot be used.
 * @throws {BudgetExceededError} unwrapped, when a hook let its `generate`'s refusal through.
 */
export async function* prepareCall(run: Run, step: number): AsyncGenerator<AgentEvent, NextCall> {
  const { plan, settings: options, steps, budget } = run;
  const forced = run.forcing !== undefined;
  const request = buildRequest(plan, options, steps, run.stopState.send);
  const prepared: NextCall = {
    request,
    models: [options.model, ...(options.fallbackModels ?? [])],
    router: run.router,
  };
  const events: AgentEvent[] = [];
  let calls = 0;
  const args = (): PrepareStepOptions => ({
    step,
    steps,
    model: options.model,
    messages: request.messages,
    tools: prepared.router.tools,
    transcriptBudgetTokens: transcriptBudgetTokens(plan, options),
    forced,
    ...(options.signal && { signal: options.signal }),
    renderMessages: (changed) => renderStepMessages(plan, changed),
    generate: async (model, hookRequest, purpose) => {
      // Checked like the run's own calls, before the call; a refused call is not journaled (a replay
      // re-checks it on the same budget and refuses it again).
      const over = budget.check(hookRequest);
      if (over !== undefined) throw new BudgetExceededError(over);
      calls += 1;
      const name = `step-${step}-hook-${calls}`;
      // A failed call is recorded too (`{ hookError }`), so a hook that catches it and goes on replays the
      // same way on resume; unrecorded, it left a gap that cut the paused state short. An abort ends the run.
      const recorded = await recordedCall(
        run.effects,
        name,
        async (): Promise<ModelResponse | HookCallFailure> => {
          try {
            return await model.generate({
              ...hookRequest,
              ...(options.signal && { signal: options.signal }),
            });
          } catch (error) {
            if (options.signal?.aborted) throw error;
            return { hookError: errorMessage(error) };
          }
        },
      );
      if ('hookError' in recorded) throw new Error(recorded.hookError);
      const response = recorded;
      const costUsd = budget.record(hookRequest, response.usage, response.text, model.id);
      events.push({
        type: 'hook-model-end',
        step,
        modelId: model.id,
        text: response.text,
        usage: response.usage,
        ...(purpose !== undefined && { purpose }),
        ...(costUsd !== undefined && { costUsd }),
      });
      return response;
    },
  });
  const compaction = options.compaction === undefined ? markerCompaction() : options.compaction;
  if (compaction) {
    const changes = await runHook('compaction', compaction, args());
    yield* events.splice(0);
    if (changes?.messages) {
      // What the compaction left as it was, from the start, stays so in later requests (a strategy shortens
      // from the oldest observations on): the provider's cache may keep it across compactions.
      const stable = sharedPrefix(request.messages, changes.messages);
      request.messages = changes.messages;
      if (stable >= 2 && stable < changes.messages.length) request.stablePrefixMessages = stable;
    }
  }
  if (forced) forceAnswerRequest(request, plan.labels, plan.answer);
  if (options.prepareStep) {
    const changes = await runHook('prepareStep', options.prepareStep, args());
    yield* events.splice(0);
    if (changes) applyChanges(run, prepared, changes);
  }
  return prepared;
}

/** How many messages, from the start, two message lists have alike (role, text and tool calls). */
function sharedPrefix(a: readonly ModelMessage[], b: readonly ModelMessage[]): number {
  let i = 0;
  while (i < a.length && i < b.length && JSON.stringify(a[i]) === JSON.stringify(b[i])) i++;
  return i;
}

/** Calls a hook; its throw becomes an error naming the hook. */
async function runHook(
  name: 'compaction' | 'prepareStep',
  hook: PrepareStepFunction,
  args: PrepareStepOptions,
): Promise<PrepareStepResult | undefined> {
  try {
    const changes = await hook(args);
    if (changes !== undefined && (typeof changes !== 'object' || changes === null))
      throw new Error(`it returned ${typeof changes}, not an object or undefined`);
    return changes;
  } catch (error) {
    // The budget, not the hook, stops the run: `nextCall` reads it as the `budget` limit.
    if (error instanceof BudgetExceededError) throw error;
    throw new Error(`${name} failed: ${errorMessage(error)}`);
  }
}

/** Applies what `prepareStep` returned to the step's call. @throws {Error} for unusable changes. */
function applyChanges(run: Run, prepared: NextCall, changes: PrepareStepResult): void {
  const { request } = prepared;
  const { plan, settings: options } = run;
  const fail = (problem: string) => new Error(`prepareStep failed: ${problem}`);
  if (changes.messages) {
    if (!Array.isArray(changes.messages)) throw fail('messages must be an array of messages');
    // Messages of the caller's own: what stays the same in later requests is theirs to know, not ours.
    if (changes.messages !== request.messages) delete request.stablePrefixMessages;
    request.messages = changes.messages;
  }
  if (changes.model) {
    if (plan.native && !changes.model.supportsToolCalls)
      throw fail(`the model ${changes.model.id} cannot call tools, and this run is in native mode`);
    prepared.models = [changes.model, ...(options.fallbackModels ?? [])];
  }
  if (changes.temperature !== undefined) request.temperature = changes.temperature;
  if (changes.maxOutputTokens !== undefined) request.maxOutputTokens = changes.maxOutputTokens;
  if (changes.activeTools === undefined && changes.instructions === undefined) return;
  let tools = options.tools;
  if (changes.activeTools !== undefined) {
    const names = changes.activeTools;
    const unknown = names.filter((name) => !run.router.names.includes(name));
    if (unknown.length)
      throw fail(
        `activeTools names ${unknown.join(', ')}, not a tool of this run (${run.router.names.join(', ')})`,
      );
    tools = options.tools.filter((tool) => names.includes(tool.name));
    prepared.router = createToolRouter(tools);
    if (request.tools)
      request.tools = request.tools.filter((t) => !isRunTool(t.name, options) || names.includes(t.name));
    if (request.turnFormat) request.turnFormat = { ...request.turnFormat, tools: tools.map((t) => t.name) };
  }
  const system = stepSystemPrompt(plan, options, tools, changes.instructions);
  if (request.messages[0]?.role === 'system')
    request.messages = [{ role: 'system', content: system }, ...request.messages.slice(1)];
  else request.messages = [{ role: 'system', content: system }, ...request.messages];
}

/** True for one of the run's own tools (not the `final_answer` function of a typed answer). */
function isRunTool(name: string, options: RunSettings): boolean {
  return options.tools.some((tool) => tool.name === name);
}
