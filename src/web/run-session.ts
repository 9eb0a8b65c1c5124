/**
 * One playground run in progress: drives {@link streamAgent}, writes the trace, keeps every message for
 * late or reconnecting viewers, and holds approval requests until the page answers them.
 *
 * @module
 */

import type { AgentMessage } from '../agent/conversation.js';
import { streamAgent } from '../agent/loop.js';
import type { AgentEvent, ApprovalDecision, ApprovalRequest } from '../agent/types.js';
import type { PriceTable } from '../models/pricing.js';
import type { Model, ModelMessage, ModelRequest } from '../models/types.js';
import type { Tool, ToolEffects } from '../tools/types.js';
import { createTraceWriter, type TraceWriter } from '../trace/trace.js';
import { errorMessage } from '../util/own.js';
import type { ForkOrigin, ForkSetup } from './fork.js';
import { modelLabel } from './model-label.js';

/**
 * What the page receives over server-sent events: the loop's events (without `reasoning-delta`; a
 * `model-delta` never carries text past the point where the model began writing its own observation),
 * plus
 * - `model-request`: the messages and stop sequences step `step`'s model call was sent (again when the
 *   call is repeated without stop sequences);
 * - `approval-pending`: a tool call waits for the page; answer it at `.../approvals/<requestId>`;
 * - `run-error`: the run could not start or crashed (a caller mistake such as an invalid tool list),
 *   the same line a trace ends with after a crash;
 * - `trace-error`: the run's trace could not be written (`the trace could not be written: <reason>`, a full
 *   disk, a removed runs folder); the run goes on, shown live, but is not kept in the runs folder;
 * - `stream-end`: nothing more will come; the page closes its `EventSource`.
 */
export type RunMessage =
  | RunOptionsMessage
  // `model-retry` among them: the session's own retries (`retryDelaysMs`), announced before each wait.
  | Exclude<AgentEvent, { type: 'reasoning-delta' }>
  | { type: 'model-request'; step: number; messages: ModelMessage[]; stopSequences?: string[] }
  | {
      type: 'approval-pending';
      requestId: string;
      step: number;
      tool: string;
      input: string;
      effects: ToolEffects;
    }
  | { type: 'run-error'; error: string }
  | { type: 'trace-error'; error: string }
  | { type: 'stream-end' };

/**
 * The first message of every run: what it was started with, so that a page opened on the run (a reload, a
 * shared link) can run it again, and the conversation it continues.
 */
export interface RunOptionsMessage {
  type: 'run-options';
  question: string;
  /** The model spec picked on the page (one of the configured ones). */
  model: string;
  /** How the page names that model: the model picker's label (`modelLabel`), also in the past runs. */
  modelLabel: string;
  tools: string[];
  maxSteps: number;
  /** The run whose conversation this one continues. */
  continueFrom?: string;
  /** The earlier questions and answers of that conversation, oldest first. */
  thread: { question: string; answer?: string }[];
  /** Added to the system prompt (the run's `instructions`). */
  instructions?: string;
  /** The sampling temperature asked for (`modelSettings.temperature`); absent: the loop's default. */
  temperature?: number;
  /** The run this one was forked from, and at which step (see `fork.ts`). */
  forkOf?: ForkOrigin;
}

/** Everything a run needs. */
export interface RunSessionOptions {
  id: string;
  /** Where the JSONL trace is written. */
  file: string;
  model: Model;
  /** The spec `model` was made from, as the page picked it. */
  spec: string;
  question: string;
  /** The conversation so far, when the question is a follow-up (see {@link RunOptionsMessage.thread}). */
  earlier?: { messages: AgentMessage[]; continueFrom: string; conversationId: string };
  tools: readonly Tool[];
  maxSteps: number;
  prices?: PriceTable;
  /** Added to the system prompt; blank is none. */
  instructions?: string;
  /** `modelSettings.temperature`. */
  temperature?: number;
  /** Makes the run a fork of a finished one (see `fork.ts`). */
  fork?: ForkSetup;
}

/** Called with each message and its index (the SSE event id). */
type Listener = (message: RunMessage, index: number) => void;

/** A run started by the page; it starts when constructed. Follow it with {@link RunSession.subscribe}. */
export class RunSession {
  readonly id: string;
  /** The conversation the run belongs to: the first run's id (its own for a first question). */
  readonly conversationId: string;
  /** Every message so far, in order; index = SSE event id. */
  readonly messages: RunMessage[] = [];
  /** Settles when the run has ended and `stream-end` was sent. Never rejects. */
  readonly done: Promise<void>;
  readonly #listeners = new Set<Listener>();
  readonly #pending = new Map<string, (decision: ApprovalDecision) => void>();
  readonly #controller = new AbortController();
  #approvals = 0;
  /** The step whose model call is in flight (from its `model-start`). */
  #step = 0;
  #trace: TraceWriter | undefined;

  constructor(options: RunSessionOptions) {
    this.id = options.id;
    this.conversationId = options.earlier?.conversationId ?? options.id;
    this.done = this.#drive(options);
  }

  /** True until `stream-end` was sent. */
  get active(): boolean {
    return this.messages.at(-1)?.type !== 'stream-end';
  }

  /** Sends every message from `fromIndex` on, then each new one; returns the unsubscribe function. */
  subscribe(listener: Listener, fromIndex = 0): () => void {
    this.messages.forEach((message, index) => {
      if (index >= fromIndex) listener(message, index);
    });
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Answers approval request `requestId`; false when no such request waits. */
  decide(requestId: string, decision: ApprovalDecision): boolean {
    const settle = this.#pending.get(requestId);
    settle?.(decision);
    return settle !== undefined;
  }

  /** Aborts the run; a waiting approval is rejected, the model call or tool in flight is cancelled. */
  stop(): void {
    this.#controller.abort(new Error('stopped from the playground'));
  }

  /**
   * For a process about to exit at once (a second Ctrl-C): ends the trace of a run still in progress with
   * a `run-error` line saying `reason`, synchronously, so the trace does not stop short without one. Does
   * nothing once the trace has ended (with `run-end` or `run-error`).
   */
  quitting(reason: string): void {
    const trace = this.#trace;
    this.#trace = undefined;
    trace?.writeError(reason);
  }

  #emit(message: RunMessage): void {
    const index = this.messages.push(message) - 1;
    for (const listener of this.#listeners) listener(message, index);
  }

  /** The loop's `approve`: announces the request and waits for {@link decide} or the run's abort. */
  #approve = (request: ApprovalRequest): Promise<ApprovalDecision> =>
    new Promise((resolve) => {
      this.#approvals += 1;
      const requestId = String(this.#approvals);
      const signal = request.signal;
      const settle = (decision: ApprovalDecision) => {
        this.#pending.delete(requestId);
        signal?.removeEventListener('abort', onAbort);
        resolve(decision);
      };
      const onAbort = () => settle({ type: 'reject', reason: 'the run was stopped' });
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending.set(requestId, settle);
      const { step, tool, input, effects } = request;
      this.#emit({ type: 'approval-pending', requestId, step, tool, input, effects });
    });

  /** Announces a model call's request (and writes it to the trace) as the call starts. */
  #onRequest(request: ModelRequest): void {
    const { messages, stopSequences } = request;
    this.#trace?.writeRequest(this.#step, request);
    this.#emit({
      type: 'model-request',
      step: this.#step,
      messages,
      ...(stopSequences && { stopSequences }),
    });
  }

  /**
   * The run's trace writer; a trace that cannot be created, or a line that cannot be written later, is a
   * `trace-error` message and the run goes on without it (a full disk ends no run, and no other run).
   */
  #openTrace(file: string, runOptions: RunOptionsMessage, modelId: string): TraceWriter | undefined {
    // The label is derived from the spec: the header keeps only what the page picked.
    const { type: _, modelLabel: __, ...meta } = runOptions;
    const onError = (error: Error) => this.#emit({ type: 'trace-error', error: error.message });
    try {
      return createTraceWriter(
        file,
        {
          question: runOptions.question,
          modelId,
          conversationId: this.conversationId,
          meta: { source: 'playground', ...meta },
        },
        { onError },
      );
    } catch (error) {
      onError(error instanceof Error ? error : new Error(errorMessage(error)));
      return undefined;
    }
  }

  async #drive(options: RunSessionOptions): Promise<void> {
    const { question, maxSteps, earlier, fork, temperature } = options;
    const instructions = options.instructions?.trim() || undefined;
    const tools = fork ? fork.tools(options.tools) : options.tools;
    const live = fork ? fork.model(options.model) : options.model;
    const model = watchRequests(live, (request) => this.#onRequest(request));
    const runOptions: RunOptionsMessage = {
      type: 'run-options',
      question,
      model: options.spec,
      modelLabel: modelLabel(options.spec),
      tools: tools.map((t) => t.name),
      maxSteps,
      ...(earlier && { continueFrom: earlier.continueFrom }),
      thread: earlier ? conversationThread(earlier.messages) : [],
      ...(instructions !== undefined && { instructions }),
      ...(temperature !== undefined && { temperature }),
      ...(fork && { forkOf: fork.origin }),
    };
    this.#emit(runOptions);
    try {
      this.#trace = this.#openTrace(options.file, runOptions, model.id);
      const asked = earlier
        ? { messages: [...earlier.messages, { role: 'user' as const, content: question }] }
        : { question };
      const run = streamAgent({
        model,
        ...asked,
        tools,
        maxSteps,
        // A fork's replayed steps keep their recorded decisions: nobody is asked again.
        approve: (request) => {
          const replayed = fork?.decision(request);
          return replayed ? Promise.resolve(replayed) : this.#approve(request);
        },
        signal: this.#controller.signal,
        ...(instructions !== undefined && { instructions }),
        ...(temperature !== undefined && { modelSettings: { temperature } }),
        ...(options.prices && { limits: { prices: options.prices } }),
      });
      for await (const event of run) {
        // Unless the process quitting ended the trace already (see `quitting`).
        this.#trace?.write(event);
        if (event.type === 'model-start') this.#step = event.step;
        if (event.type === 'reasoning-delta') continue;
        // The page shows what the loop says may be shown of a streaming reply (`shown`).
        const message: RunMessage | undefined =
          event.type === 'model-delta' ? (event.shown ? { ...event, text: event.shown } : undefined) : event;
        if (message) this.#emit(message);
      }
    } catch (error) {
      const message = errorMessage(error);
      this.#trace?.writeError(message);
      this.#emit({ type: 'run-error', error: message });
    } finally {
      // The trace has ended: nothing more is written to it, not even when the process quits.
      this.#trace = undefined;
      for (const settle of this.#pending.values()) settle({ type: 'reject', reason: 'the run ended' });
      this.#emit({ type: 'stream-end' });
      this.#listeners.clear();
    }
  }
}

/**
 * `model`, calling `onRequest` with each request before it is sent (the page's inspector shows it). Every
 * other property is the model's own (read through, methods bound to it); its retries are its own, each
 * reported through the request's `onRetry` as a `model-retry` event of the run.
 */
function watchRequests(model: Model, onRequest: (request: ModelRequest) => void): Model {
  const stream = model.stream?.bind(model);
  return new Proxy(model, {
    get(target, property) {
      if (property === 'generate')
        return (request: ModelRequest) => {
          onRequest(request);
          return target.generate(request);
        };
      if (property === 'stream' && stream)
        return (request: ModelRequest) => {
          onRequest(request);
          return stream(request);
        };
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The questions and answers of a conversation, as the page shows them above a follow-up. */
export function conversationThread(messages: readonly AgentMessage[]): RunOptionsMessage['thread'] {
  const thread: RunOptionsMessage['thread'] = [];
  for (const message of messages) {
    if (message.role === 'tool') continue;
    const text =
      typeof message.content === 'string'
        ? message.content
        : message.content.map((part) => part.text ?? '').join('');
    if (message.role === 'user') thread.push({ question: text });
    else {
      const last = thread.at(-1);
      if (last && last.answer === undefined) last.answer = text;
    }
  }
  return thread;
}
