/**
 * A run's events as the AI SDK's UI message stream (`ai` 6: `UIMessageChunk`), so that `useChat`,
 * `readUIMessageStream` and anything else that reads that stream consume a taoloop run with no glue.
 *
 * The loop's own {@link AgentEvent} union stays the source of truth: this is a projection at the front-end
 * boundary. Portable: no Node built-ins, and nothing from `ai` but its types.
 *
 * @module
 */

import type { UIMessage, UIMessageChunk } from 'ai';
import { stepCallId, uiPartId } from '../agent/ids.js';
import type {
  AgentEvent,
  ApprovalDecision,
  PendingApprovalRequest,
  RunResult,
  RunState,
  RunUsage,
  Step,
  StopReason,
} from '../agent/types.js';
import type { ModelRetry } from '../models/types.js';
import { ENGLISH_LABELS, type LabelSet } from '../react/labels.js';
import type { FormatProblemKind } from '../react/turn.js';
import type { Tool } from '../tools/types.js';
import { errorMessage } from '../util/own.js';
import { StreamedTurn, type StreamedTurnOptions } from './ui-turn.js';

export { DISCARDED } from './ui-turn.js';

/**
 * The `data-` parts a taoloop run adds to the assistant message, by name (the chunk type is
 * `data-<name>`). A front end renders them as it likes; `readUIMessageStream` keeps them as parts.
 */
export type TaoloopDataParts = {
  /** A model turn that could not be used; `problem` is what the model was told. It used no step. */
  'format-error': { step: number; kind: FormatProblemKind; problem: string };
  /** The model wrote its own `Observation:`; that text was dropped and never reached the transcript. */
  'invented-observation': { step: number; droppedText: string };
  /**
   * An answer that was not accepted (invalid JSON or schema mismatch for `output`, a `hooks.checkAnswer`
   * refusal); `problem` is the observation the model was sent. It used no step.
   */
  'answer-refused': { step: number; answer: string; problem: string };
  /** A model call failed and the next of `modelSettings.fallbackModels` took it. */
  'model-fallback': { step: number; fromModelId: string; toModelId: string; error: string };
  /** A model call failed and is tried again with the same model (the `model-retry` event). */
  'model-retry': { step: number } & ModelRetry;
  /**
   * The run paused for approvals (`durable.pauseForApproval`): the requests (each also a tool part in
   * state `approval-requested`, with the request id as its approval id, a nested agent's too) and the run's
   * `state`, which `createAgentUIStreamResponse` resumes from when `useChat` sends the approval responses
   * back.
   */
  'run-pause': { pending: PendingApprovalRequest[]; state: RunState };
  /**
   * An approval answered `{ type: 'edit', input }`: the tool call `toolCallId` (whose part still shows the
   * model's input) ran with `input` instead.
   */
  'approval-edit': { toolCallId: string; approvalId: string; input: string };
  /** The `hooks.onStepEnd` hook threw; the run went on. */
  'hook-error': { step: number; hook: 'onStepEnd'; error: string };
  /** How the run ended: always the last data part of a run. */
  stop: TaoloopStopData;
};

/** The `data-stop` part: the run's stop reason and totals. */
export interface TaoloopStopData {
  status: StopReason;
  /** What went wrong, for `error`, `aborted` and `budget`. */
  error?: string;
  /** The typed answer (`output`), when the run had a schema and answered. */
  output?: unknown;
  /** True when `limits.forceFinalAnswer` produced the answer after a limit. */
  forced?: boolean;
  /** Model turns in the trajectory (format errors included). */
  steps: number;
  usage: RunUsage;
  /** Total cost in USD, when known. */
  costUsd?: number;
  durationMs: number;
}

/** The UI message type of a taoloop run, for `useChat<TaoloopUIMessage>()` and `readUIMessageStream`. */
export type TaoloopUIMessage = UIMessage<unknown, TaoloopDataParts>;

/** One chunk of a taoloop run's UI message stream. */
export type TaoloopUIMessageChunk = UIMessageChunk<unknown, TaoloopDataParts>;

/** Options for {@link toUIMessageStream}. */
export interface ToUIMessageStreamOptions {
  /** Id of the assistant message, sent in the `start` chunk. @default none (the client picks one) */
  messageId?: string;
  /**
   * The run's tools. Inputs of tools with an input schema are then sent as the parsed JSON object
   * (what `useChat` users expect in `part.input`); without this, and for text tools, the input is the
   * string the model wrote.
   */
  tools?: readonly Tool[];
  /** Called with the run's result when it ends, before the stream closes. */
  onResult?: (result: RunResult) => void | Promise<void>;
  /**
   * The run's labels (`prompt.labels`), to read its turns as they stream. `createAgentUIStreamResponse`
   * passes the run's. @default ENGLISH_LABELS
   */
  labels?: LabelSet;
  /**
   * The run uses native tool calling: only the model's reasoning streams; the thought and the answer come
   * whole with the turn (its text is a thought or the answer, which only the complete turn tells).
   * `createAgentUIStreamResponse` passes the run's mode. @default false
   */
  native?: boolean;
  /**
   * Stream the answer's text as it arrives. Turn it off for a run whose answers may be refused (`output`,
   * `hooks.checkAnswer`): a refused answer's streamed text cannot be taken back from the client (it is
   * marked discarded, see `DISCARDED`); off, the answer comes whole once accepted.
   * `createAgentUIStreamResponse` turns it off for such runs. @default true
   */
  streamAnswer?: boolean;
}

/**
 * Turns a run's events into AI SDK UI message stream chunks: one assistant message with
 * - each model turn as a step (`start-step` / `finish-step`),
 * - each thought as a reasoning part,
 * - each action as a tool call: `tool-input-available`, then `tool-output-available` with the
 *   observation as output, or `tool-output-error` when the call failed or was refused; an action that
 *   needs approval adds `tool-approval-request` first (its approval id is the request's id), and a
 *   rejected one ends with `tool-output-denied`; a nested agent's (`agentTool`) approval is shown the same
 *   way, as a part of its own (see `nestedChunks`), so `useChat` asks for it too,
 * - the accepted answer as a text part (sent once the answer passed `output` and `hooks.checkAnswer`),
 * - `data-format-error`, `data-invented-observation`, `data-answer-refused`, `data-model-fallback`,
 *   `data-model-retry`, `data-approval-edit` (an approval that edited the call's input),
 *   `data-run-pause` (a paused run's requests and state) and `data-stop` parts (see
 *   {@link TaoloopDataParts}),
 * - `finish` (or `error` chunk first when the run failed, `abort` when it was aborted).
 *
 * Tool parts are static (`tool-<name>`), with call ids `step-<n>` (`step-<n>-call-<k>` for the `k`-th of a
 * native step's several calls; a nested approval's part: the request id). A streamed model call
 * (`model-delta` events) streams its parts as they arrive (see `ui-turn.ts`): the model's reasoning (a
 * reasoning part of its own, `reasoning-<n>-model`, which only a streamed call shows), the thought
 * (`reasoning-<n>`), the answer (`text-<n>`, unless `streamAnswer` is off) and the action's tool part
 * (`tool-input-start`, its input as `tool-input-delta`s, then `tool-input-available` when the call starts),
 * never the start of an observation the model writes itself; the parts a client ends with are those of a
 * call that did not stream. A part the complete turn does not keep (a failed model's text, an answer that
 * was refused or unusable) is ended with `providerMetadata` `DISCARDED`. Cancelling the stream (the
 * browser went away) closes the run, which cancels the model call in flight. A run that throws (a caller
 * mistake such as an invalid tool list) ends the stream with an `error` chunk carrying the message.
 *
 * @example
 * ```ts
 * const stream = toUIMessageStream(streamAgent({ model, tools, messages }), { tools });
 * return createUIMessageStreamResponse({ stream }); // from 'ai'
 * ```
 */
export function toUIMessageStream(
  events: AsyncIterable<AgentEvent>,
  options: ToUIMessageStreamOptions = {},
): ReadableStream<TaoloopUIMessageChunk> {
  const iterator = events[Symbol.asyncIterator]();
  const schemaTools = schemaToolNames(options.tools);
  const state: MapState = {
    open: new Set(),
    schemaTools,
    nestedCalls: new Map(),
    turnOptions: {
      labels: options.labels ?? ENGLISH_LABELS,
      tools: (options.tools ?? []).map((t) => t.name),
      native: options.native === true,
      streamAnswer: options.streamAnswer !== false,
      schemaTools,
    },
  };
  let started = false;
  return new ReadableStream<TaoloopUIMessageChunk>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(
          options.messageId ? { type: 'start', messageId: options.messageId } : { type: 'start' },
        );
        return;
      }
      // A pull that enqueues nothing is not called again while a read waits, so read on until a chunk.
      for (;;) {
        let next: IteratorResult<AgentEvent>;
        try {
          next = await iterator.next();
        } catch (error) {
          controller.enqueue({ type: 'error', errorText: errorMessage(error) });
          controller.close();
          return;
        }
        if (next.done) {
          controller.close();
          return;
        }
        const chunks = eventChunks(next.value, state);
        for (const chunk of chunks) controller.enqueue(chunk);
        if (next.value.type === 'run-end') await options.onResult?.(next.value.result);
        if (chunks.length > 0) return;
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

interface MapState {
  /** Tool call ids whose input was sent and whose output was not yet. */
  open: Set<string>;
  schemaTools: Set<string>;
  /** A nested agent's approved calls still waiting for their output: {@link nestedCallKey} → tool call id. */
  nestedCalls: Map<string, string>;
  /** The nested agent's step whose approvals the message's last step shows (see `nestedChunks`). */
  nestedStep?: string;
  /** How streamed turns are read; the tool names are the run's (`run-start`). */
  turnOptions: StreamedTurnOptions;
  /** The model turn streaming now, from its first delta to its step's end. */
  turn?: StreamedTurn | undefined;
}

function schemaToolNames(tools: readonly Tool[] | undefined): Set<string> {
  return new Set((tools ?? []).filter((t) => t.inputJsonSchema !== undefined).map((t) => t.name));
}

/** The chunks for one event (often none). */
function eventChunks(event: AgentEvent, state: MapState): TaoloopUIMessageChunk[] {
  switch (event.type) {
    case 'run-start':
      state.turnOptions.tools = event.tools;
      return [];
    case 'model-delta':
    case 'reasoning-delta': {
      if (state.turn?.step !== event.step) state.turn = new StreamedTurn(event.step, state.turnOptions);
      return state.turn.delta(event);
    }
    case 'step-end': {
      const turn = state.turn?.step === event.step.index ? state.turn : undefined;
      state.turn = undefined;
      const streamed = turn?.stepEnd(event.step);
      return [...(streamed?.chunks ?? []), ...answerChunks(event.step, streamed?.answered === true)];
    }
    case 'model-start':
      return [...abandonTurn(state, 'The model call did not complete.'), { type: 'start-step' }];
    case 'model-end': {
      const { turn, step } = event;
      const streamed = state.turn?.step === step ? state.turn : undefined;
      const chunks: TaoloopUIMessageChunk[] = streamed
        ? streamed.end(event)
        : turn.thought
          ? textChunks('reasoning', uiPartId('reasoning', step), turn.thought)
          : [];
      if (turn.type === 'none') {
        chunks.push({ type: 'data-format-error', data: { step, kind: turn.kind, problem: turn.problem } });
        chunks.push({ type: 'finish-step' });
      }
      return chunks;
    }
    case 'invented-observation':
      return [
        { type: 'data-invented-observation', data: { step: event.step, droppedText: event.droppedText } },
      ];
    case 'model-fallback': {
      // What streamed of the failed call stays, ended as discarded; the next model's turn streams anew.
      const { type: _type, ...data } = event;
      return [...abandonTurn(state, event.error), { type: 'data-model-fallback', data }];
    }
    case 'model-retry': {
      const { type: _type, ...data } = event;
      return [{ type: 'data-model-retry', data }];
    }
    case 'hook-error': {
      const { type: _type, ...data } = event;
      return [{ type: 'data-hook-error', data }];
    }
    case 'hook-model-end':
      return [];
    case 'agent-event':
      return nestedChunks(event, state);
    case 'approval-start': {
      const id = stepCallId(event.step, event.call);
      state.turn?.takeCall(id);
      return [
        ...openCall(state, id, event.request.tool, event.request.input),
        { type: 'tool-approval-request', approvalId: event.request.id, toolCallId: id },
      ];
    }
    case 'approval-end': {
      const id = stepCallId(event.step, event.call);
      if (event.decision.type !== 'reject') {
        // A resumed run starts here: the client has the call's input from before the pause.
        state.open.add(id);
        return editChunks(id, event.request.id, event.decision);
      }
      state.open.delete(id);
      return [{ type: 'tool-output-denied', toolCallId: id }, { type: 'finish-step' }];
    }
    case 'tool-start': {
      const id = stepCallId(event.step, event.call);
      state.turn?.takeCall(id);
      return openCall(state, id, event.tool, event.input);
    }
    case 'tool-end': {
      const id = stepCallId(event.step, event.call);
      state.open.delete(id);
      const output: TaoloopUIMessageChunk = event.ok
        ? { type: 'tool-output-available', toolCallId: id, output: event.observation }
        : { type: 'tool-output-error', toolCallId: id, errorText: event.observation };
      return [output, { type: 'finish-step' }];
    }
    case 'run-pause':
      // One per message: a later pause of the same message replaces it on the client.
      return [
        { type: 'data-run-pause', id: 'run-pause', data: { pending: event.pending, state: event.state } },
      ];
    case 'run-end':
      return [
        ...abandonTurn(state, event.result.error ?? 'The run ended before the action ran.'),
        ...endChunks(event.result),
      ];
    default:
      return event satisfies never;
  }
}

/** Ends what streamed of a turn that will not complete (`why`: for its tool part, if any). */
function abandonTurn(state: MapState, why: string): TaoloopUIMessageChunk[] {
  const chunks = state.turn?.abandon(why) ?? [];
  state.turn = undefined;
  return chunks;
}

/**
 * An answer step's text once accepted (at `step-end`; none when `streamed`, its streamed part being
 * complete), or why it was refused.
 */
function answerChunks(step: Step, streamed: boolean): TaoloopUIMessageChunk[] {
  const { turn, observation } = step;
  if (turn.type !== 'answer') return [];
  const chunks: TaoloopUIMessageChunk[] = observation
    ? [
        {
          type: 'data-answer-refused',
          data: { step: step.index, answer: turn.text, problem: observation.text },
        },
      ]
    : streamed
      ? []
      : textChunks('text', uiPartId('text', step.index), turn.text);
  chunks.push({ type: 'finish-step' });
  return chunks;
}

/**
 * A nested agent's (`agentTool`) approvals, shown as a top-level one is: a tool part of the nested tool
 * (`tool-<name>`, its tool call id and approval id both the request's id), `tool-input-available` then the
 * AI SDK's `tool-approval-request`, so `useChat` asks for it; `tool-output-denied` for a rejection; the
 * nested call's output (`tool-output-available` / `tool-output-error`) once it ran. Each nested step that
 * asks starts a step of the message (`start-step`): the agent tool's own call, still waiting for its
 * output, is then in an earlier step, and `lastAssistantMessageIsCompleteWithApprovalResponses` sends the
 * responses once these approvals are answered. A paused run's approvals are also in `data-run-pause`, and
 * the responses resume the nested run (`createAgentUIStreamResponse`). The nested agent's other events are
 * not shown (they are in the run's events and trace).
 */
function nestedChunks(
  event: Extract<AgentEvent, { type: 'agent-event' }>,
  state: MapState,
): TaoloopUIMessageChunk[] {
  const inner = event.event;
  switch (inner.type) {
    case 'approval-start': {
      const { id, tool, input } = inner.request;
      const chunks: TaoloopUIMessageChunk[] = [];
      const step = nestedCallKey(event, inner.step);
      if (state.nestedStep !== step) {
        state.nestedStep = step;
        chunks.push({ type: 'finish-step' }, { type: 'start-step' });
      }
      chunks.push(...openCall(state, id, tool, input), {
        type: 'tool-approval-request',
        approvalId: id,
        toolCallId: id,
      });
      return chunks;
    }
    case 'approval-end': {
      const { id } = inner.request;
      if (inner.decision.type !== 'reject') {
        state.open.add(id);
        state.nestedCalls.set(nestedCallKey(event, inner.step, inner.call), id);
        return editChunks(id, id, inner.decision);
      }
      state.open.delete(id);
      return [{ type: 'tool-output-denied', toolCallId: id }];
    }
    case 'tool-end': {
      const key = nestedCallKey(event, inner.step, inner.call);
      const id = state.nestedCalls.get(key);
      if (id === undefined) return []; // a nested call that needed no approval
      state.nestedCalls.delete(key);
      state.open.delete(id);
      return [
        inner.ok
          ? { type: 'tool-output-available', toolCallId: id, output: inner.observation }
          : { type: 'tool-output-error', toolCallId: id, errorText: inner.observation },
      ];
    }
    default:
      return [];
  }
}

/** Where a nested event happened: the parent's step and call, the agent tools, the nested step and call. */
function nestedCallKey(
  event: Extract<AgentEvent, { type: 'agent-event' }>,
  step: number,
  call?: number,
): string {
  return JSON.stringify([event.step, event.call ?? 1, event.path, step, call ?? 1]);
}

/** `tool-input-available` the first time a call (by its tool call id) is seen. */
function openCall(state: MapState, id: string, tool: string, input: string): TaoloopUIMessageChunk[] {
  if (state.open.has(id)) return [];
  state.open.add(id);
  return [
    { type: 'tool-input-available', toolCallId: id, toolName: tool, input: toolInput(state, tool, input) },
  ];
}

/** A schema tool's JSON input as an object; anything else as the text the model wrote. */
function toolInput(state: MapState, tool: string, input: string): unknown {
  if (!state.schemaTools.has(tool)) return input;
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}

function textChunks(kind: 'text' | 'reasoning', id: string, text: string): TaoloopUIMessageChunk[] {
  if (kind === 'text') {
    return [
      { type: 'text-start', id },
      { type: 'text-delta', id, delta: text },
      { type: 'text-end', id },
    ];
  }
  return [
    { type: 'reasoning-start', id },
    { type: 'reasoning-delta', id, delta: text },
    { type: 'reasoning-end', id },
  ];
}

/** `data-approval-edit` for an approval that edited the call's input; nothing for a plain approval. */
function editChunks(
  toolCallId: string,
  approvalId: string,
  decision: ApprovalDecision,
): TaoloopUIMessageChunk[] {
  if (decision.type !== 'edit') return [];
  return [
    {
      type: 'data-approval-edit',
      id: `approval-edit-${toolCallId}`,
      data: { toolCallId, approvalId, input: decision.input },
    },
  ];
}

/** `data-stop`, then how the message ends. */
function endChunks(result: RunResult): TaoloopUIMessageChunk[] {
  const data: TaoloopStopData = {
    status: result.status,
    steps: result.steps.length,
    usage: result.usage,
    durationMs: result.durationMs,
  };
  if (result.error !== undefined) data.error = result.error;
  if (result.costUsd !== undefined) data.costUsd = result.costUsd;
  if (result.output !== undefined) data.output = result.output;
  if (result.forced) data.forced = true;
  const chunks: TaoloopUIMessageChunk[] = [{ type: 'data-stop', data }];
  switch (result.status) {
    case 'answered':
      chunks.push({ type: 'finish', finishReason: 'stop' });
      break;
    case 'aborted':
      chunks.push({ type: 'abort', reason: result.error ?? 'aborted' });
      break;
    case 'error':
      chunks.push({ type: 'error', errorText: result.error ?? 'The run failed.' });
      chunks.push({ type: 'finish', finishReason: 'error' });
      break;
    case 'paused':
      // As the AI SDK ends a step whose tool calls wait for approval.
      chunks.push({ type: 'finish', finishReason: 'tool-calls' });
      break;
    case 'max_steps':
    case 'format_errors':
    case 'repeated_action':
    case 'budget':
      chunks.push({ type: 'finish', finishReason: 'other' });
      break;
    default:
      result.status satisfies never;
  }
  return chunks;
}
