/**
 * Retries a model reports while the loop waits for it (`ModelRequest.onRetry`), turned into `model-retry`
 * events in their place: before the call's first text, as they happen, not after the call.
 *
 * @module
 */

import type { ModelRequest, ModelRetry } from '../models/types.js';
import type { AgentEvent } from './types.js';

/** Collects the retries of one model call and wakes whoever waits on the call when one comes. */
export class RetryFeed {
  #queued: ModelRetry[] = [];
  #wake: (() => void) | undefined;

  /** The request with `onRetry` reporting here (and to the request's own `onRetry`, if it has one). */
  watch(request: ModelRequest): ModelRequest {
    const outer = request.onRetry;
    return {
      ...request,
      onRetry: (retry) => {
        this.#queued.push(retry);
        this.#wake?.();
        outer?.(retry);
      },
    };
  }

  /**
   * Awaits `pending`, yielding a `model-retry` event for step `step` for each retry reported meanwhile.
   *
   * @throws what `pending` rejects with (after yielding the retries reported before it did).
   */
  async *until<T>(pending: Promise<T>, step: number): AsyncGenerator<AgentEvent, T> {
    // Settles either way, so racing it never leaves a rejection unhandled; `pending` is awaited at the end.
    const settled = pending.then(
      () => false,
      () => false,
    );
    for (;;) {
      // The wake is set before the queue is looked at, with no await between: no retry is missed.
      const woken = new Promise<boolean>((resolve) => (this.#wake = () => resolve(true)));
      const retried = this.#queued.length > 0 || (await Promise.race([settled, woken]));
      this.#wake = undefined;
      yield* this.take(step);
      if (!retried) return await pending;
    }
  }

  /** A `model-retry` event for step `step` for each retry reported since the last look. */
  *take(step: number): Generator<AgentEvent> {
    const queued = this.#queued;
    this.#queued = [];
    for (const retry of queued) yield { type: 'model-retry', step, ...retry };
  }
}
