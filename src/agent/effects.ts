/**
 * How the loop waits without being an async generator.
 *
 * The loop is written once, as a synchronous generator that yields two kinds of values: the events a
 * caller may watch ({@link AgentEvent}), and {@link Pending} promises (a model call, a tool, an approval)
 * that it needs settled before it goes on. The value (or the error) a promise settles with is sent back
 * in with `next` (or `throw`), so the loop reads like `await`: `const response = yield* awaited(call)`.
 * This is the generator-as-effects pattern of redux-saga and co.
 *
 * One rule: a generator must not wait (yield a {@link Pending}) in a `finally` block that runs because it
 * is being closed with `return()`. JavaScript then resumes the `yield*` that delegated to it as if the
 * inner generator had returned normally, with `undefined`, and the outer code would carry on with that
 * value. Cleanup that must wait for something goes on the normal path; cleanup on close fires and forgets.
 *
 * Two drivers run it:
 * - {@link runToEnd} (behind `runAgent`) awaits the promises and passes over the events, so a run nobody
 *   watches pays one `await` per model call and tool call, not one async-generator round trip per event
 *   and per layer (which was most of the loop's own time per step).
 * - {@link streamEvents} (behind `streamAgent`) yields every event to its consumer: the loop stays paused
 *   while the consumer handles an event, and when the consumer stops reading, the loop is closed with
 *   `return()`, so its `finally` blocks run (a streamed model call is cancelled).
 *
 * @module
 */
import { isPromiseLike } from '../util/own.js';

/** A promise the loop waits for; yielded to the driver, which sends back what it settles with. */
export class Pending {
  constructor(readonly promise: PromiseLike<unknown>) {}
}

/** A loop body (or part of one): yields events `E` and {@link Pending} promises, returns `T`. */
export type Effects<E, T> = Generator<E | Pending, T, unknown>;

/**
 * Waits for `value` inside an {@link Effects} generator: `const x = yield* awaited(promise)`. A value that is
 * not a promise is returned at once, without a trip through the driver or the microtask queue (a tool that
 * answers synchronously costs no `await`).
 *
 * @throws whatever the promise rejects with, at the `yield*`.
 */
export function* awaited<T>(value: T | PromiseLike<T>): Generator<Pending, T, unknown> {
  if (!isPromiseLike(value)) return value;
  return (yield new Pending(value)) as T;
}

/**
 * Runs `body` to its end, awaiting each {@link Pending} and passing over everything else; resolves with its
 * return value.
 *
 * @throws whatever `body` throws.
 */
export async function runToEnd<T>(body: Effects<unknown, T>): Promise<T> {
  // Async, so that a body that throws before its first wait rejects the promise instead of throwing.
  return drive(body, body.next());
}

async function drive<T>(body: Effects<unknown, T>, first: IteratorResult<unknown, T>): Promise<T> {
  // The settle step is written out here and in `streamEvents`, not shared: a helper would add an async
  // call per wait, which measured 3-10% of a step.
  let next = first;
  while (!next.done) {
    const value = next.value;
    if (value instanceof Pending) {
      let settled: unknown;
      try {
        settled = await value.promise;
      } catch (error) {
        next = body.throw(error);
        continue;
      }
      next = body.next(settled);
    } else {
      next = body.next();
    }
  }
  return next.value;
}

/**
 * Runs `body`, yielding its events to the consumer and awaiting its {@link Pending} promises; returns its
 * return value. When the consumer stops early (`break`, `return()`, `throw()`), `body` is closed with
 * `return()` and its cleanup (which may itself wait) is driven to the end before this generator finishes.
 *
 * @throws whatever `body` throws.
 */
export async function* streamEvents<E, T>(body: Effects<E, T>): AsyncGenerator<E, T> {
  let finished = false;
  try {
    let next = body.next();
    for (;;) {
      if (next.done) {
        finished = true;
        return next.value;
      }
      const value = next.value;
      if (value instanceof Pending) {
        let settled: unknown;
        try {
          settled = await value.promise;
        } catch (error) {
          next = body.throw(error);
          continue;
        }
        next = body.next(settled);
      } else {
        yield value;
        next = body.next();
      }
    }
  } finally {
    // A body that threw is already closed; return() on it does nothing.
    if (!finished) await drive(body, body.return(undefined as T));
  }
}
