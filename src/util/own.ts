/**
 * Small shared helpers.
 *
 * @module
 */

import { describeThrown } from './describe.js';
import { abortAny } from './signal.js';

/**
 * An object's own property; an inherited one (say, set on `Object.prototype` by prototype pollution)
 * counts as absent. Every option or tool field that can let a side effect happen (`approve`,
 * `limits.allowTools`, `durable.pauseForApproval`, `durable.journal`, `durable.secret`, a tool's
 * `needsApproval`) is read through this (and each option group as well), so inherited data never
 * grants permission: absent means ask, or refuse. Also for lookups by a name from outside (a tool name the
 * model wrote), so `__proto__` or `constructor` never resolve to built-ins.
 */
export function ownField<T extends object, K extends keyof T>(object: T, key: K): T[K] | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** The message of anything thrown, described readably when it is not an Error (see {@link describeThrown}). */
export function errorMessage(error: unknown): string {
  return describeThrown(error);
}

/**
 * An AbortSignal that fires after `ms` with a `TimeoutError`, like `AbortSignal.timeout`, but on a timer
 * that keeps the process alive (Node's `AbortSignal.timeout` does not), with a `clear()` to call when done.
 */
export function timeoutSignal(ms: number): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`The operation timed out after ${ms} ms.`, 'TimeoutError')),
    ms,
  );
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/** True for anything with a callable `then` (what `await` would wait for). */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** One signal for two (the caller's and a deadline), either of which may be absent. */
export function anySignal(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return abortAny([a, b]);
}
