/**
 * A per-call timeout around any {@link Model}, for callers that make model calls outside the agent loop
 * (the eval's Standard / CoT / CoT-SC calls) or want one limit for every call.
 *
 * @module
 */
import { timeoutSignal } from '../util/own.js';
import { seconds } from './call-progress.js';
import { ModelTimeoutError } from './errors.js';
import type { Model, ModelRequest, ModelStreamPart } from './types.js';

/**
 * `model`, with every `generate` and `stream` call cut after `timeoutMs` (the caller's own signal still
 * applies). A cut call throws a {@link ModelTimeoutError} that says how far it got, e.g. `no response
 * headers within 120 s (model timeout: 120 s)`; the HTTP request is aborted.
 *
 * @param timeoutMs - Limit for one call in milliseconds. There is no default: pass the limit you want
 *   (the CLI's `--model-timeout` defaults to 2 minutes).
 */
export function withModelTimeout(model: Model, timeoutMs: number): Model {
  const timed: Model = {
    ...model,
    generate: async (request) => {
      const timer = timeoutSignal(timeoutMs);
      try {
        return await model.generate(withSignal(request, timer.signal));
      } catch (error) {
        throw cutError(error, timer.signal, model.id, timeoutMs);
      } finally {
        timer.clear();
      }
    },
  };
  const { stream } = model;
  if (stream) {
    timed.stream = async function* (request: ModelRequest): AsyncGenerator<ModelStreamPart> {
      const timer = timeoutSignal(timeoutMs);
      try {
        yield* stream.call(model, withSignal(request, timer.signal));
      } catch (error) {
        throw cutError(error, timer.signal, model.id, timeoutMs);
      } finally {
        timer.clear();
      }
    };
  }
  return timed;
}

function withSignal(request: ModelRequest, timeout: AbortSignal): ModelRequest {
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  return { ...request, signal };
}

/** The error to throw for a failed call: a {@link ModelTimeoutError} when this timeout cut it. */
function cutError(error: unknown, timeout: AbortSignal, modelId: string, timeoutMs: number): unknown {
  if (!timeout.aborted) return error;
  const limit = `model timeout: ${seconds(timeoutMs)}`;
  const what =
    error instanceof ModelTimeoutError ? error.what : `no complete answer within ${seconds(timeoutMs)}`;
  return new ModelTimeoutError(modelId, `${what} (${limit})`, { cause: error });
}
