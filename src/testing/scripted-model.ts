/**
 * A scripted model for tests: replies with a fixed list of turns and fails loudly when the loop calls it
 * more often than scripted (an idea from the OpenAI Agents SDK's test model).
 *
 * @module
 */
import type { Model, ModelRequest, ModelResponse, ModelStreamPart, ModelUsage } from '../models/types.js';

/** One scripted reply: text, a function of the request, or an error to throw. */
export type ScriptedTurn = string | Error | ((request: ModelRequest, callIndex: number) => string);

/** Options for {@link scriptedModel}. */
export interface ScriptedModelOptions {
  /** @default 'scripted' */
  id?: string;
  /** Usage to report per call. @default {} (unknown) */
  usage?: ModelUsage;
  /** Also offer `stream()`, yielding each reply in chunks of this many characters. @default undefined (no streaming) */
  streamChunkChars?: number;
}

/** A {@link Model} that replays a script, plus what it saw. */
export interface ScriptedModel extends Model {
  /** Every request received, in order. */
  readonly requests: ModelRequest[];
  /** Throws unless every scripted turn was used exactly once. */
  assertAllUsed(): void;
}

/**
 * Creates a model that answers call `i` with `turns[i]`.
 *
 * @throws {Error} from `generate` when called more times than there are turns.
 * @example
 * ```ts
 * const model = scriptedModel(['Thought: easy.\nAnswer: 4']);
 * await runAgent({ model, question: '2 + 2?', tools: [] });
 * model.assertAllUsed();
 * ```
 */
export function scriptedModel(
  turns: readonly ScriptedTurn[],
  options: ScriptedModelOptions = {},
): ScriptedModel {
  const requests: ModelRequest[] = [];
  const usage = options.usage ?? {};
  const next = (request: ModelRequest): string => {
    const index = requests.length;
    requests.push(request);
    const turn = turns[index];
    if (turn === undefined) {
      throw new Error(
        `scripted model called ${index + 1} times, but only ${turns.length} turns are scripted`,
      );
    }
    if (turn instanceof Error) throw turn;
    return typeof turn === 'function' ? turn(request, index) : turn;
  };
  const model: ScriptedModel = {
    id: options.id ?? 'scripted',
    requests,
    async generate(request): Promise<ModelResponse> {
      request.signal?.throwIfAborted();
      return { text: next(request), usage: Object.assign({}, usage), finishReason: 'stop' };
    },
    assertAllUsed() {
      if (requests.length !== turns.length) {
        throw new Error(
          `scripted model called ${requests.length} times, but ${turns.length} turns are scripted`,
        );
      }
    },
  };
  const chunk = options.streamChunkChars;
  if (chunk !== undefined && chunk > 0) {
    model.stream = async function* (request): AsyncIterable<ModelStreamPart> {
      const text = next(request);
      for (let i = 0; i < text.length; i += chunk) {
        request.signal?.throwIfAborted();
        yield { type: 'text-delta', text: text.slice(i, i + chunk) };
      }
      yield { type: 'finish', usage: Object.assign({}, usage), finishReason: 'stop' };
    };
  }
  return model;
}
