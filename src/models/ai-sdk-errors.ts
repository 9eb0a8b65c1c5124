/**
 * What the AI SDK adapter throws: whatever the SDK (or the HTTP exchange under it) threw, turned into a
 * `ModelCallError` or {@link ModelTimeoutError} whose message says what happened.
 *
 * @module
 */
import { type CallProgress, describeNetworkFailure, describeStall } from './call-progress.js';
import { ModelCallError, ModelTimeoutError } from './errors.js';
import { StreamEndedEarlyError } from './stream-retry.js';

/** The abort signal's reason, or an `AbortError` when there is none. */
export function abortReason(signal: AbortSignal | undefined): unknown {
  return signal?.reason ?? new DOMException('The model call was aborted.', 'AbortError');
}

function isAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted === true && error === signal.reason) return true;
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

/**
 * Turns whatever the AI SDK threw into a `ModelCallError` that says what happened (a network failure
 * is named from its error codes and the call's progress, not the SDK's "Cannot connect to API"); a cut by
 * the caller's timeout becomes a {@link ModelTimeoutError} saying how far the call got; other aborts pass
 * through unchanged. `ai` is the AI SDK when the call loaded it (only then can it have thrown its errors).
 */
export function toModelError(
  error: unknown,
  modelId: string,
  signal: AbortSignal | undefined,
  progress: CallProgress | undefined,
  ai: typeof import('ai') | undefined,
): unknown {
  if (error instanceof ModelCallError) return error;
  if (isAbort(error, signal)) return timedOut(signal, modelId, progress) ?? error;
  // Only a call that loaded the AI SDK can have thrown one of its errors.
  const isRetryError = (e: unknown): e is import('ai').RetryError => ai?.RetryError.isInstance(e) === true;
  const isApiCallError = (e: unknown): e is import('ai').APICallError =>
    ai?.APICallError.isInstance(e) === true;
  // Attempts the fetch saw (the SDK's retries, and the adapter's of a stream that broke off).
  let attempts: number | undefined = progress?.retries ? progress.retries + 1 : undefined;
  let last = error;
  if (isRetryError(error)) {
    attempts = Math.max(attempts ?? 0, error.errors.length);
    last = error.lastError;
    if (isAbort(last, signal)) return timedOut(signal, modelId, progress) ?? last;
  }
  if (isApiCallError(last) && isSuccess(last.statusCode)) {
    // A 2xx whose body broke off midway: "HTTP 200" would mislead. A connection lost (the SDK marks it
    // retryable) is said as what it was; anything else (a body that cannot be read) as it was.
    const network = describeNetworkFailure(last, progress);
    const what =
      network ??
      (last.isRetryable
        ? `the server closed the connection mid-response (${causeChain(last)})`
        : `the response broke off midway (${causeChain(last)})`);
    return new ModelCallError({
      modelId,
      providerMessage: what,
      isRetryable: last.isRetryable,
      attempts,
      cause: error,
    });
  }
  if (last instanceof StreamEndedEarlyError)
    return new ModelCallError({
      modelId,
      providerMessage: last.message,
      isRetryable: true,
      attempts,
      cause: error,
    });
  const network = describeNetworkFailure(last, progress);
  if (network !== undefined) {
    return new ModelCallError({
      modelId,
      providerMessage: network,
      isRetryable: true,
      attempts,
      cause: error,
    });
  }
  if (isApiCallError(last)) {
    return new ModelCallError({
      modelId,
      providerMessage: last.message,
      statusCode: last.statusCode,
      isRetryable: last.isRetryable,
      attempts,
      cause: error,
    });
  }
  return new ModelCallError({ modelId, providerMessage: messageOf(last), attempts, cause: error });
}

/** The {@link ModelTimeoutError} for a call its caller's timeout cut, else `undefined`. */
function timedOut(
  signal: AbortSignal | undefined,
  modelId: string,
  progress: CallProgress | undefined,
): ModelTimeoutError | undefined {
  const reason: unknown = signal?.reason;
  if (!signal?.aborted || !(reason instanceof Error) || reason.name !== 'TimeoutError') return undefined;
  if (reason instanceof ModelTimeoutError) return reason;
  return new ModelTimeoutError(modelId, describeStall(progress), { cause: reason });
}

function isSuccess(status: number | undefined): boolean {
  return status !== undefined && status >= 200 && status < 300;
}

/** The messages of an error's causes, e.g. `terminated: other side closed`. */
function causeChain(error: Error): string {
  const messages: string[] = [];
  for (let cause = error.cause; cause instanceof Error && messages.length < 4; cause = cause.cause) {
    messages.push(cause.message);
  }
  return messages.length ? messages.join(': ') : error.message;
}

/** A readable message from an Error, a provider error object (`{ message }` or `{ error: { message } }`) or anything else. */
function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null) {
    const record = error as Record<string, unknown>;
    const nested = record.error;
    if (typeof record.message === 'string') return record.message;
    if (
      typeof nested === 'object' &&
      nested !== null &&
      typeof (nested as Record<string, unknown>).message === 'string'
    ) {
      return (nested as { message: string }).message;
    }
    return JSON.stringify(error);
  }
  return String(error);
}
