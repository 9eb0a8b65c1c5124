/**
 * Fallback models: when a model call fails after its own retries, the next model of the list takes the
 * same request. The switch is an event (`model-fallback`), and the step records which model answered, so
 * its usage and cost are that model's.
 *
 * @module
 */
import type { Model, ModelRequest, ModelResponse } from '../models/types.js';
import { anySignal, errorMessage, timeoutSignal } from '../util/own.js';
import { requestTurn } from './model-call.js';
import type { AgentEvent } from './types.js';

/** A model response and the id of the model that gave it (plain data, so a journal can record it). */
export interface AnsweredBy {
  response: ModelResponse;
  modelId: string;
}

type TurnOptions = Parameters<typeof requestTurn>[2];

/**
 * Calls `models[0]`, and on a failure the next model, until one answers. Each attempt has its own
 * `modelTimeoutMs` clock, so a server that hangs is left for the next model. A run that was aborted (its
 * own signal) never falls back: the abort is rethrown.
 *
 * @throws the last model's error when every model failed, or the first error when the run was aborted.
 */
export async function* callWithFallbacks(
  models: readonly Model[],
  request: ModelRequest,
  options: TurnOptions & { modelTimeoutMs?: number | undefined },
): AsyncGenerator<AgentEvent, AnsweredBy> {
  const runSignal = request.signal;
  for (let i = 0; ; i++) {
    const model = models[i]!;
    const clock = options.modelTimeoutMs === undefined ? undefined : timeoutSignal(options.modelTimeoutMs);
    const signal = anySignal(runSignal, clock?.signal);
    try {
      const attempt = signal === undefined ? request : { ...request, signal };
      return { response: yield* requestTurn(model, attempt, options), modelId: model.id };
    } catch (error) {
      const next = models[i + 1];
      if (next === undefined || runSignal?.aborted) throw error;
      yield {
        type: 'model-fallback',
        step: options.step,
        fromModelId: model.id,
        toModelId: next.id,
        error: errorMessage(error),
      };
    } finally {
      clock?.clear();
    }
  }
}
