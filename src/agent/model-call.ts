/**
 * A step's model call, top-down: {@link modelTurn} tries the step's model, then each fallback model
 * (each attempt on its own `modelTimeoutMs` clock); each attempt is {@link withoutRejectedStop} (made again
 * without stop sequences when a server rejects them); and each call is {@link streamTurn} (streamed where
 * the model can, cut at an invented observation and capped at the turn's size).
 *
 * @module
 */

import { seconds } from '../models/call-progress.js';
import { ModelTimeoutError } from '../models/errors.js';
import type {
  Model,
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
  ModelToolCall,
  ModelUsage,
} from '../models/types.js';
import type { LabelSet } from '../react/labels.js';
import { ShownReply } from '../react/settled.js';
import { anySignal, errorMessage, timeoutSignal } from '../util/own.js';
import { estimateUsage } from './budget.js';
import { RetryFeed } from './retries.js';
import { CLIENT_CAP_REASON, capResponse, DEFAULT_MAX_TURN_CHARS } from './turn-cap.js';
import type { AgentEvent } from './types.js';

/** A model response and the id of the model that gave it (plain data, so a journal can record it). */
export interface AnsweredBy {
  response: ModelResponse;
  modelId: string;
}

/** Whether to keep sending stop sequences; cleared for the rest of a run once a provider rejects them. */
export interface StopSequenceState {
  send: boolean;
}

/**
 * Told what a streamed model call aborted mid-way (or broken off by the server after text arrived) spent:
 * `usage` (estimated unless the provider had reported it), the `text` received before it ended and the id
 * of the model called.
 */
export type AbortedCallListener = (usage: ModelUsage, text: string, modelId: string) => void;

/** How a run makes its model calls. */
export interface TurnSettings {
  /** The step (1-based), for the events. */
  step: number;
  /** Use the model's `stream()` when it has one. */
  stream: boolean;
  labels: LabelSet;
  /** Cut the stream at an invented observation (text mode; native tool calling has no text to cut). */
  cut: boolean;
  /** Client-side cap on the turn's characters (see `turn-cap.ts`). @default DEFAULT_MAX_TURN_CHARS */
  maxChars?: number;
  /** Limit for each attempt in milliseconds. */
  modelTimeoutMs?: number | undefined;
  /** A durable journal keeps only an error's message: a timed-out call then says so in its message. */
  messageOnly?: boolean;
  stopState: StopSequenceState;
  /** Told what a streamed call that was aborted spent (see {@link streamTurn}). */
  onAborted?: AbortedCallListener | undefined;
}

/**
 * Calls `models[0]`, and on a failure the next model, until one answers: the step's model, then
 * `fallbackModels`. Each attempt has its own `modelTimeoutMs` clock, so a server that hangs is left for the
 * next model, and a `model-fallback` event says who takes over. A run that was aborted (its own signal)
 * never falls back: the abort is rethrown.
 *
 * @throws the last model's error when every model failed, or the first error when the run was aborted.
 */
export async function* modelTurn(
  models: readonly Model[],
  request: ModelRequest,
  settings: TurnSettings,
): AsyncGenerator<AgentEvent, AnsweredBy> {
  const runSignal = request.signal;
  for (let i = 0; ; i++) {
    const model = models[i]!;
    const { modelTimeoutMs } = settings;
    const clock = modelTimeoutMs === undefined ? undefined : timeoutSignal(modelTimeoutMs);
    const signal = anySignal(runSignal, clock?.signal);
    try {
      const attempt = signal === undefined ? request : { ...request, signal };
      return { response: yield* withoutRejectedStop(model, attempt, settings), modelId: model.id };
    } catch (error) {
      const next = models[i + 1];
      if (next === undefined || runSignal?.aborted) {
        if (
          settings.messageOnly &&
          clock?.signal.aborted &&
          !runSignal?.aborted &&
          !(error instanceof ModelTimeoutError)
        )
          throw new Error(
            `no complete answer from the model within ${seconds(modelTimeoutMs!)} (modelTimeoutMs)`,
          );
        throw error;
      }
      yield {
        type: 'model-fallback',
        step: settings.step,
        fromModelId: model.id,
        toModelId: next.id,
        error: errorMessage(error),
      };
    } finally {
      clock?.clear();
    }
  }
}

/**
 * {@link streamTurn}, but when the provider rejects stop sequences (some reasoning models answer HTTP 400
 * "Unsupported parameter: 'stop'") the call is made again without them, and later calls in the run skip
 * them. The client-side cut at an invented observation still applies.
 */
async function* withoutRejectedStop(
  model: Model,
  request: ModelRequest,
  settings: TurnSettings,
): AsyncGenerator<AgentEvent, ModelResponse> {
  const withoutStop = (): ModelRequest => {
    const { stopSequences: _dropped, ...rest } = request;
    return rest;
  };
  if (!settings.stopState.send) return yield* streamTurn(model, withoutStop(), settings);
  try {
    return yield* streamTurn(model, request, settings);
  } catch (error) {
    if (request.signal?.aborted || !isStopSequenceRejection(error)) throw error;
    settings.stopState.send = false;
    yield { type: 'model-retry', step: settings.step, retry: 1, error: STOP_REJECTED, delayMs: 0 };
    return yield* streamTurn(model, withoutStop(), settings);
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
 * The reason a streamed call's own signal is aborted with once its reading is over: one shared AbortError,
 * since `abort()` without a reason builds a new `DOMException` (and its stack) on every call, about 5% of
 * a streamed step's loop overhead (bench loop-overhead).
 */
const CALL_OVER = new DOMException('The model call is over (read to its end, cut, or left).', 'AbortError');

/**
 * One call of one model. With `stream`, yields a `model-delta` event for each text delta as it arrives (and
 * a `reasoning-delta` event for each piece of reasoning the provider sends apart from the text) and stops
 * reading (cancelling the request) as soon as the model starts writing its own observation, or a new step
 * after its answer, so a server that ignores stop sequences costs no more tokens. Yields a `model-retry`
 * event for each retry the model reports (`ModelRequest.onRetry`) as it happens. Returns the complete
 * response. A consumer that stops reading the run closes the stream and cancels the request.
 *
 * A streamed call that `request.signal` aborts once the request was sent (the run's abort or `timeoutMs`,
 * or `modelTimeoutMs`), or that fails after text arrived (the server broke the stream off), throws its error,
 * but first passes what it spent to `onAborted`: the usage the provider reported if it got that far,
 * else {@link estimateUsage} of the request and the text received (marked `estimated`, as for a stream cut
 * client-side), since the prompt was sent and that text generated. A call that fails before any text (an
 * HTTP error, a refused connection) spent nothing that can be told, and is not counted.
 */
export async function* streamTurn(
  model: Model,
  request: ModelRequest,
  settings: TurnSettings,
): AsyncGenerator<AgentEvent, ModelResponse> {
  const { step } = settings;
  const maxChars = settings.maxChars ?? DEFAULT_MAX_TURN_CHARS;
  const retries = new RetryFeed();
  if (!settings.stream || !model.stream) {
    const response = yield* retries.until(model.generate(retries.watch(request)), step);
    return capResponse(response, maxChars);
  }
  // The request gets a signal of its own, so that reading which stops early can cancel it.
  const controller = new AbortController();
  const outer = request.signal;
  const onAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onAbort, { once: true });
  // What may be shown of the reply is decided here, once, for every front end and in the run's labels.
  const reply = settings.cut ? new ShownReply(settings.labels) : undefined;
  let text = '';
  let reasoning = '';
  const toolCalls: ModelToolCall[] = [];
  let response: ModelResponse | undefined;
  // An abort before the call starts sends nothing, so spends nothing.
  const sent = !outer?.aborted;
  const spent = () => {
    if (!sent || (!outer?.aborted && text === '' && reasoning === '')) return;
    const reported = response && response.usage.inputTokens !== undefined;
    settings.onAborted?.(reported ? response!.usage : estimateUsage(request, text), text, model.id);
  };
  /** The response of a stream this side stopped reading: usage estimated, `rawFinishReason` says why. */
  const stoppedHere = (
    finishReason: ModelResponse['finishReason'],
    rawFinishReason: string,
  ): ModelResponse => ({
    text,
    ...(reasoning && { reasoning }),
    usage: estimateUsage(request, text),
    finishReason,
    rawFinishReason,
  });
  let parts: AsyncIterator<ModelStreamPart> | undefined;
  try {
    parts = model.stream(retries.watch({ ...request, signal: controller.signal }))[Symbol.asyncIterator]();
    for (let first = true; ; first = false) {
      // Most retries come before a stream's first part (a provider retries the request), so only that wait
      // watches for them as they happen; a later one (a stream cut off midway, retried by the adapter) is
      // passed on with the next part.
      const next = first ? yield* retries.until(parts.next(), step) : await parts.next();
      if (!first) yield* retries.take(step);
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
        yield { type: 'reasoning-delta', step, text: part.text };
      } else if (text.length + part.text.length > maxChars) {
        // Past the client-side cap (the server ignored max_tokens): keep what fits and stop reading.
        const fits = part.text.slice(0, maxChars - text.length);
        text += fits;
        if (fits !== '')
          yield { type: 'model-delta', step, text: fits, shown: reply ? reply.push(fits).shown : fits };
        response = stoppedHere('length', CLIENT_CAP_REASON);
        break;
      } else {
        text += part.text;
        const { shown, cut } = reply ? reply.push(part.text) : { shown: part.text, cut: false };
        yield { type: 'model-delta', step, text: part.text, shown };
        if (cut) {
          response = stoppedHere('stop', 'client-cut');
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
