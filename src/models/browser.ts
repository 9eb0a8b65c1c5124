/**
 * A model in the web page: a GGUF file run by llama.cpp compiled to WebAssembly, through `@wllama/wllama`
 * (https://github.com/ngxson/wllama, v3). Exported by `taoloop/browser`.
 *
 * - Turns are generated under the same GBNF turn grammar as the embedded Node model (`local:`), built from
 *   `ModelRequest.turnFormat`; wllama passes `grammar` to llama.cpp's sampler.
 * - The request's stop sequences go to llama.cpp (`stop`), which ends the turn before the sequence.
 * - Prefix reuse: llama.cpp keeps the KV cache of the previous call (`cache_prompt`), so each call evaluates
 *   only the tokens after the prefix it shares with the last one; usage reports them as `cachedInputTokens`.
 * - `@wllama/wllama` is an optional peer dependency, imported only when a model is created. An app that
 *   bundles its page passes it in (`wllama: () => import('@wllama/wllama/esm/index.js')`), so that its
 *   bundler includes it; without that option it is imported at run time, out of the bundler's sight (a page
 *   with an import map for it, Node), so that bundling `taoloop/browser` never looks for it.
 * - Threads: wllama runs llama.cpp in a Web Worker. Several threads need a cross-origin isolated page
 *   (served with `Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy: require-corp`);
 *   elsewhere it runs on one thread, which works everywhere.
 *
 * @module
 */
import { errorMessage } from '../util/own.js';
import { importAtRunTime } from '../util/runtime-import.js';
import { checkWasmUrl, loadError, loadWatchdog } from './browser-load.js';
import { ModelCallError, ModelConfigError } from './errors.js';
import { type TurnGrammarLimits, turnGrammar } from './local-grammar.js';
import type {
  FinishReason,
  Model,
  ModelMessage,
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
  ModelUsage,
} from './types.js';

/** Default context size in tokens of {@link browserModel} (a page's memory is tighter than a process's). */
export const DEFAULT_BROWSER_CONTEXT_TOKENS = 4096;

/** Default cap on generated tokens per turn when the request gives none. */
export const DEFAULT_BROWSER_MAX_OUTPUT_TOKENS = 1024;

/** Default of {@link BrowserModelOptions.loadTimeoutMs}: two minutes without progress. */
export const DEFAULT_BROWSER_LOAD_TIMEOUT_MS = 120_000;

/** Progress of the model download, in bytes. */
export interface BrowserModelProgress {
  loadedBytes: number;
  totalBytes: number;
}

/** Options for {@link browserModel}. */
export interface BrowserModelOptions {
  /**
   * The GGUF model: a URL (wllama requires it to end in `.gguf`; a split model is given by the URL of its
   * first part, `...-00001-of-0000N.gguf`), or the file(s) as `Blob`s (a file the user picked; the parts of a
   * split model in order). A URL is fetched by the page, so it must allow the page's origin (CORS).
   */
  model: string | Blob | readonly Blob[];
  /**
   * Where the page can fetch wllama's WebAssembly file, `@wllama/wllama/esm/wasm/wllama.wasm` (serve it
   * with your static files; with Vite, `import wasmUrl from '@wllama/wllama/esm/wasm/wllama.wasm?url'`).
   */
  wasmUrl: string | URL;
  /** Context size in tokens. @default DEFAULT_BROWSER_CONTEXT_TOKENS (4096) */
  contextTokens?: number;
  /**
   * Threads for llama.cpp. More than 1 needs a cross-origin isolated page (see the module notes); without
   * it wllama runs on one thread whatever is asked. @default wllama's choice: half of
   * `navigator.hardwareConcurrency` when the page is cross-origin isolated, else 1
   */
  threads?: number;
  /** Constrain turns with the turn grammar when the request has a `turnFormat`. @default true */
  useGrammar?: boolean;
  /** Character limits written into the turn grammar. @default DEFAULT_TURN_GRAMMAR_LIMITS */
  grammarLimits?: TurnGrammarLimits;
  /** Keep the KV cache between calls and evaluate only the new suffix (`cache_prompt`). @default true */
  reusePrefix?: boolean;
  /**
   * Keep a model fetched from a URL in the browser's cache storage (wllama's cache), so the next visit
   * does not download it again. @default true
   */
  useCache?: boolean;
  /** Called as the model downloads. */
  onProgress?: (progress: BrowserModelProgress) => void;
  /**
   * The longest wait in milliseconds for the load to make progress: for the `wasmUrl` to answer, for the
   * model's first bytes and between its download's progress reports, and for llama.cpp to start on the
   * model. A download that keeps receiving bytes is never cut off, however long it takes. When the wait
   * runs out, the download is aborted, wllama's worker ended, and {@link browserModel} rejects with a
   * {@link ModelConfigError} naming what it was waiting for. A positive finite number.
   * @default DEFAULT_BROWSER_LOAD_TIMEOUT_MS (120000)
   */
  loadTimeoutMs?: number;
  /** @default `browser:<file name of the model>` */
  id?: string;
  /**
   * `@wllama/wllama`, as the app's bundler includes it: a function that imports it,
   * `() => import('@wllama/wllama/esm/index.js')` (wllama then goes in a chunk of its own, loaded when the
   * model is created), or the module itself (`import * as wllama from '@wllama/wllama/esm/index.js'`). Pass
   * it in any app built with a bundler (Vite, webpack, esbuild, Rollup, Bun, Next.js).
   *
   * Without it, `browserModel` imports `@wllama/wllama/esm/index.js` at run time in a way bundlers leave
   * alone, which works only where the runtime resolves that name itself: a page whose import map maps it
   * (as `taoloop serve` and examples/browser do), Node or Bun. Elsewhere `browserModel` rejects with a
   * {@link ModelConfigError} that says to pass this option.
   * @default an import of `@wllama/wllama/esm/index.js` at run time
   */
  wllama?: object | (() => Promise<object>);
}

/** A {@link Model} running in the page through wllama. */
export interface BrowserModel extends Model {
  /** The context size in tokens, as llama.cpp created it. */
  readonly contextWindowTokens: number;
  /** Streams a turn: text deltas as tokens are generated, then a finish part with usage. */
  stream(request: ModelRequest): AsyncIterable<ModelStreamPart>;
  /** Stops the worker and frees the model's memory. The model cannot be used afterwards. */
  dispose(): Promise<void>;
}

/**
 * The part of wllama 3.8's API this adapter uses (`esm/wllama.d.ts`, `esm/types/oai-compat.d.ts` in the
 * package). Written out here because wllama's own declarations do not resolve under `NodeNext` (their
 * relative imports have no file extensions).
 */
interface WllamaModule {
  Wllama: new (
    paths: { default: string },
    config: { logger?: unknown; suppressNativeLog?: boolean },
  ) => WllamaInstance;
  LoggerWithoutDebug: unknown;
}
interface WllamaLoadParams {
  n_ctx: number;
  n_threads?: number;
}
/** Downloads the model (or finds it in wllama's cache); `Wllama.loadModelFromUrl` is these, then `loadModel`. */
interface WllamaModelManager {
  downloadModel(url: string, options: WllamaDownloadOptions): Promise<WllamaStoredModel>;
  getModelOrDownload(source: { url: string }, options: WllamaDownloadOptions): Promise<WllamaStoredModel>;
}
interface WllamaDownloadOptions {
  /** Aborts the download (passed on to its fetch). */
  signal?: AbortSignal;
  progressCallback?: (progress: { loaded: number; total: number }) => void;
}
interface WllamaStoredModel {
  open(): Promise<Blob[]>;
}
interface WllamaInstance {
  modelManager: WllamaModelManager;
  loadModel(blobs: Blob[], params: WllamaLoadParams): Promise<void>;
  getLoadedContextInfo(): { n_ctx: number };
  createChatCompletion(params: WllamaChatRequest): Promise<AsyncIterable<WllamaChunk>>;
  exit(): Promise<void>;
}
/** An OpenAI-style chat request as llama.cpp's server code reads it (wllama runs that code in its worker). */
interface WllamaChatRequest {
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  stream: true;
  temperature: number;
  max_tokens: number;
  /** Keep the KV cache of the shared prefix. */
  cache_prompt: boolean;
  /** Ask for `usage` in the last chunk. */
  stream_options: { include_usage: boolean };
  stop?: string[];
  /** GBNF grammar for the sampler. */
  grammar?: string;
  abortSignal?: AbortSignal;
}
interface WllamaChunk {
  choices: { delta: { content?: string | null }; finish_reason: string | null }[];
  usage?: {
    prompt_tokens: number;
    completion_tokens: number;
    prompt_tokens_details?: { cached_tokens: number };
  } | null;
  timings?: { cache_n: number; prompt_n: number; predicted_n: number };
}

/** The package and the module path in it that {@link browserModel} imports. */
const WLLAMA_MODULE = '@wllama/wllama/esm/index.js';
const WLLAMA_INSTALL = '`npm install @wllama/wllama@3.8.1`';

/**
 * Loads `@wllama/wllama` (an optional peer dependency): the module `given` (see
 * {@link BrowserModelOptions.wllama}), else an import at run time.
 *
 * @throws {ModelConfigError} when it cannot be loaded (saying what to pass or install), or `given` is not
 *   wllama's module.
 */
async function importWllama(given: BrowserModelOptions['wllama']): Promise<WllamaModule> {
  let loaded: unknown;
  try {
    if (given === undefined) loaded = await importAtRunTime(WLLAMA_MODULE);
    else loaded = typeof given === 'function' ? await given() : given;
  } catch (error) {
    const advice =
      given === undefined
        ? `In an app built with a bundler, pass it in browserModel's options: \`wllama: () => import('${WLLAMA_MODULE}')\`; if it is not installed, run ${WLLAMA_INSTALL}.`
        : `Check that it is installed: ${WLLAMA_INSTALL}.`;
    const how = given === undefined ? 'could not be loaded' : 'could not be loaded by the wllama option';
    throw new ModelConfigError(
      `The browser model needs @wllama/wllama, which ${how} (${errorMessage(error)}). ${advice}`,
      { cause: error },
    );
  }
  // wllama's declarations resolve to an empty module under NodeNext (see WllamaModule): checked here instead.
  if (typeof (loaded as Partial<WllamaModule> | null)?.Wllama !== 'function') {
    throw new ModelConfigError(
      given === undefined
        ? `${WLLAMA_MODULE} has no Wllama class: install the version taoloop is tested with, ${WLLAMA_INSTALL}.`
        : `The wllama option gave something that is not @wllama/wllama's module (it has no Wllama class): pass \`wllama: () => import('${WLLAMA_MODULE}')\`, or the module itself.`,
    );
  }
  return loaded as WllamaModule;
}

/**
 * Creates a model that runs a GGUF file in the page (llama.cpp in WebAssembly, through wllama): fetches or
 * reads the file, starts the worker, loads the model. Text ReAct only (no native tool calls).
 *
 * @example
 * ```ts
 * import { browserModel, calculator, runAgent } from 'taoloop/browser';
 * const model = await browserModel({
 *   model: 'https://huggingface.co/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/main/qwen2.5-1.5b-instruct-q4_k_m.gguf',
 *   wasmUrl: '/wllama.wasm',
 *   wllama: () => import('@wllama/wllama/esm/index.js'), // so that the app's bundler includes it
 * });
 * const result = await runAgent({ model, tools: [calculator], question: 'What is 17 * 23?' });
 * await model.dispose();
 * ```
 * @throws {ModelConfigError} when `@wllama/wllama` cannot be loaded (not installed, or not passed as
 *   `wllama` in a bundled app) or `wllama` is not its module; for bad options; when `wasmUrl` does
 *   not serve wllama's WebAssembly file (checked first, by reading its first bytes); when the model cannot be
 *   fetched or loaded; or when the load makes no progress for `loadTimeoutMs`. The message names the URL or
 *   model that failed and what to do. Calls reject with `ModelCallError`
 *   when generation fails (e.g. a prompt longer than the context), or with the abort signal's reason.
 */
export async function browserModel(options: BrowserModelOptions): Promise<BrowserModel> {
  const contextTokens = options.contextTokens ?? DEFAULT_BROWSER_CONTEXT_TOKENS;
  if (!Number.isInteger(contextTokens) || contextTokens < 16) {
    throw new ModelConfigError(`contextTokens must be an integer of at least 16, got ${contextTokens}.`);
  }
  const loadTimeoutMs = options.loadTimeoutMs ?? DEFAULT_BROWSER_LOAD_TIMEOUT_MS;
  if (!Number.isFinite(loadTimeoutMs) || loadTimeoutMs <= 0) {
    throw new ModelConfigError(`loadTimeoutMs must be a positive finite number, got ${loadTimeoutMs}.`);
  }
  if (options.threads !== undefined && (!Number.isInteger(options.threads) || options.threads < 1)) {
    throw new ModelConfigError(`threads must be a whole number of at least 1, got ${options.threads}.`);
  }
  try {
    turnGrammar({ tools: [], labels: { thought: 'T', action: 'A', answer: 'R' } }, options.grammarLimits);
  } catch (error) {
    throw new ModelConfigError(`Invalid grammarLimits: ${errorMessage(error)}`);
  }
  const source = options.model;
  const name =
    typeof source === 'string'
      ? (source.split(/[?#]/)[0]?.split('/').pop() ?? source)
      : `${(source instanceof Blob ? 1 : source.length) === 1 ? 'blob' : 'blobs'}`;
  const id = options.id ?? `browser:${name}`;

  const { Wllama, LoggerWithoutDebug } = await importWllama(options.wllama);
  const wasmUrl = String(options.wasmUrl);
  const wllama = new Wllama({ default: wasmUrl }, { logger: LoggerWithoutDebug });
  const loadParams = {
    n_ctx: contextTokens,
    ...(options.threads !== undefined && { n_threads: options.threads }),
  };
  const download = new AbortController();
  const watchdog = loadWatchdog(
    loadTimeoutMs,
    (doing, advice) =>
      `The browser model ${name} was not loaded: no progress for ${loadTimeoutMs} ms while ${doing}, so loading was stopped. ${advice}`,
  );
  const slowServer = `Check that the server answers (the browser's network panel shows the request), or raise loadTimeoutMs for a slow connection.`;
  const slowStart = `The browser console shows wllama's errors: a wllama.wasm from another version than the installed @wllama/wllama, or a model too large for the page's memory, does this. Raise loadTimeoutMs for a large model on a slow device.`;
  const load = async () => {
    watchdog.enter(`fetching wllama's WebAssembly file from ${wasmUrl}`, slowServer);
    await checkWasmUrl(wasmUrl, download.signal);
    download.signal.throwIfAborted();
    if (typeof source === 'string') {
      // What wllama's loadModelFromUrl does, in two steps so that a stall names the right one.
      watchdog.enter(`downloading the model from ${source}`, slowServer);
      const downloadOptions: WllamaDownloadOptions = {
        signal: download.signal,
        progressCallback: ({ loaded, total }) => {
          watchdog.progress();
          options.onProgress?.({ loadedBytes: loaded, totalBytes: total });
        },
      };
      const manager = wllama.modelManager;
      const stored =
        (options.useCache ?? true)
          ? await manager.getModelOrDownload({ url: source }, downloadOptions)
          : await manager.downloadModel(source, downloadOptions);
      const blobs = await stored.open();
      download.signal.throwIfAborted(); // stopped meanwhile: start no worker
      watchdog.enter(`starting llama.cpp on the model from ${source}`, slowStart);
      await wllama.loadModel(blobs, loadParams);
    } else {
      watchdog.enter('starting llama.cpp on the model', slowStart);
      await wllama.loadModel(source instanceof Blob ? [source] : [...source], loadParams);
    }
  };
  try {
    await Promise.race([load(), watchdog.expired]);
  } catch (error) {
    download.abort();
    await wllama.exit().catch(() => undefined);
    if (error instanceof ModelConfigError) throw error;
    throw loadError(typeof source === 'string' ? source : undefined, name, error);
  } finally {
    watchdog.stop();
  }
  const contextWindowTokens = wllama.getLoadedContextInfo().n_ctx;
  const reusePrefix = options.reusePrefix ?? true;

  const streamTurn = async function* (request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    const grammar =
      options.useGrammar === false || request.turnFormat === undefined
        ? undefined
        : turnGrammar(request.turnFormat, options.grammarLimits);
    const params: WllamaChatRequest = {
      messages: request.messages.map(toChatMessage),
      stream: true,
      temperature: request.temperature ?? 0,
      max_tokens: request.maxOutputTokens ?? DEFAULT_BROWSER_MAX_OUTPUT_TOKENS,
      cache_prompt: reusePrefix,
      stream_options: { include_usage: true },
      ...(request.stopSequences?.length && { stop: request.stopSequences }),
      ...(grammar !== undefined && { grammar }),
      ...(request.signal && { abortSignal: request.signal }),
    };
    let usage: ModelUsage = {};
    let finish: string | null = null;
    try {
      request.signal?.throwIfAborted();
      const chunks = await wllama.createChatCompletion(params);
      for await (const chunk of chunks) {
        const choice = chunk.choices[0];
        const text = choice?.delta.content;
        if (text) yield { type: 'text-delta', text };
        if (choice?.finish_reason) finish = choice.finish_reason;
        if (chunk.usage || chunk.timings) usage = usageOf(chunk);
      }
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      throw new ModelCallError({ modelId: id, providerMessage: errorMessage(error), cause: error });
    }
    yield { type: 'finish', usage, finishReason: finishReason(finish), rawFinishReason: finish ?? undefined };
  };

  return {
    id,
    contextWindowTokens,
    supportsToolCalls: false,
    stream: streamTurn,
    async generate(request) {
      let text = '';
      for await (const part of streamTurn(request)) {
        if (part.type === 'text-delta') text += part.text;
        else if (part.type === 'finish') {
          const response: ModelResponse = { text, usage: part.usage, finishReason: part.finishReason };
          if (part.rawFinishReason !== undefined) response.rawFinishReason = part.rawFinishReason;
          return response;
        }
      }
      throw new ModelCallError({
        modelId: id,
        providerMessage: 'the turn ended without a finish',
        cause: undefined,
      });
    },
    dispose: () => wllama.exit(),
  };
}

/** A message as llama.cpp's chat template takes it. Tool results (native mode, not offered) go as user text. */
function toChatMessage(message: ModelMessage): WllamaChatRequest['messages'][number] {
  switch (message.role) {
    case 'system':
    case 'user':
    case 'assistant':
      return { role: message.role, content: message.content };
    case 'tool':
      return { role: 'user', content: message.content };
    default:
      return message satisfies never;
  }
}

/**
 * Usage from llama.cpp's last chunk: `usage` (asked for with `stream_options.include_usage`) where present,
 * else its `timings` (`prompt_n` evaluated and `cache_n` cached prompt tokens, `predicted_n` generated).
 */
function usageOf(chunk: WllamaChunk): ModelUsage {
  const { usage, timings } = chunk;
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? timings?.cache_n;
  return {
    inputTokens: usage?.prompt_tokens ?? (timings && timings.prompt_n + timings.cache_n),
    outputTokens: usage?.completion_tokens ?? timings?.predicted_n,
    ...(cached !== undefined && { cachedInputTokens: cached }),
  };
}

function finishReason(reason: string | null): FinishReason {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    case null:
      return 'unknown';
    default:
      return 'other';
  }
}
