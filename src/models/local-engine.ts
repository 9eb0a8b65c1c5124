/**
 * The node-llama-cpp side of the local adapter: loading a GGUF model once per process, and running turns on
 * one context sequence that keeps its KV cache between calls, so each call evaluates only the tokens after
 * the longest prefix it shares with the previous one.
 *
 * Everything from node-llama-cpp is imported inside functions (and only types at the top), so importing
 * this module loads nothing heavy. API per node-llama-cpp v3 (https://node-llama-cpp.withcat.ai/api/):
 * `getLlama`, `Llama.loadModel`, `LlamaModel.createContext`, `LlamaContextSequence`, `LlamaCompletion`
 * (which erases the part of the sequence that differs from the new input with `adaptStateToTokens` and
 * evaluates the rest), `resolveChatWrapper` (the model's own chat template), `Llama.createGrammar` (GBNF).
 *
 * @module
 */
import { availableParallelism } from 'node:os';
import type {
  ChatHistoryItem,
  ChatWrapper,
  Llama,
  LlamaCompletion,
  LlamaContext,
  LlamaContextSequence,
  LlamaGrammar,
  LlamaModel,
  LlamaText,
  Token,
  TokenBias,
} from 'node-llama-cpp';
import { importAtRunTime } from '../util/runtime-import.js';
import { ModelConfigError } from './errors.js';
import type { FinishReason, ModelMessage, ModelRequest, ModelResponse } from './types.js';

/** Default cap on the context size, in tokens (the model's training context is used when smaller). */
export const DEFAULT_MAX_CONTEXT_TOKENS = 8192;

/** Default cap on generated tokens per turn when the request gives none. */
export const DEFAULT_LOCAL_MAX_OUTPUT_TOKENS = 1024;

/**
 * Threads for token evaluation: one fewer than the cores, at least 1 and at most 4. llama.cpp threads
 * spin while they wait, so using every core (or more threads than cores) makes generation many times
 * slower on small machines: on 2 cores, 2 threads took 6.8 s for a turn that 1 thread did in 60 ms.
 */
export function defaultThreads(cores: number = availableParallelism()): number {
  return Math.max(1, Math.min(4, cores - 1));
}

/** A loaded model, shared by every adapter on the same file. */
export interface LoadedModel {
  llama: Llama;
  model: LlamaModel;
}

let llamaPromise: Promise<Llama> | undefined;
const models = new Map<string, Promise<LoadedModel>>();

/**
 * Loads the GGUF file at `path` once per process (keyed by path); later calls share the model. CPU or the
 * GPU node-llama-cpp detects, using prebuilt binaries only (`build: 'never'`): never a source build.
 *
 * @throws the loader's error (e.g. `Failed to load model` for a file llama.cpp cannot read); a failed load is
 *   not cached.
 */
/**
 * Loads node-llama-cpp. It is an optional peer dependency (about 84 MB of binaries), installed only by
 * people who want the embedded model.
 *
 * @throws {ModelConfigError} when it is not installed, saying how to install it.
 */
export async function importLlamaCpp(): Promise<typeof import('node-llama-cpp')> {
  try {
    return await importAtRunTime<typeof import('node-llama-cpp')>('node-llama-cpp');
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') throw llamaCppMissing();
    throw error;
  }
}

/** The exact install command for node-llama-cpp, the version taoloop is tested with. */
export const LLAMA_CPP_INSTALL = 'npm install node-llama-cpp@3.21.1';

/**
 * Whether node-llama-cpp can be imported, found without loading it (`import.meta.resolve`), so that a run
 * says it is missing before it downloads a model file of about 1 GB.
 */
export function llamaCppInstalled(): boolean {
  try {
    import.meta.resolve('node-llama-cpp');
    return true;
  } catch {
    return false;
  }
}

/** The error for a local model without node-llama-cpp: what to install, or what to use instead. */
export function llamaCppMissing(): ModelConfigError {
  return new ModelConfigError(
    `The embedded local model needs node-llama-cpp (an optional dependency, about 84 MB), which is not installed: run \`${LLAMA_CPP_INSTALL}\`, or choose a provider with --model (\`taoloop models\` lists them).`,
  );
}

export function loadModelOnce(path: string): Promise<LoadedModel> {
  const cached = models.get(path);
  if (cached) return cached;
  const loading = (async () => {
    const { getLlama, LlamaLogLevel } = await importLlamaCpp();
    llamaPromise ??= getLlama({ build: 'never', logLevel: LlamaLogLevel.error, progressLogs: false });
    const llama = await llamaPromise;
    return { llama, model: await llama.loadModel({ modelPath: path }) };
  })();
  models.set(path, loading);
  loading.catch(() => models.delete(path));
  return loading;
}

/** Options for {@link createLocalSession}. */
export interface LocalSessionOptions {
  /** @default defaultThreads() */
  threads?: number;
  /** Upper bound on the context size in tokens. @default DEFAULT_MAX_CONTEXT_TOKENS */
  maxContextTokens?: number;
  /** Keep the KV cache between calls and evaluate only the new suffix. @default true */
  reusePrefix?: boolean;
}

/** One turn's request, already turned into what node-llama-cpp needs. */
export interface LocalTurn {
  request: ModelRequest;
  /** GBNF text, when the turn is constrained. */
  grammar?: string | undefined;
  /** Called with each piece of text as it is generated. */
  onText?: ((text: string) => void) | undefined;
}

/** A context sequence that runs turns one at a time. */
export interface LocalSession {
  /** The context size in tokens. */
  readonly contextSize: number;
  run(turn: LocalTurn): Promise<ModelResponse>;
  dispose(): Promise<void>;
}

/**
 * The messages as node-llama-cpp chat history, ending with an empty model turn to generate. Tool results
 * (native tool calling, which this adapter does not offer) are passed as user text.
 */
export function toChatHistory(messages: readonly ModelMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = messages.map((message) => {
    switch (message.role) {
      case 'system':
        return { type: 'system', text: message.content };
      case 'user':
        return { type: 'user', text: message.content };
      case 'assistant':
        return { type: 'model', response: [message.content] };
      case 'tool':
        return { type: 'user', text: message.content };
      default:
        return message satisfies never;
    }
  });
  history.push({ type: 'model', response: [] });
  return history;
}

/**
 * Control tokens that do not end generation (`<|im_start|>`, FIM markers, ...). A grammar sees their
 * special text (`<|im_start|>` fits `[^\n]`), yet they detokenize to nothing, so a model that emits one
 * mid-turn writes invisible tokens that break the token prefix of the next call. They are banned.
 * Token types come from the GGUF metadata (3 = control), else from llama.cpp's token attributes.
 */
function bannedControlTokens(model: LlamaModel): Token[] {
  const types = model.fileInfo.metadata?.tokenizer?.ggml?.token_type;
  const controls: Token[] = [];
  if (Array.isArray(types)) {
    types.forEach((type, index) => {
      if (type === 3) controls.push(index as Token);
    });
  } else {
    for (const token of model.iterateAllTokens())
      if (model.getTokenAttributes(token).control) controls.push(token);
  }
  return controls.filter((token) => !model.isEogToken(token));
}

/** Compiles each distinct GBNF text once (the loop sends the same turn format every step). */
function grammarCache(llama: Llama): (text: string) => Promise<LlamaGrammar> {
  const grammars = new Map<string, Promise<LlamaGrammar>>();
  return (text) => {
    let grammar = grammars.get(text);
    if (!grammar) {
      grammar = llama.createGrammar({ grammar: text });
      grammars.set(text, grammar);
    }
    return grammar;
  };
}

function finishReason(stopReason: string): FinishReason {
  switch (stopReason) {
    case 'eogToken':
    case 'stopGenerationTrigger':
    case 'customStopTrigger':
      return 'stop';
    case 'maxTokens':
      return 'length';
    default:
      return 'other';
  }
}

/**
 * Creates a context (its own KV cache) on `loaded` with one sequence, and returns a session that renders
 * each request with the model's chat template, keeps the longest token prefix it shares with what the
 * sequence already holds, and generates under the turn's grammar.
 *
 * A prompt that does not fit the context throws (a `Error` naming both sizes; the adapter wraps it in
 * `ModelCallError`).
 *
 * Usage per call: `inputTokens` = tokens of the rendered prompt; `cachedInputTokens` = those reused from the
 * KV cache (never the last prompt token, which is always evaluated to get the first logits);
 * `outputTokens` = generated tokens.
 */
export async function createLocalSession(
  loaded: LoadedModel,
  options: LocalSessionOptions = {},
): Promise<LocalSession> {
  const { LlamaCompletion, resolveChatWrapper, TokenBias: TokenBiasClass } = await importLlamaCpp();
  const { llama, model } = loaded;
  const contextSize = Math.min(
    model.trainContextSize,
    options.maxContextTokens ?? DEFAULT_MAX_CONTEXT_TOKENS,
  );
  const context: LlamaContext = await model.createContext({
    contextSize,
    threads: options.threads ?? defaultThreads(),
  });
  const sequence: LlamaContextSequence = context.getSequence();
  const completion: LlamaCompletion = new LlamaCompletion({ contextSequence: sequence });
  const chatWrapper: ChatWrapper = resolveChatWrapper(model);
  const banned = bannedControlTokens(model);
  const tokenBias: TokenBias | undefined =
    banned.length === 0 ? undefined : new TokenBiasClass(model.tokenizer).set(banned, 'never');
  const grammarFor = grammarCache(llama);
  let queue: Promise<unknown> = Promise.resolve();
  const reuse = options.reusePrefix ?? true;

  const runTurn = async ({ request, grammar, onText }: LocalTurn): Promise<ModelResponse> => {
    const state = chatWrapper.generateContextState({ chatHistory: toChatHistory(request.messages) });
    const tokens = state.contextText.tokenize(model.tokenizer);
    if (tokens.length >= context.contextSize) {
      throw new Error(
        `the prompt has ${tokens.length} tokens, more than the context of ${context.contextSize} tokens`,
      );
    }
    if (!reuse) await sequence.clearHistory();
    const shared = sequence.compareContextTokens(tokens).firstDifferentIndex;
    const cachedInputTokens = Math.max(0, Math.min(shared, tokens.length - 1));
    let outputTokens = 0;
    const stops: (LlamaText | string)[] = [...state.stopGenerationTriggers, ...(request.stopSequences ?? [])];
    // LlamaCompletion prepends BOS itself when the model asks for one; the chat template already has it.
    const bos = model.tokens.bos;
    const input =
      model.tokens.shouldPrependBosToken && bos !== null && tokens[0] === bos ? tokens.slice(1) : tokens;
    const result = await completion.generateCompletionWithMeta(input, {
      // No context shift: it would silently drop the start of the prompt (the system prompt). The loop
      // fits the transcript to `contextWindowTokens`; a turn that reaches the end stops with 'length'.
      disableContextShift: true,
      contextShiftSize: 1,
      maxTokens: request.maxOutputTokens ?? DEFAULT_LOCAL_MAX_OUTPUT_TOKENS,
      temperature: request.temperature ?? 0,
      customStopTriggers: stops,
      ...(tokenBias && { tokenBias }),
      onToken: (generated) => {
        outputTokens += generated.length;
      },
      ...(onText && { onTextChunk: onText }),
      ...(grammar !== undefined && { grammar: await grammarFor(grammar) }),
      ...(request.signal && { signal: request.signal }),
    });
    return {
      text: result.response,
      usage: { inputTokens: tokens.length, cachedInputTokens, outputTokens },
      finishReason: finishReason(result.metadata.stopReason),
      rawFinishReason: result.metadata.stopReason,
    };
  };

  return {
    contextSize: context.contextSize,
    run(turn) {
      // One turn at a time: the reuse count is only right when nothing else moves the sequence meanwhile.
      const next = queue.then(() => runTurn(turn));
      queue = next.catch(() => undefined);
      return next;
    },
    async dispose() {
      completion.dispose();
      await context.dispose();
    },
  };
}
