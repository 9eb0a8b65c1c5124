/**
 * The replay model: the model turns of a recorded run (a taoloop JSONL trace), returned in order.
 *
 * The tools are not replayed: the loop runs whatever tools it is given, so a replay shows what the
 * same model turns do against changed tools, prompts or limits, without calling a provider. A replay
 * never invents a turn: asked for one more turn than was recorded, it fails.
 *
 * Portable: it reads a {@link Trace} already parsed; `replayModel` (`replay-model.ts`) also takes a file.
 *
 * @module
 */
import type { Step } from '../agent/types.js';
import type { Model, ModelRequest, ModelResponse } from '../models/types.js';
import type { Trace } from './trace-format.js';

/** Options for {@link replayModel}. */
export interface ReplayModelOptions {
  /**
   * The readable id the loop and traces show.
   * @default `replay:<trace file>` for a file, `replay:<recorded model id>` for a {@link Trace}
   */
  id?: string;
}

/** A {@link Model} that replays recorded turns, plus how far it got. */
export interface ReplayModel extends Model {
  /** How many model turns the recording holds. */
  readonly recordedTurns: number;
  /** How many of them have been returned so far. */
  readonly usedTurns: number;
}

/**
 * Replays the model turns of a recorded run: call `i` returns step `i`'s `modelText` as recorded
 * (before the loop's cut at an invented observation, so the loop cuts it again the same way), its
 * usage (fields absent from the recording stay `undefined`) and its finish reason. For native-mode
 * steps the recorded tool call is returned too, and the model reports `supportsToolCalls` when the
 * recording has any tool call, so `modelSettings.mode: 'auto'` replays a native run natively.
 *
 * Every step of the trace is one model turn, format-error turns included; a model call that failed
 * is not a step, so a run that ended with `error` replays up to its last completed turn.
 *
 * @param trace A trace, from `parseTrace` or `readTrace`.
 * @throws {Error} from `generate` when asked for a turn beyond the recording ("the recorded run has
 *   only N model turns"), and the abort reason when the request's signal has fired.
 * @example
 * ```ts
 * const replay = recordedModel(parseTrace(text, 'runs/2025-01-01.jsonl'));
 * const result = await runAgent({ model: replay, question: trace.header.question, tools });
 * ```
 */
export function recordedModel(trace: Trace, options: ReplayModelOptions = {}): ReplayModel {
  const id = options.id ?? `replay:${trace.header.modelId}`;
  const turns = trace.steps.map(toResponse);
  let used = 0;
  return {
    id,
    supportsToolCalls: trace.steps.some((step) => step.toolCall !== undefined),
    get recordedTurns() {
      return turns.length;
    },
    get usedTurns() {
      return used;
    },
    async generate(request: ModelRequest): Promise<ModelResponse> {
      request.signal?.throwIfAborted();
      const turn = turns[used];
      if (turn === undefined) {
        throw new Error(
          `${id}: the recorded run has only ${turns.length} model turns; a replay never invents turn ${used + 1}.`,
        );
      }
      used += 1;
      return structuredClone(turn);
    },
  };
}

/** One recorded step as the model response that produced it. */
function toResponse(step: Step): ModelResponse {
  return {
    text: step.modelText,
    // Every call of a native step: the first, then the others in order (each was answered in the step).
    ...(step.toolCall && { toolCalls: [step.toolCall, ...(step.otherCalls ?? []).map((c) => c.toolCall)] }),
    usage: { ...step.usage },
    finishReason: step.finishReason,
  };
}
