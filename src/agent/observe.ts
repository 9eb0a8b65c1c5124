/**
 * Calling a run's observers (`hooks.observers`, `hooks.onStepEnd`): what they throw never breaks the run,
 * and a promise they return is waited for only until the run's signal fires.
 *
 * @module
 */
import { errorMessage } from '../util/own.js';
import type { OnStepEndFunction } from './hook-types.js';
import type { Step } from './types.js';

/**
 * Calls an observer; what it throws or rejects with is dropped (an observer never breaks a run), and the run
 * waits for its promise only until the run's signal fires (its abort, its clock), so one that never settles
 * cannot hold a stopped run.
 */
export async function observe(call: () => unknown, signal: AbortSignal | 'ended' | undefined): Promise<void> {
  try {
    const returned = call();
    if (returned instanceof Promise && signal !== 'ended') await untilAborted(returned, signal);
    else if (returned instanceof Promise) returned.catch(() => {}); // the run is over: not waited for
  } catch {
    // Deliberately ignored: see RunObserver.
  }
}

/**
 * Calls `onStepEnd` (waited for until the run's signal fires, as an observer is); what it throws is
 * returned as its message, to be reported as a `hook-error` event.
 */
export async function stepObserved(
  onStepEnd: OnStepEndFunction,
  step: Step,
  signal: AbortSignal | undefined,
): Promise<string | undefined> {
  try {
    await untilAborted(Promise.resolve(onStepEnd(step)), signal);
    return undefined;
  } catch (error) {
    return errorMessage(error);
  }
}

/** `promise`, or `undefined` as soon as `signal` fires (at once when it has). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(() => {}); // settles unobserved: its rejection must not go unhandled
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const stop = () => resolve(undefined);
    signal.addEventListener('abort', stop, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', stop);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', stop);
        reject(error);
      },
    );
  });
}
