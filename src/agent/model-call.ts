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
import { errorMessage } from '../util/own.js';
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
  const parts = model.stream({ ...request, signal: controller.signal })[Symbol.asyncIterator]();
  // As `for await` does: the stream is closed (`return()`) when reading stops before its end, but not
  // when it failed or ended by itself.
  let open = true;
  let ended = false;
  try {
    for (;;) {
      let next: IteratorResult<ModelStreamPart>;
      try {
        next = yield* awaited(parts.next());
      } catch (error) {
        open = false;
        throw error;
      }
      if (next.done) {
        open = false;
        ended = true;
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
        break;
      }
    }
  } finally {
    outer?.removeEventListener('abort', onAbort);
    // Cancels the HTTP request when we stopped reading early or the stream failed. Not after a normal
    // end: the request is over, and an abort makes a DOMException with a stack trace (a fifth of a
    // streamed step's time).
    if (!ended) controller.abort();
    if (open) yield* awaited(parts.return?.());
  }
  outer?.throwIfAborted();
  return response ?? { text, usage: {}, finishReason: 'unknown' };
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

/** Adds usage field by field; a field stays `undefined` until some call reports it. */
export function addUsage(total: ModelUsage, next: ModelUsage): ModelUsage {
  const add = (a: number | undefined, b: number | undefined) =>
    a === undefined ? b : b === undefined ? a : a + b;
  return {
    inputTokens: add(total.inputTokens, next.inputTokens),
    outputTokens: add(total.outputTokens, next.outputTokens),
    cachedInputTokens: add(total.cachedInputTokens, next.cachedInputTokens),
  };
}
