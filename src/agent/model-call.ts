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
import { estimateTokens } from './context.js';
import { RetryFeed } from './retries.js';
import { CLIENT_CAP_REASON, capResponse, DEFAULT_MAX_TURN_CHARS } from './turn-cap.js';
import type { AgentEvent } from './types.js';

/**
 * The reason a streamed call's own signal is aborted with once its reading is over: one shared AbortError,
 * since `abort()` without a reason builds a new `DOMException` (and its stack) on every call, about 5% of
 * a streamed step's loop overhead (bench loop-overhead).
 */
const CALL_OVER = new DOMException('The model call is over (read to its end, cut, or left).', 'AbortError');

/**
 * Calls the model. With `stream`, yields a `model-delta` event for each text delta as it arrives (and a
 * `reasoning-delta` event for each piece of reasoning the provider sends apart from the text) and stops
 * reading (cancelling the request) as soon as the model starts writing its own observation, or a new step
 * after its answer, so a server that ignores stop sequences costs no more tokens. Yields a `model-retry`
 * event for each retry the model reports (`ModelRequest.onRetry`) as it happens. Returns the complete
 * response. A consumer that stops reading the run closes the stream and cancels the request.
 *
 * A streamed call that `request.signal` aborts once the request was sent (the run's abort or `timeoutMs`,
 * or `modelTimeoutMs`), or that fails after text arrived (the server broke the stream off), throws as before,
 * but first passes what it spent to `options.onAborted`: the usage the provider reported if it got that far,
 * else {@link estimateUsage} of the request and the text received (marked `estimated`, as for a stream cut
 * client-side), since the prompt was sent and that text generated. A call that fails before any text (an
 * HTTP error, a refused connection) spent nothing that can be told, and is not counted.
 */
export async function* callModel(
  model: Model,
  request: ModelRequest,
  options: {
    stream: boolean;
    labels: LabelSet;
    cut?: boolean;
    step: number;
    maxChars?: number;
    onAborted?: AbortedCallListener | undefined;
  },
): AsyncGenerator<AgentEvent, ModelResponse> {
  const maxChars = options.maxChars ?? DEFAULT_MAX_TURN_CHARS;
  const retries = new RetryFeed();
  if (!options.stream || !model.stream) {
    const response = yield* retries.until(model.generate(retries.watch(request)), options.step);
    return capResponse(response, maxChars);
  }
  // The request gets a signal of its own, so that reading which stops early can cancel it.
  const controller = new AbortController();
  const outer = request.signal;
  const onAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onAbort, { once: true });
  // Native tool calling has no text protocol to cut at.
  const cut = options.cut === false ? undefined : new StreamCut(options.labels);
  let text = '';
  let reasoning = '';
  const toolCalls: ModelToolCall[] = [];
  let response: ModelResponse | undefined;
  // An abort before the call starts sends nothing, so spends nothing.
  const sent = !outer?.aborted;
  const spent = () => {
    if (!sent || (!outer?.aborted && text === '' && reasoning === '')) return;
    const reported = response && response.usage.inputTokens !== undefined;
    options.onAborted?.(reported ? response!.usage : estimateUsage(request, text), text, model.id);
  };
  let parts: AsyncIterator<ModelStreamPart> | undefined;
  try {
    parts = model.stream(retries.watch({ ...request, signal: controller.signal }))[Symbol.asyncIterator]();
    for (let first = true; ; first = false) {
      // Retries come before a stream's first part (a provider retries the request, not a stream half read),
      // so only that wait watches for them as they happen; a later one is passed on at the next part. Watching
      // every part cost about an eighth of a streamed step's loop overhead (bench loop-overhead: 190.8 -> 168.8
      // µs a step, against its 200 µs ceiling).
      const next = first ? yield* retries.until(parts.next(), options.step) : await parts.next();
      if (!first) yield* retries.take(options.step);
      if (next.done) break;
      const part = next.value;
      if (part.type === 'finish') {
        response = {
          text,
          ...(reasoning && { reasoning }),
          ...(toolCalls.length && { toolCalls }),
          usage: part.usage,
          finishReason: part.finishReason,
          rawFinishReason: part.rawFinishReason,
        };
      } else if (part.type === 'tool-call') {
        toolCalls.push(part.toolCall);
      } else if (part.type === 'reasoning-delta') {
        reasoning += part.text;
        yield { type: 'reasoning-delta', step: options.step, text: part.text };
      } else if (text.length + part.text.length > maxChars) {
        // Past the client-side cap (the server ignored max_tokens): keep what fits and stop reading.
        const fits = part.text.slice(0, maxChars - text.length);
        text += fits;
        if (fits !== '') yield { type: 'model-delta', step: options.step, text: fits };
        response = {
          text,
          usage: estimateUsage(request, text),
          finishReason: 'length',
          rawFinishReason: CLIENT_CAP_REASON,
        };
        if (reasoning) response.reasoning = reasoning;
        break;
      } else {
        text += part.text;
        yield { type: 'model-delta', step: options.step, text: part.text };
        if (cut && cut.push(part.text) >= 0) {
          response = {
            text,
            usage: estimateUsage(request, text),
            finishReason: 'stop',
            rawFinishReason: 'client-cut',
          };
          if (reasoning) response.reasoning = reasoning;
          break;
        }
      }
    }
  } catch (error) {
    spent();
    throw error;
  } finally {
    outer?.removeEventListener('abort', onAbort);
    // However reading ended (the stream's end, a cut, a failure, a consumer that stopped), the request is
    // over: cancel whatever of it is still open, and close the stream (what `for await` did on a break).
    controller.abort(CALL_OVER);
    await parts?.return?.();
  }
  if (outer?.aborted) {
    spent();
    outer.throwIfAborted();
  }
  return capResponse(
    response ?? { text, ...(reasoning && { reasoning }), usage: {}, finishReason: 'unknown' },
    maxChars,
  );
}

/**
 * Told what a streamed model call aborted mid-way (or broken off by the server after text arrived) spent:
 * `usage` (estimated unless the provider had reported it), the `text` received before it ended and the id
 * of the model called.
 */
export type AbortedCallListener = (usage: ModelUsage, text: string, modelId: string) => void;

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
export async function* requestTurn(
  model: Model,
  request: ModelRequest,
  options: {
    stream: boolean;
    labels: LabelSet;
    stopState: StopSequenceState;
    cut?: boolean;
    step: number;
    /** Client-side cap on the turn's characters (see `turn-cap.ts`). @default DEFAULT_MAX_TURN_CHARS */
    maxChars?: number;
    /** Told what a streamed call that was aborted spent (see {@link callModel}). */
    onAborted?: AbortedCallListener | undefined;
  },
): AsyncGenerator<AgentEvent, ModelResponse> {
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
    yield { type: 'model-retry', step: options.step, retry: 1, error: STOP_REJECTED, delayMs: 0 };
    return yield* callModel(model, withoutStop(), options);
  }
}

/** The `error` of the `model-retry` event of a call made again without stop sequences. */
export const STOP_REJECTED = 'the server rejected stop sequences';

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
  if (total.estimated || next.estimated) sum.estimated = true;
  return sum;
}

/**
 * The usage of a call whose stream was cut on the client side (at an invented observation, at the turn's
 * size cap, or by an abort), where the provider sends no usage: input
 * from the request's size (its messages and tool definitions), output from the text received, at about 4
 * characters a token, marked `estimated`. So totals and cost count the call instead of dropping it.
 */
export function estimateUsage(request: ModelRequest, text: string): ModelUsage {
  let chars = 0;
  for (const message of request.messages) chars += message.content.length + MESSAGE_OVERHEAD_CHARS;
  if (request.tools?.length) chars += JSON.stringify(request.tools).length;
  return { inputTokens: Math.ceil(chars / 4), outputTokens: estimateTokens(text), estimated: true };
}

/** Role markers and separators a chat format adds per message, in characters (about 4 tokens). */
const MESSAGE_OVERHEAD_CHARS = 16;
