/**
 * One playground run in progress: drives {@link streamAgent}, writes the trace, keeps every message for
 * late or reconnecting viewers, and holds approval requests until the page answers them.
 *
 * @module
 */
import { streamAgent } from '../agent/loop.js';
import type { AgentEvent, ApprovalDecision, ApprovalRequest } from '../agent/types.js';
import type { PriceTable } from '../models/pricing.js';
import type { Model } from '../models/types.js';
import type { Tool, ToolEffects } from '../tools/types.js';
import { createTraceWriter, type TraceWriter } from '../trace/trace.js';
import { errorMessage } from '../util/own.js';

/**
 * What the page receives over server-sent events: the loop's events (without `model-delta`), plus
 * - `approval-pending`: a tool call waits for the page; answer it at `.../approvals/<requestId>`;
 * - `run-error`: the run could not start or crashed (a caller mistake such as an invalid tool list),
 *   the same line a trace ends with after a crash;
 * - `stream-end`: nothing more will come; the page closes its `EventSource`.
 */
export type RunMessage =
  | Exclude<AgentEvent, { type: 'model-delta' | 'reasoning-delta' }>
  | {
      type: 'approval-pending';
      requestId: string;
      step: number;
      tool: string;
      input: string;
      effects: ToolEffects;
    }
  | { type: 'run-error'; error: string }
  | { type: 'stream-end' };

/** Everything a run needs. */
export interface RunSessionOptions {
  id: string;
  /** Where the JSONL trace is written. */
  file: string;
  model: Model;
  question: string;
  tools: readonly Tool[];
  maxSteps: number;
  prices?: PriceTable;
}

/** Called with each message and its index (the SSE event id). */
type Listener = (message: RunMessage, index: number) => void;

/** A run started by the page; it starts when constructed. Follow it with {@link RunSession.subscribe}. */
export class RunSession {
  readonly id: string;
  /** Every message so far, in order; index = SSE event id. */
  readonly messages: RunMessage[] = [];
  /** Settles when the run has ended and `stream-end` was sent. Never rejects. */
  readonly done: Promise<void>;
  readonly #listeners = new Set<Listener>();
  readonly #pending = new Map<string, (decision: ApprovalDecision) => void>();
  readonly #controller = new AbortController();
  #approvals = 0;

  constructor(options: RunSessionOptions) {
    this.id = options.id;
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

  async #drive(options: RunSessionOptions): Promise<void> {
    const { model, question, tools, maxSteps } = options;
    let trace: TraceWriter | undefined;
    try {
      trace = createTraceWriter(options.file, {
        question,
        modelId: model.id,
        meta: { source: 'playground', tools: tools.map((t) => t.name), maxSteps },
      });
      const run = streamAgent({
        model,
        question,
        tools,
        maxSteps,
        approve: this.#approve,
        signal: this.#controller.signal,
        ...(options.prices && { prices: options.prices }),
      });
      for await (const event of run) {
        trace.write(event);
        if (event.type !== 'model-delta' && event.type !== 'reasoning-delta') this.#emit(event);
      }
    } catch (error) {
      const message = errorMessage(error);
      trace?.writeError(message);
      this.#emit({ type: 'run-error', error: message });
    } finally {
      for (const settle of this.#pending.values()) settle({ type: 'reject', reason: 'the run ended' });
      this.#emit({ type: 'stream-end' });
      this.#listeners.clear();
    }
  }
}
