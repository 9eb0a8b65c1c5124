/**
 * The model interface: the one seam between the loop and any language model.
 *
 * Adapters (AI SDK providers, the scripted test model, ...) implement {@link Model}. They hold no loop
 * logic: they turn a {@link ModelRequest} into a {@link ModelResponse} and report usage honestly.
 *
 * @module
 */

/** A tool call the model made in native tool-calling mode. */
export interface ModelToolCall {
  /** The provider's id for the call, echoed back with the result. */
  id: string;
  name: string;
  /** The arguments as JSON text, exactly as the model wrote them. */
  input: string;
}

/**
 * One chat message. Text ReAct needs only `system`, `user` and `assistant` with text; native tool
 * calling adds tool calls on assistant messages and `tool` messages carrying their results.
 */
export type ModelMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: readonly ModelToolCall[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string };

/** A tool offered as a function in native tool-calling mode. */
export interface ModelToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  inputJsonSchema: Record<string, unknown>;
}

/**
 * The ReAct turn format, for adapters that can constrain generation (llama.cpp grammars): the reply
 * must be a Thought, then either an Action naming one of `tools` or an Answer.
 */
export interface TurnFormat {
  tools: readonly string[];
  /** The written labels, e.g. `{ thought: 'Thought', action: 'Action', answer: 'Answer' }`. */
  labels: { thought: string; action: string; answer: string };
  /** A typed answer (`output`): the JSON Schema the answer's JSON must match. */
  answerJsonSchema?: Record<string, unknown>;
}

/** What the loop asks of a model for one turn. */
export interface ModelRequest {
  /** The conversation so far: system prompt, question, previous turns and observations. */
  messages: ModelMessage[];
  /**
   * Stop sequences sent to the provider (for ReAct, the Observation label). Providers that ignore them
   * are handled by the loop, which also cuts the text client-side. @default none
   */
  stopSequences?: string[];
  /**
   * Sampling temperature (no unit; 0 is the most deterministic). The loop sends 0 unless told otherwise.
   * @default the provider's default
   */
  temperature?: number;
  /** Upper bound on generated tokens for this turn. @default the provider's default */
  maxOutputTokens?: number;
  /** Aborts the request (the HTTP request for remote models). @default none (not abortable) */
  signal?: AbortSignal;
  /** Native tool calling: the tools offered as functions. Absent in text mode. @default none */
  tools?: readonly ModelToolDefinition[];
  /**
   * Native tool calling: `false` asks the provider for at most one tool call per response, where it has
   * such a setting (see `fromLanguageModel`). @default true (the provider's default)
   */
  parallelToolCalls?: boolean;
  /** Text mode: the turn format, for adapters that can enforce it with a grammar. @default none */
  turnFormat?: TurnFormat;
  /**
   * Mark the prompt for the provider's prompt cache where the provider needs marks: Anthropic gets cache
   * breakpoints on the system prompt and the newest message. Providers that cache a stable prefix on their
   * own (OpenAI, llama.cpp server, vLLM) need none. `false` sends no marks.
   * @default true
   */
  promptCaching?: boolean;
  /**
   * How many of the first messages stay the same in this run's later requests: the part of a compacted
   * transcript that the compaction keeps as it is (set by the loop once `prompt.compaction` shortens the
   * transcript). With `promptCaching`, Anthropic gets one more cache breakpoint at its end, so that the
   * requests after a later compaction, whose newer part changed, still read it from the cache.
   * @default none
   */
  stablePrefixMessages?: number;
  /**
   * Called by a model that retries the call itself, once per retry, before or as the retry is sent: the
   * AI SDK adapter reports each of the SDK's own retries (HTTP 408, 409, 429, 5xx, a lost connection) for
   * providers built from a model spec, which send through `trackingFetch`; the playground's retrying model
   * reports its retries. The loop sets it on every request and turns each call into a `model-retry` event,
   * so the trace records why a step took longer. A model that never retries ignores it.
   * @default none
   */
  onRetry?: (retry: ModelRetry) => void;
}

/**
 * One retry of a model call. The shape of a `model-retry` event (without its `type` and `step`).
 *
 * @example `{ retry: 1, maxRetries: 2, error: 'HTTP 503', delayMs: 1000 }` prints as
 * `retry 1 of 2 after HTTP 503 (waited 1.0 s)` in `taoloop trace`.
 */
export interface ModelRetry {
  /** Which retry this is: 1 for the first retry (the call's second attempt). */
  retry: number;
  /** How many retries the call may make at most, when known (the AI SDK's `maxRetries`). */
  maxRetries?: number;
  /**
   * What the failed attempt ended with, short: `HTTP 503`, `cannot connect: connection refused
   * (127.0.0.1:9)`, `the server rejected stop sequences`, or the error's message.
   */
  error: string;
  /** The wait between the failed attempt and the retry, in milliseconds (0 for none). */
  delayMs: number;
}

/**
 * Token usage as the provider reported it. A field is `undefined` when the provider did not report it,
 * never a made-up 0.
 */
export interface ModelUsage {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  /**
   * Input tokens read from the provider's prompt cache, when reported (part of `inputTokens`; billed at the
   * cache-read price: Anthropic `cache_read_input_tokens`, OpenAI `prompt_tokens_details.cached_tokens`).
   */
  cachedInputTokens?: number | undefined;
  /**
   * Input tokens written to the provider's prompt cache, when reported (part of `inputTokens`; billed at
   * the cache-write price: Anthropic `cache_creation_input_tokens`). Absent when the provider has no such
   * charge (OpenAI caches without one).
   */
  cacheWriteInputTokens?: number | undefined;
  /**
   * `true` when the counts are taoloop's estimate (about 4 characters a token: the request's messages for
   * input, the text received for output), not the provider's: a call cut on the client side (the server
   * ignored the stop sequence or the turn cap, and reading stopped) or a streamed call aborted once sent
   * (the run's signal, `limits.timeoutMs`, `limits.modelTimeoutMs`) gets no usage report. A sum is
   * estimated when any part of it is. Absent when the provider reported the counts.
   */
  estimated?: true | undefined;
}

/** Normalised reason the model stopped; the provider's own value is kept in `rawFinishReason`. */
export type FinishReason =
  | 'stop'
  | 'length'
  | 'content-filter'
  | 'tool-calls'
  | 'error'
  | 'other'
  | 'unknown';

/** A complete model turn. */
export interface ModelResponse {
  /** The generated text (already cut at a stop sequence if the provider honoured it). */
  text: string;
  /**
   * Reasoning the provider returned apart from the text (`reasoning_content` from DeepSeek, vLLM and
   * llama.cpp servers; AI SDK reasoning parts). Recorded in the trace; never sent back to the model.
   */
  reasoning?: string;
  /** Native tool calling: the calls the model made (the text before them is its thought). */
  toolCalls?: ModelToolCall[];
  usage: ModelUsage;
  finishReason: FinishReason;
  /** The provider's own finish reason, for debugging. */
  rawFinishReason?: string | undefined;
}

/** One part of a streamed model turn. */
export type ModelStreamPart =
  | { type: 'text-delta'; text: string }
  /** A piece of the provider's separate reasoning (`ModelResponse.reasoning`). */
  | { type: 'reasoning-delta'; text: string }
  | { type: 'tool-call'; toolCall: ModelToolCall }
  | { type: 'finish'; usage: ModelUsage; finishReason: FinishReason; rawFinishReason?: string | undefined };

/** A language model the loop can call. */
export interface Model {
  /** A readable identifier such as `openai:gpt-4o-mini` or `scripted`. */
  readonly id: string;
  /** The context window in tokens, when the adapter knows it. @default unknown (the loop looks the id up) */
  readonly contextWindowTokens?: number;
  /** True when the adapter can send tools as functions and read tool calls (native mode). @default false */
  readonly supportsToolCalls?: boolean;
  /** One complete turn. */
  generate(request: ModelRequest): Promise<ModelResponse>;
  /**
   * Optional streaming variant. The loop prefers it when present (unless `modelSettings.streaming` is
   * `false`, or the run has a `durable.journal`) so that the trace shows text as it arrives and a reply
   * that starts inventing an observation can be cancelled early.
   */
  stream?(request: ModelRequest): AsyncIterable<ModelStreamPart>;
}

/** Options for `resolveModelSpec`. */
export interface ResolveModelOptions {
  /**
   * Retries of a failed provider call (HTTP 408, 409, 429, 5xx, connection errors, a response cut off
   * midway), done by the AI SDK (and by the adapter for a stream cut off once it began)
   * with exponential backoff from 2 s, honouring `retry-after-ms` / `retry-after` response headers
   * (when under 60 s). `0` disables retries. Ignored by `local:` and `replay:` models.
   * @default 2 (the AI SDK's default: up to 3 attempts in all)
   */
  maxRetries?: number;
}

/** A parsed model spec. `modelId` is the provider's model name, passed through unchanged. */
export type ModelSpec =
  | { provider: 'openai'; modelId: string }
  | { provider: 'anthropic'; modelId: string }
  | { provider: 'google'; modelId: string }
  | { provider: 'ollama'; modelId: string }
  | { provider: 'openai-compatible'; baseURL: string; modelId: string }
  /** `source`: a GGUF path, `hf:<user>/<repo>/<file>.gguf`, or `''` for the default model. */
  | { provider: 'local'; source: string }
  /** `file`: a taoloop JSONL trace whose model turns are replayed (see `replayModel`). */
  | { provider: 'replay'; file: string };
