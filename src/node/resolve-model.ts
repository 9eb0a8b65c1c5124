/**
 * `resolveModelSpec` for Node: every spec form, including the two that need Node, `local:` (llama.cpp
 * in process, `models/local.ts`, which imports node-llama-cpp) and `replay:` (a trace file, `trace/replay-model.ts`).
 *
 * @module
 */

import { resolveHostedModel } from '../models/providers.js';
import { checkMaxRetries, parseModelSpec, type ResolveModelOptions } from '../models/spec.js';
import type { Model } from '../models/types.js';
import { type Env, processEnv } from '../util/env.js';

/**
 * Parses `spec` and builds the model (see the portable `resolveModelSpec` for hosted providers), plus:
 *
 * - `local:<file.gguf>` / `local:hf:<user>/<repo>/<file>.gguf` / `local:`: in-process llama.cpp
 *   (`node-llama-cpp`, an optional peer dependency); `local:` alone is the default model, downloaded once
 *   into `$TAOLOOP_CACHE_DIR/models` (else `~/.cache/taoloop/models`). See `localModel`.
 * - `replay:<trace.jsonl>`: the recorded model turns of a taoloop trace, in order (see `replayModel`);
 *   asked for more turns than were recorded, the model call fails.
 *
 * @param env Where API keys and base URLs are read from. @default process.env
 * @throws {ModelConfigError} for a bad spec, a missing API key or provider package, a bad `maxRetries`;
 *   for `local:`, a missing GGUF file or a download that cannot be made (offline: within about 2 s).
 * @throws {Error} for `replay:`, a trace file that cannot be read (`TraceFormatError` when it is not a trace).
 */
export async function resolveModelSpec(
  spec: string,
  env: Env = processEnv(),
  options: ResolveModelOptions = {},
): Promise<Model> {
  const parsed = parseModelSpec(spec);
  checkMaxRetries(options.maxRetries);
  if (parsed.provider === 'local') {
    const { localModel } = await import('../models/local.js');
    return localModel(parsed.source, { download: { env: env as NodeJS.ProcessEnv } });
  }
  if (parsed.provider === 'replay') {
    const { replayModel } = await import('../trace/replay-model.js');
    return replayModel(parsed.file);
  }
  return resolveHostedModel(parsed, env, options);
}
