/**
 * The embedded local model: a GGUF file run in-process by llama.cpp through node-llama-cpp
 * (https://node-llama-cpp.withcat.ai). Spec `local:<file.gguf>`, `local:hf:<user>/<repo>/<file>.gguf`, or
 * `local:` for the default model (Qwen2.5-1.5B-Instruct Q4_K_M, downloaded once into a cache folder).
 *
 * - Turns are generated under a GBNF grammar built from `ModelRequest.turnFormat`, so every turn is
 *   `Thought: ...` then one `Action: tool[input]` naming a real tool (or `finish`), or `Answer: ...`. With a
 *   typed answer (`answerJsonSchema`), the answer is JSON under node-llama-cpp's grammar for that schema.
 * - One context sequence per adapter keeps its KV cache between calls: the loop re-sends the whole
 *   conversation each step, and only the tokens after the shared prefix (the observation and the new turn)
 *   are evaluated. Usage reports prompt, cached and generated tokens.
 * - node-llama-cpp is imported only when a local model is created: importing taoloop loads none of it.
 *
 * @module
 */
import { open, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Llama } from 'node-llama-cpp';
import { errorMessage } from '../util/own.js';
import { ModelCallError, ModelConfigError } from './errors.js';
import { DEFAULT_LOCAL_MODEL_URI, type EnsureModelOptions, ensureLocalModelFile } from './local-download.js';
import {
  createLocalSession,
  type LoadedModel,
  type LocalSession,
  type LocalSessionOptions,
  llamaCppInstalled,
  llamaCppMissing,
  loadModelOnce,
} from './local-engine.js';
import { type TurnGrammarLimits, turnGrammar } from './local-grammar.js';
import { toLlamaJsonSchema } from './local-json-schema.js';
import type { Model, ModelRequest, ModelResponse, ModelStreamPart } from './types.js';

export {
  DEFAULT_LOCAL_MODEL_URI,
  type EnsureModelOptions,
  ensureDefaultLocalModel,
  ensureLocalModelFile,
  modelCacheDir,
} from './local-download.js';
export { DEFAULT_MAX_CONTEXT_TOKENS, defaultThreads } from './local-engine.js';
export {
  answerJsonRules,
  DEFAULT_TURN_GRAMMAR_LIMITS,
  type TurnGrammarLimits,
  turnGrammar,
} from './local-grammar.js';
export { toLlamaJsonSchema } from './local-json-schema.js';

/** Options for {@link localModel}. */
export interface LocalModelOptions extends LocalSessionOptions {
  /** Character limits written into the turn grammar. @default DEFAULT_TURN_GRAMMAR_LIMITS */
  grammarLimits?: TurnGrammarLimits;
  /** Constrain turns with the grammar when the request has a `turnFormat`. @default true */
  useGrammar?: boolean;
  /** Where and how `hf:` models are downloaded. */
  download?: EnsureModelOptions;
  /** @default `local:<source as given>` */
  id?: string;
}

/** A {@link Model} backed by an in-process llama.cpp context. */
export interface LocalModel extends Model {
  /** The context size in tokens (the model's training context, capped at `maxContextTokens`). */
  readonly contextWindowTokens: number;
  /** The GGUF file in use. */
  readonly path: string;
  /** Streams a turn: text deltas as tokens are generated, then a finish part with usage. */
  stream(request: ModelRequest): AsyncIterable<ModelStreamPart>;
  /** Frees the context (the loaded model stays cached for the process). */
  dispose(): Promise<void>;
}

/**
 * Where the model file of a `local:` spec is: `''` or `default` is {@link DEFAULT_LOCAL_MODEL_URI},
 * `hf:...` is downloaded into the cache, anything else is a path (relative to the working directory).
 *
 * @throws {ModelConfigError} for a file that does not exist, is not a file, or does not start with the GGUF
 *   magic; or, for `hf:` sources, as {@link ensureLocalModelFile}.
 */
export async function resolveLocalModelPath(
  source: string,
  options: EnsureModelOptions = {},
): Promise<string> {
  const trimmed = source.trim();
  if (trimmed === '' || trimmed.toLowerCase() === 'default') {
    return ensureLocalModelFile(DEFAULT_LOCAL_MODEL_URI, options);
  }
  if (/^hf:/i.test(trimmed)) return ensureLocalModelFile(trimmed, options);
  const path = resolve(trimmed);
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) {
    throw new ModelConfigError(
      `Model file not found: ${path}. Pass an existing GGUF file (--model local:./model.gguf), or use --model local: to download the default model (${DEFAULT_LOCAL_MODEL_URI}).`,
    );
  }
  const file = await open(path, 'r');
  const head = Buffer.alloc(4);
  await file.read(head, 0, 4, 0).finally(() => file.close());
  if (head.toString('latin1') !== 'GGUF') {
    throw new ModelConfigError(`${path} is not a GGUF model file (it does not start with "GGUF").`);
  }
  return path;
}

/**
 * Creates a local model from a `local:` spec's source (see `resolveLocalModelPath`): finds or downloads
 * the file, loads it (once per process per path) and creates a context of its own.
 *
 * @example
 * ```ts
 * const model = await localModel('./qwen2.5-1.5b-instruct-q4_k_m.gguf');
 * const result = await runAgent({ model, tools: [calculator], question: 'What is 17 * 23?' });
 * await model.dispose();
 * ```
 * @throws {ModelConfigError} for a missing file, a download that cannot be made (offline), a file
 *   llama.cpp cannot load (the message names the file), or invalid `grammarLimits`. Calls reject with
 *   `ModelCallError` when generation fails (e.g. a prompt longer than the context), or with the
 *   abort signal's reason.
 */
export async function localModel(source = '', options: LocalModelOptions = {}): Promise<LocalModel> {
  try {
    turnGrammar({ tools: [], labels: { thought: 'T', action: 'A', answer: 'R' } }, options.grammarLimits);
  } catch (error) {
    throw new ModelConfigError(`Invalid grammarLimits: ${errorMessage(error)}`);
  }
  // Checked first: without it, a download of about 1 GB would end in "not installed".
  if (!llamaCppInstalled()) throw llamaCppMissing();
  const path = await resolveLocalModelPath(source, options.download);
  let session: LocalSession;
  let loaded: LoadedModel;
  try {
    loaded = await loadModelOnce(path);
    session = await createLocalSession(loaded, options);
  } catch (error) {
    throw new ModelConfigError(`Cannot load the local model ${path}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  const id = options.id ?? `local:${source.trim() || 'default'}`;
  const answerGrammar = answerGrammars(loaded.llama);
  const grammarOf = async (request: ModelRequest): Promise<string | undefined> => {
    if (options.useGrammar === false || request.turnFormat === undefined) return undefined;
    const schema = request.turnFormat.answerJsonSchema;
    const json = schema === undefined ? undefined : await answerGrammar(schema);
    return turnGrammar(request.turnFormat, options.grammarLimits, json);
  };
  const run = async (request: ModelRequest, onText?: (text: string) => void): Promise<ModelResponse> => {
    try {
      return await session.run({ request, grammar: await grammarOf(request), onText });
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      throw new ModelCallError({ modelId: id, providerMessage: errorMessage(error), cause: error });
    }
  };
  return {
    id,
    path,
    contextWindowTokens: session.contextSize,
    supportsToolCalls: false,
    generate: (request) => run(request),
    stream: (request) => streamTurn((onText) => run(request, onText)),
    dispose: () => session.dispose(),
  };
}

/**
 * The grammar node-llama-cpp makes for a typed answer's JSON Schema (rewritten into the subset it reads,
 * see {@link toLlamaJsonSchema}), made once per distinct schema.
 */
function answerGrammars(llama: Llama): (schema: Record<string, unknown>) => Promise<string> {
  const made = new Map<string, Promise<string>>();
  return (schema) => {
    const key = JSON.stringify(schema);
    let grammar = made.get(key);
    if (!grammar) {
      grammar = llama
        // The subset's type is a deep union the rewrite does not spell out; node-llama-cpp reads it at run time.
        .createGrammarForJsonSchema(toLlamaJsonSchema(schema) as never)
        .then((made) => made.grammar);
      made.set(key, grammar);
    }
    return grammar;
  };
}

/** Adapts a callback-style generation to {@link ModelStreamPart}s: text deltas, then one finish part. */
async function* streamTurn(
  start: (onText: (text: string) => void) => Promise<ModelResponse>,
): AsyncGenerator<ModelStreamPart> {
  const pending: string[] = [];
  let wake: (() => void) | undefined;
  let settled = false;
  const done = start((text) => {
    pending.push(text);
    wake?.();
  }).finally(() => {
    settled = true;
    wake?.();
  });
  // A consumer that stops reading early aborts the request; the generation's own error is then moot.
  done.catch(() => undefined);
  while (true) {
    const text = pending.shift();
    if (text !== undefined) {
      if (text !== '') yield { type: 'text-delta', text };
      continue;
    }
    if (settled) break;
    await new Promise<void>((resolveWake) => {
      wake = resolveWake;
    });
    wake = undefined;
  }
  const response = await done;
  yield {
    type: 'finish',
    usage: response.usage,
    finishReason: response.finishReason,
    rawFinishReason: response.rawFinishReason,
  };
}
