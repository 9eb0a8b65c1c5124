/**
 * The options of a run, grouped by who sets them: what nearly every caller writes sits at the top level
 * (model, the question or the conversation, tools, instructions, maxSteps, output, approve, signal); the
 * rest is in five named groups: `limits`, `modelSettings`, `prompt`, `hooks` and `durable`. The loop reads
 * them once, flattened by {@link runSettings} into the {@link RunSettings} of the run.
 *
 * @module
 */

import type { PriceTable } from '../models/pricing.js';
import type { Model } from '../models/types.js';
import type { FewShotExample } from '../react/examples.js';
import type { LabelSet } from '../react/labels.js';
import type { Tool } from '../tools/types.js';
import type { AgentMessage } from './conversation.js';
import { AgentConfigError } from './errors.js';
import type { OnStepEndFunction, PrepareStepFunction, RepairToolCallFunction } from './hook-types.js';
import type { AnswerCheck, OutputSchema } from './output.js';
import type { ApprovalDecision, ApproveFn, Journal, RunObserver, RunState } from './types.js';

/**
 * `limits`: what a run may spend (tokens, money, time), how many mistakes it forgives, and which tools run
 * without asking. Every field is optional; an empty group changes nothing.
 */
export interface AgentLimits {
  /**
   * Token budget for the run (input plus output, as reported; estimated at 4 characters a token when a
   * provider does not report). The run stops with `budget` before a call that would start over it.
   * Format retries count too.
   * @default none (no token budget)
   */
  maxTokens?: number;
  /**
   * Cost budget for the run in USD, from `prices`. The run stops with `budget` before a call whose
   * input alone would go over it.
   * @throws {AgentConfigError} (from the run) when no price is known for the model.
   * @default none (no cost budget)
   */
  maxCostUsd?: number;
  /**
   * Prices in USD per million input and output tokens, by model id or prefix, merged over
   * `DEFAULT_PRICES` (yours win). @default {} (only `DEFAULT_PRICES`)
   */
  prices?: PriceTable;
  /** Wall-clock limit for the whole run in milliseconds; the run stops with `budget`. @default none */
  timeoutMs?: number;
  /**
   * Limit for one model call (each attempt of it, in a durable run) in milliseconds; a call past it
   * fails the run with `error`, saying how far it got, never a time under the limit (`no response headers
   * within 120 s`, `no complete answer within 120 s: the stream stalled for the last 95 s ...`). There is no
   * default:
   * without it a call waits as long as the HTTP client lets it (Node's fetch gives up after 300 s without
   * response headers, or 300 s without body data, and the AI SDK retries twice). The CLI's
   * `--model-timeout` defaults to 2 minutes.
   * @default undefined (no limit of taoloop's own)
   */
  modelTimeoutMs?: number;
  /** Per-call tool timeout in milliseconds. @default each tool's `timeoutMs`, else 30000 */
  toolTimeoutMs?: number;
  /**
   * Unusable turns in a row before the run stops with `format_errors`. Each one is sent back to the model
   * as an observation saying how to fix the format; they do not use up `maxSteps`. @default 2
   */
  maxConsecutiveFormatErrors?: number;
  /**
   * Repeats of the same action (tool and input) with the same observation that stop the run with
   * `repeated_action`. Earlier repeats are answered with a note that the action was already done.
   * @default 3
   */
  maxRepeatedActions?: number;
  /**
   * Refused answers (invalid JSON, schema mismatch, a `hooks.checkAnswer` refusal) sent back for
   * correction before the run stops with `format_errors`. They do not use up `maxSteps`.
   * @default 2
   */
  maxAnswerCorrections?: number;
  /**
   * When the run hits `maxSteps` or its token or cost budget without an answer, make one last model call
   * without tools asking for the best answer from the evidence so far. A usable answer ends the run
   * `answered` with `forced: true` on the result. (A time budget or an abort does not get the call.)
   * @default false
   */
  forceFinalAnswer?: boolean;
  /**
   * Native mode, when the model makes several tool calls in one step: how many read tools run at the same
   * time. Tools with side effects always run one at a time, each after its own approval. @default 4
   */
  toolConcurrency?: number;
  /**
   * Native mode: the most tool calls of one step that run (approvals asked included). A model turn with
   * more gets each call past the limit answered "not run" (the model may call them again in a later step),
   * and the step's trace counts them (`callsOverLimit`), so one flooded turn can neither run a tool
   * thousands of times nor pause with thousands of pending approvals. A whole number of at least 1.
   * @default 16
   */
  maxToolCallsPerStep?: number;
  /** Tools that run without asking, by name, or `'all'`. @default [] */
  allowTools?: readonly string[] | 'all';
}

/**
 * `modelSettings`: how each model call is made: sampling, the cap on a turn, streaming, fallback models,
 * prompt caching, and native tool calling (`mode`, `parallelToolCalls`). Sent with every call of the run.
 */
export interface ModelSettings {
  /** Sampling temperature (no unit: 0 is the most deterministic; the provider's range, often 0 to 2). @default 0 */
  temperature?: number;
  /**
   * Cap on tokens per model turn, sent to the provider. The loop also cuts a turn on its side at
   * `maxTurnChars`, derived from this, so a server that ignores the cap cannot send an unbounded
   * turn. @default undefined (the provider's default)
   */
  maxOutputTokens?: number;
  /** Use the model's `stream()` when it has one, emitting `model-delta` events. @default true */
  streaming?: boolean;
  /**
   * Models that take a call when the model before them fails after its own retries (HTTP 5xx, overload,
   * a context-length error, a timeout of `limits.modelTimeoutMs`, a refused connection): the same request
   * goes to the next model, a `model-fallback` event says so, and the step records which model answered
   * (`step.modelId`), so its usage and cost are that model's (`result.usageByModel`). A run that was
   * aborted does not fall back. Each step starts again with the first model.
   * @default [] (no fallback)
   */
  fallbackModels?: readonly Model[];
  /**
   * Let the provider's prompt cache serve the part of each request that the previous one already sent:
   * Anthropic requests carry cache breakpoints (the system prompt and the newest message); OpenAI and
   * OpenAI-compatible servers (llama.cpp server, vLLM) cache the stable prefix on their own. Cached input
   * is billed at the cache prices of the price table. `false` sends no breakpoints.
   * @default true
   */
  promptCaching?: boolean;
  /**
   * `'text'`: the ReAct text protocol (Thought / Action: tool[input] / Observation), as in the paper.
   * `'native'`: tools are sent as functions and the provider's tool calls are read; thoughts are the text
   * before a call. `'auto'`: native when the model supports tool calling, text otherwise. The loop,
   * limits, approval and trace are the same in every mode.
   * @default 'text'
   */
  mode?: 'text' | 'native' | 'auto';
  /**
   * Native mode: `false` asks for one tool call per step. The request turns parallel tool calls off where
   * the provider has such a setting (the AI SDK's OpenAI `parallelToolCalls: false`, Anthropic
   * `disableParallelToolUse: true`; an OpenAI-compatible server gets `parallel_tool_calls: false`); a
   * provider without one (Google) may still return several, and then the first runs and each other call is
   * answered that it was not run, never dropped without a word. Text mode runs one action per step anyway.
   * @default true (the provider's default: every call of a step runs, see
   * {@link AgentLimits.toolConcurrency | limits.toolConcurrency})
   */
  parallelToolCalls?: boolean;
}

/**
 * `prompt`: how the ReAct prompt is written (labels, few-shot examples, the answer language), how earlier
 * turns of a conversation are sent, and how the transcript is kept inside the context window.
 */
export interface PromptOptions {
  /** Protocol labels. @default ENGLISH_LABELS */
  labels?: LabelSet;
  /** Few-shot examples, rendered in `labels` (structured) or used as written (string). @default none (zero-shot) */
  examples?: string | readonly FewShotExample[];
  /**
   * Language for the content of thoughts and answers when the labels stay English, e.g. `'Portuguese'`.
   * @default none (the prompt asks for no particular language)
   */
  contentLanguage?: string;
  /**
   * `'drop'`: earlier answers are sent without the steps behind them. `'summary'`: this run's answer in
   * `RunResult.messages` carries a one-line summary of its actions and observations (`trajectory`), and
   * earlier answers that carry one are sent with it.
   * @default 'drop'
   */
  earlierTrajectories?: 'drop' | 'summary';
  /**
   * The model's context window in tokens. When the transcript would not fit, the `compaction` strategy
   * shortens it (by default the oldest observations become a marker; never the system prompt, the
   * question or the latest step).
   * @default the model's `contextWindowTokens`, else a known value for the model id, else no limit
   */
  contextWindowTokens?: number;
  /**
   * How the transcript is kept inside `contextWindowTokens`: a {@link PrepareStepFunction} that runs
   * before each model call, ahead of `hooks.prepareStep`. `markerCompaction()` shortens the oldest
   * observations to a marker; `summaryCompaction({ model })` replaces old observations with a summary that
   * model writes. `false` sends every step whole (a call may then pass the window).
   * @default markerCompaction()
   */
  compaction?: PrepareStepFunction | false;
}

/**
 * `hooks`: functions the run calls at set points: before each model call (`prepareStep`), after each step
 * (`onStepEnd`), on each answer (`checkAnswer`), on a native tool call that cannot run (`repairToolCall`),
 * and on every event (`observers`, e.g. `openTelemetry({ tracer })`).
 */
export interface AgentHooks<O = unknown> {
  /**
   * Changes the next model call: what it returns (a `PrepareStepResult`) sets the model, the tools offered
   * (`activeTools`), extra `instructions`, the `messages`, `temperature`, `maxOutputTokens`, for that call
   * only (the AI SDK's `prepareStep`). Runs before every model call, after `prompt.compaction`. A throw ends
   * the run with status `error` and `error: 'prepareStep failed: <message>'`.
   * @default undefined (every call as the options say)
   */
  prepareStep?: PrepareStepFunction;
  /**
   * Observes each finished step (the `step-end` event's step) before the next model call; the run waits
   * for it. A throw does not break the run: it is reported as a `hook-error` event.
   * @default undefined
   */
  onStepEnd?: OnStepEndFunction;
  /**
   * Checks on an answer before the run accepts it; one returning a message refuses the answer, and the
   * message goes back to the model as the observation. Refusals count with `limits.maxAnswerCorrections`.
   * @default none (every answer that parses is accepted)
   */
  checkAnswer?: AnswerCheck<O> | readonly AnswerCheck<O>[];
  /**
   * Native mode: fixes a tool call that names an unknown tool or whose input does not validate, before the
   * model is told what was wrong (the AI SDK's `experimental_repairToolCall`). It gets the call, the error
   * (`NoSuchToolError` or `InvalidToolInputError`), the step's messages and tools, and `generate` to call a
   * model (counted in the run's usage, `usageByModel`, cost and budgets), and returns the call to run
   * instead (for example one a second model wrote) or `null`. A repaired call that still cannot run,
   * `null` and a throw all get the usual corrective observation; each attempt is kept on the step
   * (`toolCallRepairs`). Ignored in text mode.
   * @default undefined (no repair)
   */
  repairToolCall?: RepairToolCallFunction;
  /**
   * Observers of the run's events, each called with every event before it is yielded, in order; the run
   * waits for a returned promise. A throw or a rejection is swallowed: an observer never breaks a run.
   * `openTelemetry({ tracer })` is one (spans following the GenAI semantic conventions).
   * @default [] (no observer)
   */
  observers?: readonly RunObserver[];
}

/**
 * `durable`: how a run outlives the process that started it. Pausing for a person (`pauseForApproval`,
 * with a `secret` to sign the state) or a durable engine's journal (`journal`, Restate): the same journal of
 * completed effects serves both, but one run uses one or the other.
 */
export interface DurableOptions {
  /**
   * End the run with status `paused` when a tool call needs approval, instead of asking `approve`: the
   * result carries the request (`pending`) and a JSON-serialisable `state` that `resumeAgent` continues
   * from, in any process and at any later time, without repeating a model or tool call that happened.
   * `approve` can also pause case by case by answering `{ type: 'pause' }`.
   * @throws {AgentConfigError} (from the run) together with `journal` (a durable engine waits for
   * approvals itself).
   * @default false
   */
  pauseForApproval?: boolean;
  /**
   * Signs a paused run's `state` (HMAC-SHA256 through Web Crypto's `crypto.subtle`) and, on resume,
   * refuses a state whose signature does not match (`RunStateError`), or that has none. Use it whenever
   * the state leaves your server (a browser, a queue): an unsigned state is trusted as it is (a recorded
   * rejection edited into an approval is refused only where the run went on without that call). A string of
   * at least 32 characters (e.g. 32 random bytes, base64).
   *
   * A signature says the state came from your server, not whose it is: anyone holding a state signed with
   * this secret can resume it. To tie a state to a user or a conversation, sign with a secret derived for
   * them from the request's authenticated identity (e.g. `` `${process.env.RUN_SECRET}:${userId}` ``), so
   * another user's state fails its signature.
   * @throws {AgentConfigError} (from the run, before anything runs) for a value that is not a string of at
   * least 32 characters.
   * @default undefined (states are not signed)
   */
  secret?: string;
  /**
   * Runs each side effect (model call, approval, tool call, read tools included) through a journal, for
   * durable execution: a resumed run gets the recorded results, so it continues from exactly the
   * observations the model saw. What is journaled per call is bounded: the turn (capped at
   * `maxTurnChars`), the observation as the model saw it (never a tool's full output) and the
   * tool's {@link Tool.snapshot} (restored when a call is replayed). With a journal, model calls are not
   * streamed (a journal records whole results).
   * @default a pass-through that just calls the effect
   */
  journal?: Journal;
  /**
   * Identifies the run in each tool call's `context.callId` (`<runId>:step-<n>`), the idempotency key of
   * tools with external effects. A durable engine passes its run (workflow) ID, which is the same on
   * every attempt. @default a random UUID per run
   */
  runId?: string;
  /**
   * Called with a checkpoint after each completed effect (model call, approval, tool call) of a run that
   * records its effects (a resumed run, one with `pauseForApproval`, or one that may ask `approve`), and,
   * for a resumed run, once before its first new effect, with the decisions it was given. A checkpoint is a
   * {@link RunState} with `checkpoint: true`, signed with `secret`: store it in place of the state it
   * continues (same row, written atomically). The run waits for the returned promise before it makes its
   * next effect, so a process killed at any point leaves a stored checkpoint from which
   * `resumeAgent({ ...options, state: checkpoint })` (no `decisions`) continues, repeating at most the one
   * effect that was in flight (a tool call with the same `context.callId`, so a tool can drop the repeat).
   *
   * While an approved call has not yet run, no checkpoint is taken (a state never holds an approval whose
   * call did not happen): a kill in between continues from the checkpoint before the approval, which gives
   * the same decision again. When it throws or rejects, the run stops before its next effect with
   * `RunStateError` (reason `checkpoint`): continue it from the last checkpoint stored.
   * @throws {AgentConfigError} (from the run) without `secret` (a checkpoint carries decisions already
   * given, so only a signed one is resumed) and together with `journal`.
   * @default undefined (no checkpoints)
   */
  onCheckpoint?: (checkpoint: RunState) => void | Promise<void>;
}

/**
 * The options of a run apart from its input (`question` or `messages`): what an agent is (model, tools,
 * instructions, output) and how it runs. `O` is the type of a typed answer (`output`).
 */
export interface AgentConfig<O = unknown> {
  /** The model to call. */
  model: Model;
  /** Tools the model may call; nothing else runs. */
  tools: readonly Tool[];
  /** Extra instructions appended to the system prompt. @default none */
  instructions?: string;
  /** Steps (model turns that act or answer) before the run stops with `max_steps`. @default 8 */
  maxSteps?: number;
  /**
   * A schema for the answer (zod 4 or any Standard Schema). The model writes the answer as JSON (text
   * mode: after `Answer:`; native mode: through a `final_answer` tool; embedded llama.cpp models: under a
   * grammar derived from the schema's JSON Schema). `RunResult.output` is the parsed, validated value.
   * An answer that does not validate is sent back as an observation saying what is wrong, at most
   * `limits.maxAnswerCorrections` times; corrections do not use up `maxSteps`.
   * @default none (the answer is plain text)
   */
  output?: OutputSchema<O>;
  /**
   * Asked before any tool whose effects are not `'read'` (or whose `needsApproval` is true) runs.
   * Without it such calls are rejected: nothing with side effects runs unless someone said yes.
   *
   * The call runs only when the answer is an object whose own `type` is exactly `'approve'` (or an edit
   * whose own `type` is `'edit'` with an own string `input`); anything else is a rejection. Only a native
   * `Promise` returned by `approve` is awaited: any other value, a thenable included, is read as it is, by
   * its own fields (`{ type: 'reject', then() {…} }` is a rejection, whatever its `then` would give).
   *
   * This option, `limits.allowTools`, `durable.pauseForApproval`, `durable.journal` and `durable.secret`
   * (and a tool's `needsApproval`) are read as own properties of the options object and of its groups: an
   * inherited value (from a prototype, say one that prototype pollution reached) counts as absent, so it
   * never lets a side effect happen.
   * @default none (every call that needs approval is rejected, unless `limits.allowTools` names its tool)
   */
  approve?: ApproveFn;
  /**
   * Ends the run with status `aborted`, cancelling the model request or tool in flight. The result's
   * `error` gives the abort's reason when it has one (`controller.abort(new Error('the user left'))`:
   * `The run was aborted: the user left.`). @default none (the run is not abortable from outside)
   */
  signal?: AbortSignal;
  /** Budgets, mistakes forgiven, and tools that run without asking. @default {} */
  limits?: AgentLimits;
  /** Sampling, streaming, fallback models, prompt caching, native tool calling. @default {} */
  modelSettings?: ModelSettings;
  /** Labels, examples, the answer language, earlier turns, the context window. @default {} */
  prompt?: PromptOptions;
  /** `prepareStep`, `onStepEnd`, `checkAnswer`, `repairToolCall`, `observers`. @default {} */
  hooks?: AgentHooks<O>;
  /** Pause and resume (`pauseForApproval`, `secret`), or a durable engine's `journal`. @default {} */
  durable?: DurableOptions;
}

/** The input of a run: the question, or the conversation so far; exactly one of them. */
export type AgentInput =
  | {
      /**
       * The question or task. Same as `messages: [{ role: 'user', content: question }]`.
       * @default none: give `question` or `messages`
       */
      question: string;
      messages?: never;
    }
  | {
      /**
       * The conversation so far, ending with the user's question: user and assistant turns with plain text
       * content (a string or AI SDK text parts, so AI SDK `ModelMessage`s with text fit). Earlier turns are
       * sent to the model as chat messages before the current question; earlier trajectories (tool calls,
       * reasoning, `tool` messages) are not sent again (see `prompt.earlierTrajectories`).
       * `RunResult.messages` is this list plus the run's answer, so a follow-up is one spread away.
       * @throws {AgentConfigError} (from the run) for a system message, a user message with an image or file
       * part, or a conversation whose last turn is not the user's.
       * @default none: give `question` or `messages`
       */
      messages: readonly AgentMessage[];
      question?: never;
    };

/**
 * Options for {@link streamAgent} and {@link runAgent}: the agent ({@link AgentConfig}) and its input
 * (`question` or `messages`, exactly one). `O` is the type of a typed answer (`output`).
 *
 * @example
 * ```ts
 * const result = await runAgent({
 *   model,
 *   tools: [calculator],
 *   question: 'What is 20 * 12 * 7?',
 *   limits: { maxCostUsd: 0.05 },
 * });
 * ```
 */
export type AgentOptions<O = unknown> = AgentConfig<O> & AgentInput;

/**
 * Options for `resumeAgent` and `streamResumedAgent`: the options of the run that paused (the same model,
 * tools and settings, so that the replayed journal matches), plus its `state` and a decision per pending
 * request. The conversation comes from the state; a `question` or `messages` given too must be the same.
 */
export type ResumeOptions<O = unknown> = AgentConfig<O> & {
  question?: string;
  messages?: readonly AgentMessage[];
  /** `result.state` of the paused run, as stored (parsed JSON). Checked before anything runs. */
  state: RunState;
  /**
   * A decision for each pending request, keyed by its id (`result.pending[i].id`): `{ type: 'approve' }`,
   * `{ type: 'reject', reason? }` or `{ type: 'edit', input }`. At run time it is read like an approver's
   * answer, failing closed: anything else (a wrong shape, `true`, `'yes'`) is a rejection.
   * Not given for a checkpoint (`state.checkpoint`), which carries its decisions.
   * @throws {RunStateError} (from the run) for a decision whose id the state does not wait for (from an
   * earlier pause, or another run), for a pending request left without a decision, and for decisions
   * given with a checkpoint.
   */
  decisions?: Readonly<Record<string, ApprovalDecision>>;
};

/** The names of the option groups. */
type GroupName = 'limits' | 'modelSettings' | 'prompt' | 'hooks' | 'durable';

/**
 * The options as the loop reads them: every group flattened into one object (no field is in two groups),
 * with the input (`question` or `messages`) optional, as a resume takes it from the state. Internal: made
 * only by {@link runSettings}.
 */
export type RunSettings<O = unknown> = Omit<AgentConfig<O>, GroupName> &
  AgentLimits &
  ModelSettings &
  PromptOptions &
  AgentHooks<O> &
  DurableOptions & { question?: string; messages?: readonly AgentMessage[] };

/** The fields of each group, and those at the top level. */
const FIELDS = {
  limits: [
    'maxTokens',
    'maxCostUsd',
    'prices',
    'timeoutMs',
    'modelTimeoutMs',
    'toolTimeoutMs',
    'maxConsecutiveFormatErrors',
    'maxRepeatedActions',
    'maxAnswerCorrections',
    'forceFinalAnswer',
    'toolConcurrency',
    'maxToolCallsPerStep',
    'allowTools',
  ],
  modelSettings: [
    'temperature',
    'maxOutputTokens',
    'streaming',
    'fallbackModels',
    'promptCaching',
    'mode',
    'parallelToolCalls',
  ],
  prompt: [
    'labels',
    'examples',
    'contentLanguage',
    'earlierTrajectories',
    'contextWindowTokens',
    'compaction',
  ],
  hooks: ['prepareStep', 'onStepEnd', 'checkAnswer', 'repairToolCall', 'observers'],
  durable: ['pauseForApproval', 'secret', 'journal', 'runId', 'onCheckpoint'],
} as const satisfies {
  limits: readonly (keyof AgentLimits)[];
  modelSettings: readonly (keyof ModelSettings)[];
  prompt: readonly (keyof PromptOptions)[];
  hooks: readonly (keyof AgentHooks)[];
  durable: readonly (keyof DurableOptions)[];
};

/** The top-level options (the groups included). */
export const TOP_LEVEL_OPTIONS = [
  'model',
  'question',
  'messages',
  'tools',
  'instructions',
  'maxSteps',
  'output',
  'approve',
  'signal',
  'limits',
  'modelSettings',
  'prompt',
  'hooks',
  'durable',
] as const satisfies readonly (keyof AgentConfig | 'question' | 'messages')[];

/**
 * Flattens the options of a run into its {@link RunSettings}, reading only own properties (of the options
 * and of each group): an inherited field (say, one that prototype pollution put on `Object.prototype`)
 * counts as absent, so it never grants a permission (`approve`, `limits.allowTools`,
 * `durable.pauseForApproval`, `durable.journal`) or changes a limit.
 *
 * @throws {AgentConfigError} for an option that does not exist, naming the group it belongs to when it
 * is a field of one written at the top level (the options were flat before 0.1.0:
 * `maxTokens` is `limits.maxTokens` now), and for a group that is not an object.
 */
export function runSettings<O>(
  options: AgentConfig<O> & { question?: string | undefined; messages?: readonly AgentMessage[] | undefined },
): RunSettings<O> {
  // Permissions (`approve`, `allowTools`, `pauseForApproval`, `journal`, `secret`) are read from it as own
  // properties (`ownField`): one that is not set is absent, whatever was polluted onto `Object.prototype`.
  const settings: Record<string, unknown> = {};
  if (typeof options !== 'object' || options === null)
    throw new AgentConfigError('The options of a run must be an object: { model, tools, question, ... }.');
  for (const key of Object.keys(options)) {
    const value = (options as unknown as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (isGroup(key)) {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw new AgentConfigError(`\`${key}\` must be an object of options (${FIELDS[key].join(', ')}).`);
      for (const field of Object.keys(value)) {
        if ((value as Record<string, unknown>)[field] === undefined) continue;
        if (!(FIELDS[key] as readonly string[]).includes(field))
          throw new AgentConfigError(unknownOption(`${key}.${field}`, field));
        settings[field] = (value as Record<string, unknown>)[field];
      }
    } else if ((TOP_LEVEL_OPTIONS as readonly string[]).includes(key)) {
      settings[key] = value;
    } else {
      throw new AgentConfigError(unknownOption(key, key));
    }
  }
  return settings as unknown as RunSettings<O>;
}

/**
 * `base` with `overrides` over it, group by group: an override of `limits: { maxTokens }` keeps the
 * base's other limits. Own properties only, as the run reads them.
 */
export function withOverrides<O>(base: AgentConfig<O>, overrides: Partial<AgentConfig<O>>): AgentConfig<O> {
  const merged: Record<string, unknown> = { ...(base as object) };
  for (const key of Object.keys(overrides)) {
    const value = (overrides as Record<string, unknown>)[key];
    const before = merged[key];
    merged[key] = isGroup(key) && isObject(value) && isObject(before) ? { ...before, ...value } : value;
  }
  return merged as unknown as AgentConfig<O>;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isGroup(key: string): key is GroupName {
  return Object.hasOwn(FIELDS, key);
}

/** What to say of an option that does not exist: where it is, when it is a field of a group. */
function unknownOption(written: string, field: string): string {
  if (field === 'telemetry')
    return `Unknown option \`${written}\`: telemetry is an observer now, \`hooks: { observers: [openTelemetry({ tracer })] }\`.`;
  for (const group of Object.keys(FIELDS) as GroupName[]) {
    if ((FIELDS[group] as readonly string[]).includes(field))
      return `Unknown option \`${written}\`: it is \`${group}.${field}\` (options are grouped: ${TOP_LEVEL_OPTIONS.join(', ')}).`;
  }
  if ((TOP_LEVEL_OPTIONS as readonly string[]).includes(field))
    return `Unknown option \`${written}\`: it is \`${field}\`, at the top level.`;
  const dot = written.indexOf('.');
  if (dot > 0 && isGroup(written.slice(0, dot))) {
    const group = written.slice(0, dot) as GroupName;
    return `Unknown option \`${written}\`: the fields of \`${group}\` are ${FIELDS[group].join(', ')}.`;
  }
  return `Unknown option \`${written}\`: the options are ${TOP_LEVEL_OPTIONS.join(', ')}; see AgentOptions.`;
}
