/**
 * One model call, streamed or not, with the client-side cut at an invented observation.
 *
 * @module
 */

import type {
  Model,
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
  ModelToolCall,
  ModelUsage,
} from '../models/types.js';
import type { LabelSet } from '../react/labels.js';
import { StreamCut } from '../react/stream-cut.js';
import { errorMessage, isPromiseLike } from '../util/own.js';
import { awaited, type Effects } from './effects.js';
import type { AgentEvent } from './types.js';

/**
 * Calls the model. With `stream`, yields a `model-delta` event for each text delta as it arrives and stops
 * reading (cancelling the request) as soon as the model starts writing its own observation, or a new step
 * after its answer, so a server that ignores stop sequences costs no more tokens. Returns the complete
 * response. Runs under an {@link Effects} driver.
 */
export function* callModel(
  model: Model,
  request: ModelRequest,
  options: { stream: boolean; labels: LabelSet; cut?: boolean; step: number },
): Effects<AgentEvent, ModelResponse> {
  if (!options.stream || !model.stream) return yield* awaited(model.generate(request));
  const controller = new AbortController();
  const outer = request.signal;
  const onAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onAbort, { once: true });
  let text = '';
  // Native tool calling has no text protocol to cut at.
  const cut = options.cut === false ? undefined : new StreamCut(options.labels);
  const toolCalls: ModelToolCall[] = [];
  let response: ModelResponse | undefined;
  let parts: AsyncIterator<ModelStreamPart> | undefined;
  // How reading stopped: `ended` (the stream finished), `failed` (reading it threw), `cut` (we stopped at
  // an invented observation), or still `reading` in `finally` when the run was closed or threw meanwhile.
  let state: 'reading' | 'ended' | 'failed' | 'cut' = 'reading';
  try {
    parts = model.stream({ ...request, signal: controller.signal })[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<ModelStreamPart>;
      try {
        next = yield* awaited(parts.next());
      } catch (error) {
        state = 'failed';
        throw error;
      }
      if (next.done) {
        state = 'ended';
        break;
      }
      const part = next.value;
      if (part.type === 'finish') {
        response = {
          text,
          ...(toolCalls.length && { toolCalls }),
          usage: part.usage,
          finishReason: part.finishReason,
          rawFinishReason: part.rawFinishReason,
        };
        continue;
      }
      if (part.type === 'tool-call') {
        toolCalls.push(part.toolCall);
        continue;
      }
      text += part.text;
      yield { type: 'model-delta', step: options.step, text: part.text };
      if (cut && cut.push(part.text) >= 0) {
        response = { text, usage: {}, finishReason: 'stop', rawFinishReason: 'client-cut' };
        state = 'cut';
        break;
      }
    }
    // As `for await` does after a `break`: close the stream and wait until it is closed. Here, not in
    // `finally`: a generator being closed with `return()` must not wait (see `effects.ts`).
    if (state === 'cut') yield* awaited(parts.return?.());
  } finally {
    outer?.removeEventListener('abort', onAbort);
    // Cancels the HTTP request when we stopped reading early or the stream failed. Not after a normal
    // end: the request is over, and an abort makes a DOMException with a stack trace (a fifth of a
    // streamed step's time).
    if (state !== 'ended') controller.abort();
    // The run was closed (its consumer stopped reading) or threw while the stream was open: close the
    // stream too, without waiting for it.
    if (state === 'reading' && parts) closeQuietly(parts);
  }
  outer?.throwIfAborted();
  return response ?? { text, usage: {}, finishReason: 'unknown' };
}

/** Calls the iterator's `return()` without waiting; a failure to close is not the caller's problem. */
function closeQuietly(iterator: AsyncIterator<unknown>): void {
  try {
    const closing = iterator.return?.();
    if (isPromiseLike(closing)) Promise.resolve(closing).catch(() => undefined);
  } catch {
    // Closing threw synchronously: nothing more to do.
  }
}

/** `a + b`, where an unknown count (`undefined`) on one side is the other side. */
function add(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : a + b;
}

/** Whether to keep sending stop sequences; cleared for the rest of a run once a provider rejects them. */
export interface StopSequenceState {
  send: boolean;
}

/**
 * {@link callModel}, but when the provider rejects stop sequences (some reasoning models answer HTTP 400
 * "Unsupported parameter: 'stop'") the call is made again without them, and later calls in the run skip
 * them. The client-side cut at an invented observation still applies.
 */
export function* requestTurn(
  model: Model,
  request: ModelRequest,
  options: { stream: boolean; labels: LabelSet; stopState: StopSequenceState; cut?: boolean; step: number },
): Effects<AgentEvent, ModelResponse> {
  const withoutStop = (): ModelRequest => {
    const { stopSequences: _dropped, ...rest } = request;
    return rest;
  };
  if (!options.stopState.send) return yield* callModel(model, withoutStop(), options);
  try {
    return yield* callModel(model, request, options);
  } catch (error) {
    if (request.signal?.aborted || !isStopSequenceRejection(error)) throw error;
    options.stopState.send = false;
    return yield* callModel(model, withoutStop(), options);
  }
}

/** True for a provider error that says the `stop` parameter is not accepted. */
export function isStopSequenceRejection(error: unknown): boolean {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  if (status !== undefined && status !== 400 && status !== 422) return false;
  const message = errorMessage(error);
  return (
    /\bstop(_sequences|Sequences)?\b/i.test(message) &&
    /unsupported|not supported|invalid|unknown|not allowed|unrecognized/i.test(message)
  );
}

/**
 * Adds usage field by field; a field stays `undefined` until some call reports it (`cacheWriteInputTokens`
 * is left out until then, as providers without a cache-write charge leave it out).
 */
export function addUsage(total: ModelUsage, next: ModelUsage): ModelUsage {
  const sum: ModelUsage = {
    inputTokens: add(total.inputTokens, next.inputTokens),
    outputTokens: add(total.outputTokens, next.outputTokens),
    cachedInputTokens: add(total.cachedInputTokens, next.cachedInputTokens),
  };
  const cacheWrite = add(total.cacheWriteInputTokens, next.cacheWriteInputTokens);
  if (cacheWrite !== undefined) sum.cacheWriteInputTokens = cacheWrite;
  return sum;
}
