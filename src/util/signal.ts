/**
 * Combining abort signals in every runtime: `AbortSignal.any` where it exists (Node 20.3+, browsers, Deno,
 * Bun, workerd), else the same thing by hand (Vercel's edge runtime and older engines lack it).
 *
 * @module
 */

/**
 * A signal that aborts, with the same reason, as soon as any of `signals` does (at once when one already
 * has). Like `AbortSignal.any`; without it, the listeners it adds stay until one of the signals aborts.
 */
export function abortAny(signals: readonly AbortSignal[]): AbortSignal {
  const native = (AbortSignal as { any?: (signals: AbortSignal[]) => AbortSignal }).any;
  if (typeof native === 'function') return native.call(AbortSignal, [...signals]);
  const controller = new AbortController();
  const aborted = signals.find((signal) => signal.aborted);
  if (aborted !== undefined) {
    controller.abort(aborted.reason);
    return controller.signal;
  }
  const onAbort = (event: Event) => {
    for (const signal of signals) signal.removeEventListener('abort', onAbort);
    controller.abort((event.target as AbortSignal).reason);
  };
  for (const signal of signals) signal.addEventListener('abort', onAbort, { once: true });
  return controller.signal;
}

/**
 * What a run stopped by `signal` says: `The run was aborted.`, with the reason when the caller aborted with
 * one (`controller.abort(new Error('interrupted (Ctrl-C)'))` gives `The run was aborted: interrupted
 * (Ctrl-C).`); a plain `controller.abort()` gives no reason.
 */
export function abortedMessage(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  const why =
    reason instanceof Error && reason.name !== 'AbortError'
      ? reason.message
      : typeof reason === 'string'
        ? reason
        : '';
  const text = why.trim().replace(/\.$/, '');
  return text ? `The run was aborted: ${text}.` : 'The run was aborted.';
}
