/**
 * Types of the agent loop: options in, events out, one result at the end.
 *
 * @module
 */

import type { FinishReason, ModelRetry, ModelToolCall, ModelUsage } from '../models/types.js';
import type { Turn } from '../react/turn.js';
import type { ToolEffects } from '../tools/types.js';

/** A content part as AI SDK messages carry it; only `text` parts are read. */
export interface AgentMessagePart {
  type: string;
  text?: string;
}

/**
 * One message of a conversation. User and assistant turns carry plain text, as a string or as AI SDK
 * text parts (`[{ type: 'text', text }]`), so AI SDK `ModelMessage`s with text content fit as they are.
 * An assistant message's other parts (reasoning, tool calls) and `tool` messages belong to earlier
 * trajectories: they are kept in the conversation but not sent to the model.
 */
export type AgentMessage =
  | {
      role: 'user' | 'assistant';
      content: string | readonly AgentMessagePart[];
      /**
       * The trajectory behind an assistant answer, summarised (see
       * `prompt.earlierTrajectories`). Set by taoloop on the answer it adds.
       */
      trajectory?: string;
    }
  | { role: 'tool'; content: readonly unknown[] };

/** A tool call waiting for a person's (or a policy's) decision. */
export interface ApprovalRequest {
  /**
   * Names this request: `<run id>/step-<n>/call-<k>` (`k` counts the step's tool calls from 1). A decision
   * on a paused run (`ResumeOptions.decisions`) is keyed by it; it is the approval id of the UI stream.
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
 * A durable engine's journal (`durable.journal`), which every side effect of a step passes through: the model
 * call, the approval and the tool call (through `journaledEffects`, the run's effects then). A durable engine
 * (Restate's `ctx.run`) records each result under `name` so that a resumed run gets the recorded result
 * instead of repeating the effect. Results must be JSON-serialisable.
 */
export type Journal = <T>(name: string, effect: () => Promise<T>) => Promise<T>;

/**
 * What an {@link ApproveFn} answers to end the run `paused` instead of deciding now: the request goes to
 * `result.pending` and the run can be resumed later, in any process, with `resumeAgent`. Only honoured
 * when the run has no `durable.journal` (a durable engine waits for approvals itself); elsewhere it is a
 * rejection.
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
 * The state of a paused run, or a checkpoint of a running one: plain JSON data, to keep anywhere (a
 * database row, a file, a signed value sent to a browser) and give to `resumeAgent`. It holds the
 * conversation the run started from and the journal of its completed side effects (model turns, approval
 * decisions, tool observations), so a resumed run replays them instead of making them again, and the
 * approvals it waits for.
 *
 * A checkpoint (`checkpoint: true`, handed to `durable.onCheckpoint` after each completed effect) also
 * carries the decisions its resume was given, so it is resumed as it is, with no `decisions`: a run killed
 * while it ran continues from its latest checkpoint and repeats at most the one effect that was in flight.
 *
 * A state of another `version` is refused, never misread. With `durable.secret`, `signature` is an
 * HMAC-SHA256 of the rest (keys sorted), and a state whose signature does not match is refused.
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
  /**
   * The approvals the run waits for. In a checkpoint: the requests its resume was given `decisions` for
   * (empty in a checkpoint of a run that was never paused).
   */
  pending: PendingApprovalRequest[];
  /** When the run paused, or when the checkpoint was taken (ISO 8601). */
  pausedAt: string;
  /**
   * `true` in a checkpoint (`durable.onCheckpoint`): the state of a run that was still running, resumed
   * without `decisions`. Only a signed checkpoint is resumed: it carries decisions already given.
   */
  checkpoint?: true;
  /** In a checkpoint of a resumed run: the decision given for each of `pending`, keyed by its id. */
  decisions?: Record<string, ApprovalDecision>;
  /**
   * `true` when the run paused with `durable.pauseForApproval`: a native step's approvals were asked
   * together, and a resume asks them so again, whatever its own options say. Absent when `approve` paused
   * the run (one request at a time).
   */
  approvalsTogether?: true;
  /** With a `durable.secret`: `hmac-sha256:<base64url>` over the rest of the state. */
  signature?: string;
}

/**
 * Why a run ended. A closed union: `answered` is the only status with an answer.
 * - `max_steps`: the step limit was reached without an answer.
 * - `format_errors`: too many model turns in a row could not be parsed.
 * - `repeated_action`: the model kept repeating the same action and getting the same observation.
 * - `budget`: the next model call would start over `limits.maxTokens` or `limits.maxCostUsd`, or
 *   `limits.timeoutMs` passed.
 * - `aborted`: the caller's signal fired (Ctrl-C in the CLI).
 * - `error`: the model failed (after its retries); `error` on the result says why.
 * - `paused`: a tool call waits for a decision (`durable.pauseForApproval`, or `approve` answered `pause`);
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
 * An observer of a run's events (`hooks.observers`): telemetry, logging, metrics. It sees every event
 * before the run's consumer does, and cannot change it.
 */
export interface RunObserver {
  /** Called with each event, in order; the run waits for a returned promise. A throw is swallowed. */
  event(event: AgentEvent): void | Promise<void>;
  /**
   * Called once when the run ends without its `run-end` event (its consumer stopped reading, or it threw),
   * so the observer can close what it has open. A throw is swallowed.
   */
  abandon?(): void;
}

/** Usage summed over a run; a field stays `undefined` when no call reported it. */
export type RunUsage = ModelUsage;

/** What happened after a turn: the tool call and its observation, or the format error sent back. */
export interface StepObservation {
  /** The text the model sees as the next `Observation:`. */
  text: string;
  /**
   * Where it came from: a tool call, the loop reporting a format error, or the loop refusing an answer
   * (`answer-check`: invalid JSON for `output`, a schema mismatch, a `hooks.checkAnswer` refusal).
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
   * Native mode: how many of the step's tool calls were past `limits.maxToolCallsPerStep`; each is in
   * {@link otherCalls}, answered "not run".
   */
  callsOverLimit?: number;
  /**
   * What the model reasoned before the step: reasoning the provider returned apart from the text
   * (`reasoning_content`), then the reply's `<think>` blocks. Kept in the trace, never sent back to the model.
   */
  reasoning?: string;
  /** The model that answered this step, when a fallback did (absent: the run's model). */
  modelId?: string;
  /**
   * Native mode with `hooks.repairToolCall`: each call of the step that could not run as made, and its
   * repair.
   */
  toolCallRepairs?: ToolCallRepair[];
}

/**
 * A native tool call that could not run as the model made it, and what `hooks.repairToolCall` did with it.
 */
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
   * True when the answer came from the last call without tools that `limits.forceFinalAnswer` asked for
   * after a step or budget limit, not from the model finishing on its own.
   */
  forced?: boolean;
  /** The current question (the last user message). */
  question: string;
  /** The conversation after the run: the input (`messages`, or `question` as a user message) plus the answer. */
  messages: AgentMessage[];
  modelId: string;
  steps: Step[];
  /**
   * Usage of every model call the run made: its steps, its hooks' and `hooks.repairToolCall`'s calls
   * through `generate`, and the calls of nested agents (`agentTool`). A call whose usage the provider did
   * not report adds nothing (a field stays `undefined` until some call reports it). So does a failed
   * attempt (one the AI SDK retried, one a fallback model took over, one cut by `limits.modelTimeoutMs`):
   * providers report no usage for a failed call, though one that broke off mid-stream may have been billed
   * for what it sent.
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
  /** For `paused`: what `resumeAgent` needs to continue (JSON data; signed with `durable.secret`). */
  state?: RunState;
  /** Wall time of this run in milliseconds (of a resumed run: since it was resumed). */
  durationMs: number;
}

/**
 * Events emitted by {@link streamAgent}, named `<noun>-<verb>`.
 * `model-end` carries the parsed turn so a front end can print Thought and Action before the tool runs.
 *
 * Events are for reading. What decides what runs is never taken back from them: the turn of `model-end`
 * and the request and decision of the approval events are copies, so changing them changes no action and
 * no approval. `step-end`'s step and `run-end`'s result are the run's own objects (the trajectory the
 * next prompt is rendered from, and what the run returns), shared with observers: do not change them.
 */
export type AgentEvent =
  | { type: 'run-start'; question: string; modelId: string; tools: string[]; systemPrompt: string }
  | { type: 'model-start'; step: number }
  /**
   * A piece of the model's reply as it arrives (`text`, exactly as received), and what of the reply may be
   * shown now (`shown`, to append to what was shown before): the same text without the start of an
   * observation the model invents, and holding back an unfinished last line that may still become a label
   * (`Obs`), in the run's labels. Front ends show `shown`; `text` is for traces and debugging.
   */
  | { type: 'model-delta'; step: number; text: string; shown: string }
  /** A piece of the reasoning the provider streams apart from the text (`reasoning_content`). */
  | { type: 'reasoning-delta'; step: number; text: string }
  /**
   * A model call failed and the next of `modelSettings.fallbackModels` takes it; text streamed so far is
   * discarded.
   */
  | { type: 'model-fallback'; step: number; fromModelId: string; toModelId: string; error: string }
  /**
   * Step `step`'s model call failed and is tried again with the same model: the AI SDK's own retries
   * (HTTP 408, 409, 429, 5xx, a lost connection; reported for providers built from a model spec), a model
   * that retries itself through `ModelRequest.onRetry`, or taoloop's retry without stop
   * sequences after a server rejected them. It comes before any text of the new attempt. Written to the trace and printed by `taoloop trace` as `retry 1 of 2 after HTTP 503
   * (waited 1.0 s)`; traces written before this event simply have none. Fields: `ModelRetry`.
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
   * A model call a hook made through `generate` (e.g. `summaryCompaction`'s summary, or
   * `hooks.repairToolCall`'s call, whose `purpose` defaults to `'repairToolCall'`), counted in the run's
   * usage, `usageByModel`, cost and budgets; `purpose` is the hook's name for it.
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
  /** The `hooks.onStepEnd` hook threw; the run went on. */
  | { type: 'hook-error'; step: number; hook: 'onStepEnd'; error: string }
  /**
   * An event of a nested agent's run (`agentTool`), passed on as it happens: `path` names the agent tools
   * it comes from, outermost first; `step` is this run's step whose tool call runs the nested agent, and
   * `call` that tool call, from 1, when it is not the step's first (absent for the first).
   */
  | { type: 'agent-event'; step: number; call?: number; path: string[]; event: AgentEvent }
  | { type: 'run-end'; result: RunResult };
