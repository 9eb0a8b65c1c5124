/**
 * The replay model of a recorded run given as a file (see `recorded-model.ts` for what a replay does).
 *
 * @module
 */
import { type ReplayModel, type ReplayModelOptions, recordedModel } from './recorded-model.js';
import { readTrace, type Trace } from './trace.js';

export type { ReplayModel, ReplayModelOptions } from './recorded-model.js';

/**
 * `recordedModel` of a {@link Trace} or of a trace file: the model turns of a recorded run, returned
 * in order. The id defaults to `replay:<trace file>` for a file.
 *
 * @param source A {@link Trace} (from `readTrace`) or the path of a trace file.
 * @throws {TraceFormatError} (at creation) when the file is not a taoloop trace; other read errors as
 *   thrown by `node:fs`.
 * @throws {Error} from `generate` as `recordedModel`'s.
 * @example
 * ```ts
 * const replay = replayModel('runs/2025-01-01.jsonl');
 * const result = await runAgent({ model: replay, question: trace.header.question, tools });
 * ```
 */
export function replayModel(source: Trace | string, options: ReplayModelOptions = {}): ReplayModel {
  if (typeof source !== 'string') return recordedModel(source, options);
  return recordedModel(readTrace(source), { id: options.id ?? `replay:${source}` });
}
