/**
 * The types of the step hooks (`hooks.prepareStep`, `hooks.onStepEnd`, `prompt.compaction` strategies);
 * `hooks.ts` runs them.
 *
 * @module
 */
import type { Model, ModelMessage, ModelRequest, ModelResponse, ModelToolCall } from '../models/types.js';
import type { Tool } from '../tools/types.js';
import type { InvalidToolInputError, NoSuchToolError } from './errors.js';
import type { Step } from './types.js';

/** What a {@link PrepareStepFunction} gets: the step about to be made and what it will send. */
export interface PrepareStepOptions {
  /** The step about to be made, 1-based as in events and `Step.index` (the AI SDK's `stepNumber` + 1). */
  step: number;
  /** The steps finished so far. The loop's own list: read it, do not change it. */
  steps: readonly Step[];
  /** The model that will be called (the run's `model`). */
  model: Model;
  /**
   * The messages that will be sent, system prompt first: after the compaction strategy when a hook runs
   * after it. Return a changed copy as `messages` to send something else.
   */
  messages: ModelMessage[];
  /** The tools offered to this step (all of the run's tools unless an earlier hook narrowed them). */
  tools: readonly Tool[];
  /**
   * Tokens the steps' transcript may take in this call: the context window (`prompt.contextWindowTokens`)
   * minus the system prompt, the earlier conversation, the question and room for the reply
   * (`modelSettings.maxOutputTokens`, else 1024), estimated at 4 characters a token. `undefined` when the
   * context window is unknown.
   */
  transcriptBudgetTokens: number | undefined;
  /** True for the last call without tools that `limits.forceFinalAnswer` asks for. */
  forced: boolean;
  /** Aborted when the run is (caller's signal, `limits.timeoutMs`). */
  signal?: AbortSignal | undefined;
  /**
   * Renders the messages of a changed step list (e.g. steps with shortened observations) the way the run
   * renders its own: same system prompt, conversation, question and mode.
   */
  renderMessages(steps: readonly Step[]): ModelMessage[];
  /**
   * Calls a model for the hook (e.g. to write a summary): through the run's journal (a durable or resumed
   * run does not repeat it), counted in the run's usage, cost and budgets, and reported as a
   * `hook-model-end` event. `purpose` names the call in that event. Before the call, the run's token and
   * cost budgets are checked on `request`, as they are before each of the run's own calls: a call they have no room for is
   * not made. A hook that lets that error through ends the run with status `budget` and the budget's
   * reason as `error`; one that catches it may go on without the call (as `summaryCompaction` does).
   * @throws {BudgetExceededError} when the budget has no room for the call; what the model throws.
   */
  generate(model: Model, request: ModelRequest, purpose?: string): Promise<ModelResponse>;
}

/**
 * What a {@link PrepareStepFunction} changes for this step only; a field left out (or `undefined` returned)
 * keeps the run's setting.
 */
export interface PrepareStepResult {
  /**
   * The model for this call; `modelSettings.fallbackModels` still follow it. In native mode it must call
   * tools.
   */
  model?: Model;
  /**
   * Names of the tools offered in this step (the AI SDK's `activeTools`). Text mode renders the system
   * prompt again listing only these; native mode sends only these functions. A call to another tool is
   * answered as an unknown tool.
   * @throws (as a `prepareStep` failure) for a name that is not one of the run's tools.
   */
  activeTools?: readonly string[];
  /** Instructions added to the system prompt for this step, after the run's `instructions`. */
  instructions?: string;
  /** The whole message list to send instead (system prompt first). */
  messages?: ModelMessage[];
  /** Sampling temperature for this call. */
  temperature?: number;
  /** Cap on output tokens for this call. */
  maxOutputTokens?: number;
}

/**
 * Changes the next model call. Runs before every model call of a run (the forced last one too), after the
 * run's compaction strategy (`prompt.compaction`). A throw (or rejection) ends the run with status `error`
 * and `error: 'prepareStep failed: <message>'`.
 */
export type PrepareStepFunction = (
  options: PrepareStepOptions,
) => PrepareStepResult | undefined | Promise<PrepareStepResult | undefined>;

/**
 * Observes a finished step (the same object as the `step-end` event's), before the next model call. The
 * run waits for it; a throw (or rejection) does not change the run: it is reported as a `hook-error` event.
 */
export type OnStepEndFunction = (step: Step) => void | Promise<void>;

/** What a {@link RepairToolCallFunction} gets. */
export interface RepairToolCallOptions {
  /** The step (1-based) whose call failed. */
  step: number;
  /** The call as the model made it (`input` is its JSON arguments text). */
  toolCall: ModelToolCall;
  /** Why it cannot run. */
  error: NoSuchToolError | InvalidToolInputError;
  /** The messages the model was sent for this step, system prompt first. */
  messages: ModelMessage[];
  /** The tools the step offers. */
  tools: readonly Tool[];
  /** The JSON Schema of a tool's arguments (text tools: `{ input: string }`); `undefined` for an unknown tool. */
  inputSchema(options: { toolName: string }): Record<string, unknown> | undefined;
  /**
   * Calls a model for the repair (e.g. to rewrite the arguments), with the run's abort signal: counted in
   * the run's usage, `usageByModel`, cost and budgets, and reported as a `hook-model-end` event (`purpose`
   * names it there; default `'repairToolCall'`). Call models through this: a model the repair calls on its
   * own is not counted. A call is not made when the run's token or cost budget has no room for it.
   * @throws {BudgetExceededError} when the budget has no room (as a hook's `generate` does; a repair that
   * lets it through is recorded as failed with the budget's reason, and the model gets the corrective
   * observation); what the model throws.
   */
  generate(model: Model, request: ModelRequest, purpose?: string): Promise<ModelResponse>;
}

/**
 * Returns the call to run instead (its `id` is kept from the model's call, so the result still answers
 * it), or `null` / `undefined` to leave it to the corrective observation. A throw counts as no repair (and
 * is recorded on the step). Runs through the run's journal, with the usage of the model calls it made
 * through `generate`: a durable or resumed run does not call it again and still counts those calls.
 */
export type RepairToolCallFunction = (
  options: RepairToolCallOptions,
) => ModelToolCall | null | undefined | Promise<ModelToolCall | null | undefined>;
