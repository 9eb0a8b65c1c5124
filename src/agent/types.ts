/**
 * Types of the agent loop: options in, events out, one result at the end.
 *
 * @module
 */

import type { Tracer } from '@opentelemetry/api';
import type { PriceTable } from '../models/pricing.js';
import type { FinishReason, Model, ModelRetry, ModelToolCall, ModelUsage } from '../models/types.js';
import type { FewShotExample } from '../react/examples.js';
import type { LabelSet } from '../react/labels.js';
import type { Turn } from '../react/turn.js';
import type { Tool, ToolEffects } from '../tools/types.js';
import type { AgentMessage } from './conversation.js';
import type { OnStepEndFunction, PrepareStepFunction, RepairToolCallFunction } from './hook-types.js';
import type { AnswerCheck, OutputSchema } from './output.js';

/** A tool call waiting for a person's (or a policy's) decision. */
export interface ApprovalRequest {
  /**
   * Names this request: `<run id>/step-<n>/call-<k>` (`k` counts the step's tool calls from 1). A decision
   * on a paused run ({@link ResumeOptions.decisions}) is keyed by it; it is the approval id of the UI stream.
   */
  id: string;
  step: number;
  tool: string;
  /** The input as the model wrote it (JSON text for schema tools). */
  input: string;
  effects: ToolEffects;
  /** Fires when the run is aborted while the request waits. */
  signal?: AbortSignal;
}

/**
 * A decision on an {@link ApprovalRequest}: run it, refuse it (the model is told the user rejected the
 * action), or run it with an edited input (validated again like the model's).
 */
export type ApprovalDecision =
  | { type: 'approve' }
  | { type: 'reject'; reason?: string }
  | { type: 'edit'; input: string };

/**
 * The seam every side effect of a step passes through: the model call, the approval and the tool call.
 * A durable engine (Restate's `ctx.run`) records each result under `name` so that a resumed run gets the
 * recorded result instead of repeating the effect. Results must be JSON-serialisable.
 */
export type Journal = <T>(name: string, effect: () => Promise<T>) => Promise<T>;

/**
 * What an {@link ApproveFn} answers to end the run `paused` instead of deciding now: the request goes to
 * `result.pending` and the run can be resumed later, in any process, with `resumeAgent`. Only honoured
 * when the run has no `journal` (a durable engine waits for approvals itself); elsewhere it is a rejection.
 */
export interface PauseAnswer {
  type: 'pause';
}

/**
 * Decides approval requests, or answers {@link PauseAnswer} to pause the run. Only an object whose own
 * `type` is exactly `'approve'` approves. A returned native `Promise` is awaited; any other value (a
 * thenable too) is read as it is, by its own fields.
 */
export type ApproveFn = (
  request: ApprovalRequest,
) => ApprovalDecision | PauseAnswer | Promise<ApprovalDecision | PauseAnswer>;

/** An approval a paused run waits for: the {@link ApprovalRequest} as plain data (no signal). */
export interface PendingApprovalRequest {
  /** The request's id ({@link ApprovalRequest.id}); a decision on resume is keyed by it. */
  id: string;
  step: number;
  tool: string;
  /** The input as the model wrote it (JSON text for schema tools). */
  input: string;
  effects: ToolEffects;
}

/** One completed side effect of a run as its journal recorded it: the effect's name and its result. */
export interface RunJournalEntry {
  /** `step-<n>-model`, `step-<n>-approval` or `step-<n>-tool`. */
  name: string;
  /** The recorded result (JSON data): a model turn, an approval decision or a tool call's observation. */
  value: unknown;
}

/** Version of {@link RunState} this taoloop writes and reads. */
export const RUN_STATE_VERSION = 1;

/**
 * The state of a paused run: plain JSON data, to keep anywhere (a database row, a file, a signed value
 * sent to a browser) and give to `resumeAgent`. It holds the conversation the run started from and the
 * journal of its completed side effects (model turns, approval decisions, tool observations), so a resumed
 * run replays them instead of making them again, and the approvals it waits for.
 *
 * A state of another `version` is refused, never misread. With `secret`, `signature` is an HMAC-SHA256
 * of the rest (keys sorted), and a state whose signature does not match is refused.
 */
export interface RunState {
  format: 'taoloop-run-state';
  /** {@link RUN_STATE_VERSION} when written. */
  version: number;
  /** The run's id: tool call ids (`callId`) and approval ids stay the same after a resume. */
  runId: string;
  /** The conversation the run started from (the question as a user message, or `messages`). */
  messages: AgentMessage[];
  /** The run's completed side effects, in the order they happened. */
  journal: RunJournalEntry[];
  /** The approvals the run waits for. */
  pending: PendingApprovalRequest[];
  /** When the run paused (ISO 8601). */
  pausedAt: string;
  /**
   * `true` when the run paused with `pauseForApproval`: a native step's approvals were asked together, and
   * a resume asks them so again, whatever its own options say. Absent when `approve` paused the run (one
   * request at a time).
   */
  approvalsTogether?: true;
  /** With a `secret`: `hmac-sha256:<base64url>` over the rest of the state. */
  signature?: string;
}

/**
 * Why a run ended. A closed union: `answered` is the only status with an answer.
 * - `max_steps`: the step limit was reached without an answer.
 * - `format_errors`: too many model turns in a row could not be parsed.
 * - `repeated_action`: the model kept repeating the same action and getting the same observation.
 * - `budget`: the next model call would start over `maxTokens` or `maxCostUsd`, or `timeoutMs` passed.
 * - `aborted`: the caller's signal fired (Ctrl-C in the CLI).
 * - `error`: the model failed (after its retries); `error` on the result says why.
 * - `paused`: a tool call waits for a decision (`pauseForApproval`, or `approve` answered `pause`);
 *   `pending` and `state` on the result say which, and `resumeAgent` goes on from there.
 */
export type StopReason =
  | 'answered'
  | 'max_steps'
  | 'format_errors'
  | 'repeated_action'
  | 'budget'
  | 'aborted'
  | 'error'
  | 'paused';

/**
 * OpenTelemetry for a run: spans go to `tracer` (from your SDK setup, or `otlpTracer`), following the
 * GenAI semantic conventions (see `withTelemetry`).
 */
export interface TelemetryOptions {
  tracer: Tracer;
  /** `gen_ai.agent.name`. @default 'taoloop' */
  agentName?: string;
}

/**
 * Options for {@link streamAgent} and {@link runAgent}. `O` is the type of a typed answer (`output`).
 * Give the task as `question` or as the conversation so far (`messages`), not both.
 */
export interface AgentOptions<O = unknown> {
  /** The model to call. */
  model: Model;
  /**
   * The question or task. Same as `messages: [{ role: 'user', content: question }]`.
   * @default none: give `question` or `messages`
   */
  question?: string;
  /**
   * The conversation so far, ending with the user's question: user and assistant turns with plain text
   * content (a string or AI SDK text parts, so AI SDK `ModelMessage`s with text fit). Earlier turns are
   * sent to the model as chat messages before the current question; earlier trajectories (tool calls,
   * reasoning, `tool` messages) are not sent again (see `earlierTrajectories`).
   * `RunResult.messages` is this list plus the run's answer, so a follow-up is one spread away.
   * @throws {AgentConfigError} (from the run) for a system message, a user message with an image or file
   * part, or a conversation whose last turn is not the user's.
   * @default none: give `question` or `messages`
   */
  messages?: readonly AgentMessage[];
  /**
   * `'drop'`: earlier answers are sent without the steps behind them. `'summary'`: this run's answer in
   * `RunResult.messages` carries a one-line summary of its actions and observations (`trajectory`), and
   * earlier answers that carry one are sent with it.
   * @default 'drop'
   */
  earlierTrajectories?: 'drop' | 'summary';
  /**
   * A schema for the answer (zod 4 or any Standard Schema). The model writes the answer as JSON (text
   * mode: after `Answer:`; native mode: through a `final_answer` tool; embedded llama.cpp models: under a
   * grammar derived from the schema's JSON Schema). `RunResult.output` is the parsed, validated value.
   * An answer that does not validate is sent back as an observation saying what is wrong, at most
   * `maxAnswerCorrections` times; corrections do not use up `maxSteps`.
   * @default none (the answer is plain text)
   */
  output?: OutputSchema<O>;
  /**
   * Checks on an answer before the run accepts it; one returning a message refuses the answer, and the
   * message goes back to the model as the observation. Refusals count with `maxAnswerCorrections`.
   * @default none (every answer that parses is accepted)
   */
  checkAnswer?: AnswerCheck<O> | readonly AnswerCheck<O>[];
  /**
   * Refused answers (invalid JSON, schema mismatch, a `checkAnswer` refusal) sent back for correction
   * before the run stops with `format_errors`. They do not use up `maxSteps`.
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
  /** Tools the model may call; nothing else runs. */
  tools: readonly Tool[];
  /** Steps (model turns that act or answer) before the run stops with `max_steps`. @default 8 */
  maxSteps?: number;
  /**
   * Unusable turns in a row before the run stops with `format_errors`. Each one is sent back to the model
   * as an observation saying how to fix the format; they do not use up `maxSteps`. @default 2
   */
  maxConsecutiveFormatErrors?: number;
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
   * {@link DEFAULT_PRICES} (yours win). @default {} (only {@link DEFAULT_PRICES})
   */
  prices?: PriceTable;
  /** Wall-clock limit for the whole run in milliseconds; the run stops with `budget`. @default none */
  timeoutMs?: number;
  /**
   * Limit for one model call (each attempt of it, in a durable run) in milliseconds; a call past it
   * fails the run with `error`, saying how far it got (`no response headers within 120 s`, `the stream
   * stalled for 95 s ...`). There is no default:
   * without it a call waits as long as the HTTP client lets it (Node's fetch gives up after 300 s without
   * response headers, or 300 s without body data, and the AI SDK retries twice). The CLI's
   * `--model-timeout` defaults to 2 minutes.
   * @default undefined (no limit of taoloop's own)
   */
  modelTimeoutMs?: number;
  /**
   * Models that take a call when the model before them fails after its own retries (HTTP 5xx, overload,
   * a context-length error, a timeout of `modelTimeoutMs`, a refused connection): the same request goes to
   * the next model, a `model-fallback` event says so, and the step records which model answered
   * (`step.modelId`), so its usage and cost are that model's (`result.usageByModel`). A run that was
   * aborted does not fall back. Each step starts again with the first model.
   * @default [] (no fallback)
   */
  fallbackModels?: readonly Model[];
  /** Sampling temperature (no unit: 0 is the most deterministic; the provider's range, often 0 to 2). @default 0 */
  temperature?: number;
  /**
   * Cap on tokens per model turn, sent to the provider. The loop also cuts a turn on its side at
   * {@link maxTurnChars}, derived from this, so a server that ignores the cap cannot send an unbounded
   * turn. @default undefined (the provider's default)
   */
  maxOutputTokens?: number;
  /** Per-call tool timeout in milliseconds. @default each tool's `timeoutMs`, else 30000 */
  toolTimeoutMs?: number;
  /**
   * Asked before any tool whose effects are not `'read'` (or whose `needsApproval` is true) runs.
   * Without it such calls are rejected: nothing with side effects runs unless someone said yes.
   *
   * The call runs only when the answer is an object whose own `type` is exactly `'approve'` (or an edit
   * whose own `type` is `'edit'` with an own string `input`); anything else is a rejection. Only a native
   * `Promise` returned by `approve` is awaited: any other value, a thenable included, is read as it is, by
   * its own fields (`{ type: 'reject', then() {…} }` is a rejection, whatever its `then` would give).
   *
   * This option, `allowTools`, `pauseForApproval`, `journal` and `secret` (and a tool's `needsApproval`)
   * are read as own properties of the options object: an inherited value (from a prototype, say one that
   * prototype pollution reached) counts as absent, so it never lets a side effect happen.
   * @default none (every call that needs approval is rejected, unless `allowTools` names its tool)
   */
  approve?: ApproveFn;
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
   * @default undefined (states are not signed)
   */
  secret?: string;
  /**
   * Runs each side effect (model call, approval, tool call, read tools included) through a journal, for
   * durable execution: a resumed run gets the recorded results, so it continues from exactly the
   * observations the model saw. What is journaled per call is bounded: the turn (capped at
   * {@link maxTurnChars}), the observation as the model saw it (never a tool's full output) and the
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
   * OpenTelemetry: spans for the run, each model call and each tool call (GenAI semantic conventions).
   * @default undefined (off, no cost)
   */
  telemetry?: TelemetryOptions;
  /** Tools that run without asking, by name, or `'all'`. @default [] */
  allowTools?: readonly string[] | 'all';
  /**
   * Ends the run with status `aborted`, cancelling the model request or tool in flight. The result's
   * `error` gives the abort's reason when it has one (`controller.abort(new Error('the user left'))`:
   * `The run was aborted: the user left.`). @default none (the run is not abortable from outside)
   */
  signal?: AbortSignal;
  /** Protocol labels. @default ENGLISH_LABELS */
  labels?: LabelSet;
  /** Extra instructions appended to the system prompt. @default none */
  instructions?: string;
  /** Few-shot examples, rendered in `labels` (structured) or used as written (string). @default none (zero-shot) */
  examples?: string | readonly FewShotExample[];
  /**
   * Language for the content of thoughts and answers when the labels stay English, e.g. `'Portuguese'`.
   * @default none (the prompt asks for no particular language)
   */
  contentLanguage?: string;
  /**
   * The model's context window in tokens. When the transcript would not fit, the `compaction` strategy
   * shortens it (by default the oldest observations become a marker; never the system prompt, the
   * question or the latest step).
   * @default the model's `contextWindowTokens`, else a known value for the model id, else no limit
   */
  contextWindowTokens?: number;
  /**
   * How the transcript is kept inside `contextWindowTokens`: a {@link PrepareStepFunction} that runs
   * before each model call, ahead of `prepareStep`. `markerCompaction()` shortens the oldest observations
   * to a marker; `summaryCompaction({ model })` replaces old observations with a summary that model
   * writes. `false` sends every step whole (a call may then pass the window).
   * @default markerCompaction()
   */
  compaction?: PrepareStepFunction | false;
  /**
   * Changes the next model call: the model, the tools offered (`activeTools`), extra `instructions`, the
   * `messages`, `temperature`, `maxOutputTokens`, for that call only (the AI SDK's `prepareStep`). Runs
   * before every model call, after `compaction`. A throw ends the run with status `error` and
   * `error: 'prepareStep failed: <message>'`.
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
   * Let the provider's prompt cache serve the part of each request that the previous one already sent:
   * Anthropic requests carry cache breakpoints (the system prompt and the newest message); OpenAI and
   * OpenAI-compatible servers (llama.cpp server, vLLM) cache the stable prefix on their own. Cached input
   * is billed at the cache prices of the price table. `false` sends no breakpoints.
   * @default true
   */
  promptCaching?: boolean;
  /**
   * Repeats of the same action (tool and input) with the same observation that stop the run with
   * `repeated_action`. Earlier repeats are answered with a note that the action was already done.
   * @default 3
   */
  maxRepeatedActions?: number;
  /** Use the model's `stream()` when it has one, emitting `model-delta` events. @default true */
  streaming?: boolean;
  /**
   * `'text'`: the ReAct text protocol (Thought / Action: tool[input] / Observation), as in the paper.
   * `'native'`: tools are sent as functions and the provider's tool calls are read; thoughts are the text
   * before a call. `'auto'`: native when the model supports tool calling, text otherwise. The loop,
   * limits, approval and trace are the same in every mode.
   * @default 'text'
   */
  mode?: 'text' | 'native' | 'auto';
  /**
   * Native mode, when the model makes several tool calls in one step: how many read tools run at the same
   * time. Tools with side effects always run one at a time, each after its own approval. @default 4
   */
  toolConcurrency?: number;
  /**
   * Native mode: `false` asks for one tool call per step. The request turns parallel tool calls off where
   * the provider has such a setting (the AI SDK's OpenAI `parallelToolCalls: false`, Anthropic
   * `disableParallelToolUse: true`; an OpenAI-compatible server gets `parallel_tool_calls: false`); a
   * provider without one (Google) may still return several, and then the first runs and each other call is
   * answered that it was not run, never dropped without a word. Text mode runs one action per step anyway.
   * @default true (the provider's default: every call of a step runs, see {@link toolConcurrency})
   */
  parallelToolCalls?: boolean;
}

/** Usage summed over a run; a field stays `undefined` when no call reported it. */
export type RunUsage = ModelUsage;

/** What happened after a turn: the tool call and its observation, or the format error sent back. */
export interface StepObservation {
  /** The text the model sees as the next `Observation:`. */
  text: string;
  /**
   * Where it came from: a tool call, the loop reporting a format error, or the loop refusing an answer
   * (`answer-check`: invalid JSON for `output`, a schema mismatch, a `checkAnswer` refusal).
   */
  source: 'tool' | 'format-error' | 'answer-check';
  /** False for format errors and failed tool calls. */
  ok: boolean;
  /** Tool wall time in milliseconds (tool observations only). */
  durationMs?: number;
  /** The tool's whole output, when `text` carries a truncated version. */
  fullText?: string;
  /** The approval decision, when the call needed one. */
  approval?: ApprovalDecision;
}

/** One entry of the trajectory: a model turn and what followed it. The single source of truth of a run. */
export interface Step {
  /** 1-based position in the trajectory (format errors included). */
  index: number;
  /** The model's text as received (before the invented-observation cut). */
  modelText: string;
  /** The model's text as kept in the transcript. */
  transcriptText: string;
  turn: Turn;
  observation?: StepObservation;
  usage: ModelUsage;
  /** Cost of this step's model call in USD, when the price and the token counts are known. */
  costUsd?: number;
  finishReason: FinishReason;
  /** Model call wall time in milliseconds. */
  modelDurationMs: number;
  /** Native mode: the provider's tool call behind this step's action. */
  toolCall?: ModelToolCall;
  /**
   * Native mode: the step's other tool calls, after {@link toolCall}, each with its own observation. Every
   * call a provider returns is answered; none is dropped.
   */
  otherCalls?: StepCall[];
  /**
   * What the model reasoned before the step: reasoning the provider returned apart from the text
   * (`reasoning_content`), then the reply's `<think>` blocks. Kept in the trace, never sent back to the model.
   */
  reasoning?: string;
  /** The model that answered this step, when a fallback did (absent: the run's model). */
  modelId?: string;
  /** Native mode with `repairToolCall`: each call of the step that could not run as made, and its repair. */
  toolCallRepairs?: ToolCallRepair[];
}

/** A native tool call that could not run as the model made it, and what `repairToolCall` did with it. */
export interface ToolCallRepair {
  /** The call as the model made it. */
  original: ModelToolCall;
  /** Why it could not run (unknown tool, invalid input). */
  error: string;
  /** The call run instead; absent when the repair gave none. */
  repaired?: ModelToolCall;
  /** What the repair threw, or why its answer was not a call. */
  repairError?: string;
}

/** One more tool call of a native step, and what came of it. */
export interface StepCall {
  toolCall: ModelToolCall;
  /** The tool name and the input as run (a text tool's `{ "input": ... }` read as its text). */
  tool: string;
  input: string;
  observation: StepObservation;
}

/** The outcome of a run; `O` is the type of the typed answer (`output`). */
export interface RunResult<O = unknown> {
  status: StopReason;
  /** Present only when `status` is `answered`. */
  answer?: string;
  /** The answer parsed and validated by `output`, when the run had one and `status` is `answered`. */
  output?: O;
  /**
   * True when the answer came from the last call without tools that `forceFinalAnswer` asked for after a
   * step or budget limit, not from the model finishing on its own.
   */
  forced?: boolean;
  /** The current question (the last user message). */
  question: string;
  /** The conversation after the run: the input (`messages`, or `question` as a user message) plus the answer. */
  messages: AgentMessage[];
  modelId: string;
  steps: Step[];
  /**
   * Usage of every model call the run made: its steps, its hooks' and `repairToolCall`'s calls through
   * `generate`, and the calls of nested agents (`agentTool`). A call whose usage the provider did not report
   * adds nothing (a field stays `undefined` until some call reports it). So does a failed attempt (one the
   * AI SDK retried, one a fallback model took over, one cut by `modelTimeoutMs`): providers report no usage
   * for a failed call, though one that broke off mid-stream may have been billed for what it sent.
   */
  usage: RunUsage;
  /**
   * {@link usage} split by the model that made each call, keyed by model id: a step a fallback model answered
   * is that model's, a nested agent's calls are its model's. Summed, the entries give `usage`. Set by every
   * run (`{}` when it made no call); optional for results built by hand.
   */
  usageByModel?: Record<string, RunUsage>;
  /** Total cost in USD, when known for every call (each call at its own model's price). */
  costUsd?: number;
  /** What went wrong, for `error`, `aborted` and `budget`. */
  error?: string;
  /** For `paused`: the approvals the run waits for (a decision for each resumes it). */
  pending?: PendingApprovalRequest[];
  /** For `paused`: what `resumeAgent` needs to continue (JSON data; signed with `secret`). */
  state?: RunState;
  /** Wall time of this run in milliseconds (of a resumed run: since it was resumed). */
  durationMs: number;
}

/**
 * Events emitted by {@link streamAgent}, named `<noun>-<verb>`.
 * `model-end` carries the parsed turn so a front end can print Thought and Action before the tool runs.
 */
export type AgentEvent =
  | { type: 'run-start'; question: string; modelId: string; tools: string[]; systemPrompt: string }
  | { type: 'model-start'; step: number }
  | { type: 'model-delta'; step: number; text: string }
  /** A piece of the reasoning the provider streams apart from the text (`reasoning_content`). */
  | { type: 'reasoning-delta'; step: number; text: string }
  /** A model call failed and the next of `fallbackModels` takes it; text streamed so far is discarded. */
  | { type: 'model-fallback'; step: number; fromModelId: string; toModelId: string; error: string }
  /**
   * Step `step`'s model call failed and is tried again with the same model: the AI SDK's own retries
   * (HTTP 408, 409, 429, 5xx, a lost connection; reported for providers built from a model spec), a model
   * that retries itself through `ModelRequest.onRetry` (the playground's), or taoloop's retry without stop
   * sequences after a server rejected them. It comes before any text of the new attempt. Written to the trace and printed by `taoloop trace` as `retry 1 of 2 after HTTP 503
   * (waited 1.0 s)`; traces written before this event simply have none. Fields: {@link ModelRetry}.
   */
  | ({ type: 'model-retry'; step: number } & ModelRetry)
  | {
      type: 'model-end';
      step: number;
      text: string;
      turn: Turn;
      usage: ModelUsage;
      finishReason: FinishReason;
      /** The step's reasoning ({@link Step.reasoning}), when it has any. */
      reasoning?: string;
    }
  | { type: 'invented-observation'; step: number; droppedText: string }
  /**
   * A tool call waits for a decision. `call` (on these four events) is which of the step's tool calls it
   * is, from 1, when it is not the first (native mode's several calls in one step); absent for the first.
   */
  | { type: 'approval-start'; step: number; call?: number; request: ApprovalRequest }
  | {
      type: 'approval-end';
      step: number;
      call?: number;
      request: ApprovalRequest;
      decision: ApprovalDecision;
    }
  | { type: 'tool-start'; step: number; call?: number; tool: string; input: string }
  | {
      type: 'tool-end';
      step: number;
      call?: number;
      tool: string;
      input: string;
      observation: string;
      ok: boolean;
      durationMs: number;
    }
  | { type: 'step-end'; step: Step }
  /** The run pauses for approvals (status `paused`); `run-end` follows with the same `pending` and `state`. */
  | { type: 'run-pause'; pending: PendingApprovalRequest[]; state: RunState }
  /**
   * A model call a hook made through `generate` (e.g. `summaryCompaction`'s summary, or `repairToolCall`'s
   * call, whose `purpose` defaults to `'repairToolCall'`), counted in the run's usage, `usageByModel`, cost
   * and budgets; `purpose` is the hook's name for it.
   */
  | {
      type: 'hook-model-end';
      step: number;
      modelId: string;
      text: string;
      usage: ModelUsage;
      purpose?: string;
      costUsd?: number;
    }
  /** An observer (`onStepEnd`) threw; the run went on. */
  | { type: 'hook-error'; step: number; hook: 'onStepEnd'; error: string }
  /**
   * An event of a nested agent's run (`agentTool`), passed on as it happens: `path` names the agent tools
   * it comes from, outermost first; `step` is this run's step whose tool call runs the nested agent, and
   * `call` that tool call, from 1, when it is not the step's first (absent for the first).
   */
  | { type: 'agent-event'; step: number; call?: number; path: string[]; event: AgentEvent }
  | { type: 'run-end'; result: RunResult };

/**
 * Options for `resumeAgent` and `streamResumedAgent`: the options of the run that paused (the same model,
 * tools and limits, so that the replayed journal matches), plus its `state` and a decision per pending
 * request. The conversation comes from the state; a `question` or `messages` given too must be the same.
 */
export type ResumeOptions<O = unknown> = AgentOptions<O> & {
  /** `result.state` of the paused run, as stored (parsed JSON). Checked before anything runs. */
  state: RunState;
  /**
   * A decision for each pending request, keyed by its id (`result.pending[i].id`): `{ type: 'approve' }`,
   * `{ type: 'reject', reason? }` or `{ type: 'edit', input }`. Read like an approver's answer, failing
   * closed: anything else (a wrong shape, `true`, `'yes'`) is a rejection.
   * @throws {RunStateError} (from the run) for a decision whose id the state does not wait for (from an
   * earlier pause, or another run), and for a pending request left without a decision.
   */
  decisions: Readonly<Record<string, unknown>>;
};
