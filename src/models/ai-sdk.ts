/**
 * Adapter from any AI SDK 6 language model (OpenAI, Anthropic, Google, OpenAI-compatible servers,
 * ...) to taoloop's {@link Model}.
 *
 * It holds no loop logic: one call of the provider's language model per turn, with the request's
 * messages, stop sequences, temperature, output-token limit and abort signal passed through. Usage
 * is reported as the provider sent it (`undefined` when absent, see {@link toModelUsage}).
 *
 * A model of the AI SDK 6 specification (`LanguageModelV3`, every current provider) is called directly
 * (`doGenerate` / `doStream`), with the AI SDK's own prompt conversion, tool preparation, retries and
 * usage mapping (`ai/internal`), but without `generateText`'s per-call work: it checks every message of
 * the prompt against the SDK's message schema each time, which is most of a step's CPU time and grows with
 * the transcript (`bench/loop-overhead`: 49% of a native step at 32 steps). taoloop builds the messages
 * itself, so there is nothing to check. An older model (`LanguageModelV2`) goes through `generateText` /
 * `streamText`, which adapt it.
 *
 * Source: AI SDK Core reference for `generateText` / `streamText` (https://ai-sdk.dev/docs/reference/ai-sdk-core),
 * and the language model specification V3 (`@ai-sdk/provider`: `LanguageModelV3.doGenerate` / `doStream`).
 *
 * @module
 */

import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3Content } from '@ai-sdk/provider';
import type { FinishReason as AiFinishReason, LanguageModel, LanguageModelUsage } from 'ai';
import { abortAny } from '../util/signal.js';
import { abortReason, toModelError } from './ai-sdk-errors.js';
import { toAiMessage, toToolCall, toToolSet } from './ai-sdk-messages.js';
import { type CallProgress, describeNetworkFailure, trackCall } from './call-progress.js';
import { brokeOff, PassedOn, pause, retryDelayMs, StreamEndedEarlyError } from './stream-retry.js';
import type {
  FinishReason,
  Model,
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
  ModelUsage,
} from './types.js';

/** Options for {@link fromLanguageModel}. */
export interface FromLanguageModelOptions {
  /**
   * The readable id the loop and traces show.
   * @default `${model.provider}:${model.modelId}` (e.g. `openai.chat:gpt-4o-mini`)
   */
  id?: string;
  /**
   * How many times a call is retried after a retryable failure (HTTP 408, 409, 429, 5xx, connection
   * errors, and a response the server cut off midway, streamed or not) with exponential backoff from 2 s,
   * honouring `retry-after-ms` / `retry-after` headers: by the AI SDK, and by the adapter for a stream
   * that broke off once it began (the SDK retries only until a response starts).
   * @default 2 (the AI SDK's default)
   */
  maxRetries?: number;
}

/**
 * A language model object, not a string: a string model id would be routed through the Vercel AI
 * Gateway by the AI SDK, which taoloop never does implicitly.
 */
export type AiSdkLanguageModel = Exclude<LanguageModel, string>;

/**
 * Wraps an AI SDK language model (e.g. `createOpenAI({ apiKey }).chat('gpt-4o-mini')`) as a
 * taoloop {@link Model} with both `generate` and `stream`.
 *
 * - `generate` and `stream` send `messages`, `stopSequences`, `temperature`, `maxOutputTokens` and
 *   the abort signal. No temperature default is applied here (the loop sends 0). `parallelToolCalls: false`
 *   becomes the provider's own option for one tool call per response (OpenAI, Anthropic, OpenAI-compatible
 *   servers; Google has none).
 * - The text is the provider's: the AI SDK does not cut it at a stop sequence when a server
 *   ignores `stop` (the loop does that).
 * - `stream` yields `text-delta` parts (and `reasoning-delta` parts for reasoning the provider sends apart,
 *   such as `reasoning_content`) and then exactly one `finish` part; `generate` returns that reasoning as
 *   `reasoning`.
 * - Failures throw `ModelCallError` (HTTP status and provider message in the message, the
 *   original error as `cause`); aborts throw the abort signal's reason.
 *
 * @example
 * ```ts
 * import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
 * const provider = createOpenAICompatible({ name: 'local', baseURL: 'http://127.0.0.1:8080/v1', includeUsage: true });
 * const model = fromLanguageModel(provider.chatModel('my-model'), { id: 'local:my-model' });
 * ```
 */
export function fromLanguageModel(model: AiSdkLanguageModel, options: FromLanguageModelOptions = {}): Model {
  const id = options.id ?? `${model.provider}:${model.modelId}`;
  const settings: CallSettings = {
    model,
    id,
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
  };
  return {
    id,
    supportsToolCalls: true,
    generate: (request) => generateTurn(settings, request),
    stream: (request) => streamTurn(settings, request),
  };
}

type AiSdk = typeof import('ai');
type AiInternal = typeof import('ai/internal');

/** The AI SDK, loaded on the first model call (importing it costs about 80 ms, more than all of taoloop). */
let aiSdk: AiSdk | undefined;
let aiInternal: AiInternal | undefined;

async function loadAi(): Promise<AiSdk> {
  aiSdk ??= await import('ai');
  return aiSdk;
}

async function loadInternal(): Promise<AiInternal> {
  aiInternal ??= await import('ai/internal');
  return aiInternal;
}

/** A model of the AI SDK 6 specification, called directly; any other goes through `generateText`. */
function isV3(model: AiSdkLanguageModel): model is AiSdkLanguageModel & LanguageModelV3 {
  return (model as { specificationVersion?: unknown }).specificationVersion === 'v3';
}

/**
 * The options of one direct call (`doGenerate` / `doStream`): what `generateText` would send for one step,
 * built from the request (the prompt converted by the AI SDK's own `convertToLanguageModelPrompt`, the
 * tools by its `prepareToolsAndToolChoice`), without checking the messages against the SDK's schema.
 */
async function directCallOptions(
  settings: CallSettings,
  request: ModelRequest,
  abortSignal: AbortSignal,
): Promise<LanguageModelV3CallOptions> {
  checkMessages(request.messages);
  const [ai, internal] = await Promise.all([loadAi(), loadInternal()]);
  const model = settings.model as LanguageModelV3;
  const args = callArguments(ai, settings, request, abortSignal);
  const prompt = await internal.convertToLanguageModelPrompt({
    prompt: { messages: args.messages },
    supportedUrls: await model.supportedUrls,
    download: undefined,
    abortSignal,
  });
  const prepared = args.tools
    ? await internal.prepareToolsAndToolChoice({
        tools: args.tools,
        toolChoice: undefined,
        activeTools: undefined,
      })
    : undefined;
  const callSettings = internal.prepareCallSettings({
    ...(args.stopSequences !== undefined && { stopSequences: args.stopSequences }),
    ...(args.temperature !== undefined && { temperature: args.temperature }),
    ...(args.maxOutputTokens !== undefined && { maxOutputTokens: args.maxOutputTokens }),
  });
  return {
    ...callSettings,
    prompt,
    ...(prepared?.tools !== undefined && { tools: prepared.tools }),
    ...(prepared?.toolChoice !== undefined && { toolChoice: prepared.toolChoice }),
    ...(args.providerOptions !== undefined && {
      providerOptions: args.providerOptions as LanguageModelV3CallOptions['providerOptions'],
    }),
    abortSignal,
  } as LanguageModelV3CallOptions;
}

/**
 * The few checks of a request's messages a direct call needs (the loop builds them; a caller of
 * `generate` may not): a known role and text content, tool calls and results with their ids. A constant
 * cost per message, unlike the SDK's schema check.
 *
 * @throws {TypeError} naming the first message that is not one of taoloop's model messages.
 */
function checkMessages(messages: ModelRequest['messages']): void {
  messages.forEach((message, i) => {
    const m = message as { role?: unknown; content?: unknown; toolCalls?: unknown; toolCallId?: unknown };
    const fail = (what: string) => {
      throw new TypeError(`message ${i} (${String(m.role)}) is not a model message: ${what}.`);
    };
    if (!['system', 'user', 'assistant', 'tool'].includes(m.role as string))
      fail('its role is not system, user, assistant or tool');
    if (typeof m.content !== 'string') fail(`its content is ${typeof m.content}, not text`);
    if (m.role === 'assistant' && m.toolCalls !== undefined && !Array.isArray(m.toolCalls))
      fail('its toolCalls is not a list');
    if (m.role === 'tool' && typeof m.toolCallId !== 'string') fail('it has no toolCallId');
  });
}

/** The text, reasoning and tool calls of a direct call's content. */
function fromContent(content: readonly LanguageModelV3Content[]) {
  let text = '';
  let reasoning = '';
  const toolCalls = [];
  for (const part of content) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'reasoning') reasoning += part.text;
    else if (part.type === 'tool-call' && part.providerExecuted !== true) toolCalls.push(toToolCall(part));
  }
  return { text, reasoning, toolCalls };
}

interface CallSettings {
  model: AiSdkLanguageModel;
  id: string;
  maxRetries?: number;
}

/** The arguments shared by `generateText` and `streamText`, built without `undefined` values. */
function callArguments(
  ai: AiSdk,
  settings: CallSettings,
  request: ModelRequest,
  abortSignal: AbortSignal | undefined,
) {
  return {
    model: settings.model,
    messages: withCacheBreakpoints(settings.model, request),
    // The system prompt is ours, not user input: skip the AI SDK's per-call console warning.
    allowSystemInMessages: true as const,
    ...(request.tools?.length && { tools: toToolSet(ai, request.tools) }),
    ...(request.tools?.length &&
      request.parallelToolCalls === false && { providerOptions: oneToolCallPerStep(settings.model) }),
    ...(settings.maxRetries !== undefined && { maxRetries: settings.maxRetries }),
    ...(request.stopSequences !== undefined && { stopSequences: [...request.stopSequences] }),
    ...(request.temperature !== undefined && { temperature: request.temperature }),
    ...(request.maxOutputTokens !== undefined && { maxOutputTokens: request.maxOutputTokens }),
    ...(abortSignal !== undefined && { abortSignal }),
  };
}

/**
 * Provider options that turn parallel tool calls off (`request.parallelToolCalls: false`), by the provider's
 * name (the part of `model.provider` before the dot): OpenAI `parallelToolCalls: false` and Anthropic
 * `disableParallelToolUse: true` (AI SDK provider options); Google has no such setting; any other provider is
 * taken for an OpenAI-compatible one (`ollama`, `openai-compatible`, or any `createOpenAICompatible` name),
 * whose provider options under its name go into the request body: `parallel_tool_calls: false`. A provider
 * that ignores it may still return several calls; the loop then answers the others that they were not run.
 */
function oneToolCallPerStep(model: AiSdkLanguageModel): Record<string, Record<string, boolean>> {
  const name = model.provider.split('.')[0] ?? '';
  if (name === 'openai') return { openai: { parallelToolCalls: false } };
  if (name === 'anthropic') return { anthropic: { disableParallelToolUse: true } };
  if (name === 'google') return {};
  return { [name]: { parallel_tool_calls: false } };
}

/**
 * The request's messages for the AI SDK, with Anthropic prompt-cache breakpoints on the system prompt, the
 * end of the stable prefix a compaction left (`request.stablePrefixMessages`) and the newest message unless
 * `request.promptCaching` is `false` (Anthropic caches only up to a breakpoint;
 * the newest one is read back by the next step's request, since each request extends the one before:
 * https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching). Other providers get the messages
 * unmarked: OpenAI and OpenAI-compatible servers cache a stable prefix on their own.
 */
function withCacheBreakpoints(model: AiSdkLanguageModel, request: ModelRequest) {
  const messages = request.messages.map(toAiMessage);
  if (request.promptCaching === false || !model.provider.includes('anthropic')) return messages;
  const breakpoint = { anthropic: { cacheControl: { type: 'ephemeral' } } };
  // A third breakpoint at the end of what a compaction keeps as it is (Anthropic allows four): the newer
  // part changes at each compaction, and the kept part is then read from the cache, not written again.
  const stable = request.stablePrefixMessages;
  const marked = new Set([
    messages.findIndex((m) => m.role === 'system'),
    ...(stable !== undefined && stable >= 1 && stable < messages.length ? [stable - 1] : []),
    messages.length - 1,
  ]);
  return messages.map((message, i) =>
    marked.has(i) ? { ...message, providerOptions: breakpoint } : message,
  );
}

async function generateTurn(settings: CallSettings, request: ModelRequest): Promise<ModelResponse> {
  const call = callSignal(request.signal);
  const progress = trackCall(call.signal, retriesOf(settings, request));
  try {
    if (isV3(settings.model)) {
      const model = settings.model;
      const signal = call.signal ?? new AbortController().signal;
      const [options, internal] = await Promise.all([
        directCallOptions(settings, request, signal),
        loadInternal(),
      ]);
      const { retry } = internal.prepareRetries({
        maxRetries: settings.maxRetries ?? AI_SDK_MAX_RETRIES,
        abortSignal: signal,
      });
      const result = await retry(() => model.doGenerate(options));
      const { text, reasoning, toolCalls } = fromContent(result.content);
      return {
        text,
        ...(reasoning && { reasoning }),
        ...(toolCalls.length && { toolCalls }),
        usage: toModelUsage(internal.asLanguageModelUsage(result.usage)),
        finishReason: toFinishReason(result.finishReason.unified),
        rawFinishReason: result.finishReason.raw,
      };
    }
    const ai = await loadAi();
    const result = await ai.generateText(callArguments(ai, settings, request, call.signal));
    return {
      text: result.text,
      // `reasoningText`: the reasoning parts joined (AI SDK 6 `GenerateTextResult`), e.g. `reasoning_content`.
      ...(result.reasoningText && { reasoning: result.reasoningText }),
      ...(result.toolCalls.length && { toolCalls: result.toolCalls.map(toToolCall) }),
      usage: toModelUsage(result.usage),
      finishReason: toFinishReason(result.finishReason),
      rawFinishReason: result.rawFinishReason,
    };
  } catch (error) {
    throw toModelError(error, settings.id, request.signal, progress, aiSdk);
  } finally {
    call.release();
  }
}

/** The AI SDK's default `maxRetries`. */
const AI_SDK_MAX_RETRIES = 2;

/** Who hears of the SDK's retries of this call (seen by `trackingFetch`), and how many it makes at most. */
function retriesOf(settings: CallSettings, request: ModelRequest) {
  return { onRetry: request.onRetry, maxRetries: settings.maxRetries ?? AI_SDK_MAX_RETRIES };
}

const noop = () => {};

/**
 * A signal of this call's own that follows `outer`, and `release` to stop following it when the call is over.
 *
 * Node's fetch (undici) leaves its abort listener on the signal it is given until the request object is
 * garbage-collected, and adding a listener walks the signal's whole list. A signal shared by many calls (an
 * eval's, with 64 in flight) would collect hundreds of stale listeners; a fresh signal per call keeps that
 * list short, and this call's one listener on `outer` is removed as soon as the call ends.
 */
function callSignal(outer: AbortSignal | undefined): { signal: AbortSignal | undefined; release(): void } {
  // A signal of its own even without `outer`, so the call's progress can be tracked by it.
  if (outer === undefined) return { signal: new AbortController().signal, release: noop };
  if (outer.aborted) return { signal: outer, release: noop };
  const local = new AbortController();
  const forward = () => local.abort(outer.reason);
  outer.addEventListener('abort', forward, { once: true });
  return { signal: local.signal, release: () => outer.removeEventListener('abort', forward) };
}

/**
 * Streams one turn. `streamText` reports failures as `error` parts (and to `onError`, which logs
 * to the console by default) instead of throwing, so the full stream is read and errors thrown
 * here. A consumer that stops early aborts the HTTP request through an internal signal.
 *
 * A response that breaks off after it began (the server closed the connection mid-body, or ended the
 * stream without a finish) is made again, as the AI SDK retries a dropped connection before the response:
 * within the same `maxRetries` (the SDK's retries of this call count), after the same waits (2 s, 4 s, ...,
 * or the response's `retry-after`), each reported to `request.onRetry`. Only what the new attempt adds to
 * the parts already yielded is yielded (see `stream-retry.ts`).
 */
async function* streamTurn(settings: CallSettings, request: ModelRequest): AsyncGenerator<ModelStreamPart> {
  const local = new AbortController();
  const signal = request.signal === undefined ? local.signal : abortAny([request.signal, local.signal]);
  let finished = false;
  const retries = retriesOf(settings, request);
  const progress = trackCall(signal, retries);
  const passedOn = new PassedOn();
  try {
    const ai = await loadAi();
    const isApiCallError = (e: unknown) => ai.APICallError.isInstance(e);
    for (;;) {
      try {
        const left = Math.max(0, retries.maxRetries - (progress.retries ?? 0));
        for await (const part of streamAttempt(ai, { ...settings, maxRetries: left }, request, signal)) {
          const fresh = passedOn.admit(part);
          if (part.type === 'finish') finished = true;
          if (fresh) yield fresh;
        }
        return;
      } catch (error) {
        const retry = (progress.retries ?? 0) + 1;
        if (signal.aborted || retry > retries.maxRetries || !brokeOff(error, isApiCallError)) throw error;
        const what = describeBrokenOff(error, progress);
        progress.failure = { error: what, at: performance.now() };
        const delayMs = retryDelayMs(error, retry);
        await pause(delayMs, signal);
        // Reported here, as the retry is sent: the fetch has no failure left to report it again.
        delete progress.failure;
        progress.retries = retry;
        retries.onRetry?.({ retry, maxRetries: retries.maxRetries, error: what, delayMs });
        passedOn.restart();
      }
    }
  } catch (error) {
    throw toModelError(error, settings.id, request.signal, progress, aiSdk);
  } finally {
    if (!finished) local.abort();
  }
}

/** One attempt of a streamed turn: the AI SDK's parts as {@link ModelStreamPart}s, ending with `finish`. */
async function* streamAttempt(
  ai: AiSdk,
  settings: CallSettings,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncGenerator<ModelStreamPart> {
  if (isV3(settings.model)) {
    yield* directStreamAttempt(settings.model, settings, request, signal);
    return;
  }
  const result = ai.streamText({ ...callArguments(ai, settings, request, signal), onError: () => {} });
  let usage: LanguageModelUsage | undefined;
  for await (const part of result.fullStream) {
    switch (part.type) {
      case 'text-delta':
        if (part.text !== '') yield { type: 'text-delta', text: part.text };
        break;
      case 'reasoning-delta':
        if (part.text !== '') yield { type: 'reasoning-delta', text: part.text };
        break;
      case 'tool-call':
        yield { type: 'tool-call', toolCall: toToolCall(part) };
        break;
      case 'finish-step':
        usage = part.usage;
        break;
      case 'finish':
        // The step's usage keeps the provider's raw usage; the total is a sum without it.
        yield {
          type: 'finish',
          usage: toModelUsage(usage ?? part.totalUsage),
          finishReason: toFinishReason(part.finishReason),
          rawFinishReason: part.rawFinishReason,
        };
        return;
      case 'error':
        throw part.error;
      case 'abort':
        throw abortReason(request.signal);
      default:
        break;
    }
  }
  throw new StreamEndedEarlyError();
}

/**
 * One attempt of a streamed turn on a `LanguageModelV3`, called directly (`doStream`, within the AI SDK's
 * retries until the response starts): its parts as {@link ModelStreamPart}s, ending with `finish`.
 */
async function* directStreamAttempt(
  model: LanguageModelV3,
  settings: CallSettings,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncGenerator<ModelStreamPart> {
  const [options, internal] = await Promise.all([
    directCallOptions(settings, request, signal),
    loadInternal(),
  ]);
  const { retry } = internal.prepareRetries({
    maxRetries: settings.maxRetries ?? AI_SDK_MAX_RETRIES,
    abortSignal: signal,
  });
  const { stream } = await retry(() => model.doStream(options));
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value: part } = await reader.read();
      if (done) break;
      switch (part.type) {
        case 'text-delta':
          if (part.delta !== '') yield { type: 'text-delta', text: part.delta };
          break;
        case 'reasoning-delta':
          if (part.delta !== '') yield { type: 'reasoning-delta', text: part.delta };
          break;
        case 'tool-call':
          if (part.providerExecuted !== true) yield { type: 'tool-call', toolCall: toToolCall(part) };
          break;
        case 'finish':
          yield {
            type: 'finish',
            usage: toModelUsage(internal.asLanguageModelUsage(part.usage)),
            finishReason: toFinishReason(part.finishReason.unified),
            rawFinishReason: part.finishReason.raw,
          };
          return;
        case 'error':
          throw part.error;
        default:
          break;
      }
    }
  } finally {
    reader.releaseLock();
  }
  if (signal.aborted) throw abortReason(request.signal);
  throw new StreamEndedEarlyError();
}

/**
 * What a response that broke off was, as a retry's or the call's error says it: `the server closed the
 * connection mid-response (1204 bytes received)`, `the server ended the response before it was complete
 * (no finish)`.
 */
function describeBrokenOff(error: unknown, progress: CallProgress): string {
  if (error instanceof StreamEndedEarlyError) return error.message;
  return (
    describeNetworkFailure(error, progress) ??
    `the server closed the connection mid-response (${progress.bytes} bytes received)`
  );
}

function toFinishReason(reason: AiFinishReason | undefined): FinishReason {
  return reason ?? 'unknown';
}

type RawUsage = Record<string, unknown>;

function numberAt(raw: RawUsage, ...path: string[]): number | undefined {
  let value: unknown = raw;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as RawUsage)[key];
  }
  return typeof value === 'number' ? value : undefined;
}

/**
 * Maps AI SDK usage to {@link ModelUsage}, keeping "not reported" as `undefined`.
 *
 * The AI SDK 6 providers turn missing usage fields into 0 (e.g. OpenAI-compatible reports
 * `cacheRead: 0` when the server sends no `prompt_tokens_details`). Where the provider's raw usage
 * has a known shape (OpenAI chat `prompt_tokens`, Anthropic `input_tokens`, Google
 * `promptTokenCount`), a field absent from the raw usage is reported as `undefined`.
 */
export function toModelUsage(usage: LanguageModelUsage): ModelUsage {
  let inputTokens = usage.inputTokens;
  let outputTokens = usage.outputTokens;
  let cachedInputTokens = usage.inputTokenDetails?.cacheReadTokens ?? usage.cachedInputTokens;
  const raw = usage.raw as RawUsage | undefined;
  if (raw !== undefined && ('prompt_tokens' in raw || 'completion_tokens' in raw)) {
    inputTokens = numberAt(raw, 'prompt_tokens');
    outputTokens = numberAt(raw, 'completion_tokens');
    cachedInputTokens = numberAt(raw, 'prompt_tokens_details', 'cached_tokens');
  } else if (raw !== undefined && 'input_tokens' in raw) {
    if (numberAt(raw, 'cache_read_input_tokens') === undefined) cachedInputTokens = undefined;
  } else if (raw !== undefined && 'promptTokenCount' in raw) {
    if (numberAt(raw, 'cachedContentTokenCount') === undefined) cachedInputTokens = undefined;
  }
  const usageOut: ModelUsage = { inputTokens, outputTokens, cachedInputTokens };
  const cacheWrite = raw === undefined ? undefined : numberAt(raw, 'cache_creation_input_tokens');
  if (cacheWrite !== undefined) usageOut.cacheWriteInputTokens = cacheWrite;
  return usageOut;
}
