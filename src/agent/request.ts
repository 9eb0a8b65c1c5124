/**
 * Building the model request for the next step from the step list: the prompt is a pure projection of
 * the trajectory, in text or native mode, shortened to fit the context window when needed.
 *
 * @module
 */
import type { ModelMessage, ModelRequest, TurnFormat } from '../models/types.js';
import { type LabelSet, primaryLabels } from '../react/labels.js';
import { renderMessages, renderSystemPrompt, stopSequences } from '../react/prompt.js';
import type { Tool } from '../tools/types.js';
import { estimateTokens, fitEntries, knownContextWindow } from './context.js';
import { type Conversation, earlierMessages } from './conversation.js';
import { renderNativeMessages, renderNativeSystemPrompt, toolDefinitions } from './native.js';
import type { AgentOptions, Step } from './types.js';

/** Thrown before any model call when the options cannot work together. */
export class AgentConfigError extends Error {
  override name = 'AgentConfigError';
}

/** What stays fixed over a run: the mode, the system prompt, the limits. */
export interface RequestPlan {
  native: boolean;
  systemPrompt: string;
  labels: LabelSet;
  contextWindowTokens: number | undefined;
  /** Text mode: computed once per run, sent with every request. */
  stopSequences: string[];
  turnFormat: TurnFormat;
  /** The current question (the last user message). */
  question: string;
  /** Earlier turns of the conversation, as chat messages sent before the question. */
  earlier: ModelMessage[];
}

/**
 * Decides the mode and renders the system prompt once per run.
 *
 * @throws {AgentConfigError} when `mode` is `'native'` and the model cannot call tools, or a limit is not a
 * whole number of at least 1.
 */
export function planRequests(
  options: AgentOptions,
  labels: LabelSet,
  tools: readonly Tool[],
  conversation: Conversation,
): RequestPlan {
  const { model } = options;
  checkLimit('maxSteps', options.maxSteps);
  checkLimit('maxConsecutiveFormatErrors', options.maxConsecutiveFormatErrors);
  checkLimit('maxRepeatedActions', options.maxRepeatedActions);
  const mode = options.mode ?? 'text';
  if (mode === 'native' && !model.supportsToolCalls) {
    throw new AgentConfigError(
      `The model ${model.id} does not support native tool calling; use mode 'text' (the ReAct text protocol) or 'auto'.`,
    );
  }
  const native = mode === 'native' || (mode === 'auto' && model.supportsToolCalls === true);
  const systemPrompt = native
    ? renderNativeSystemPrompt({
        instructions: options.instructions,
        answerLabel: primaryLabels(labels).answer,
      })
    : cachedSystemPrompt(options, labels, tools);
  const contextWindowTokens =
    options.contextWindowTokens ?? model.contextWindowTokens ?? knownContextWindow(model.id);
  const l = primaryLabels(labels);
  const turnFormat: TurnFormat = {
    tools: tools.map((t) => t.name),
    labels: { thought: l.thought, action: l.action, answer: l.answer },
  };
  return {
    native,
    systemPrompt,
    labels,
    contextWindowTokens,
    stopSequences: stopSequences(labels),
    turnFormat,
    question: conversation.question,
    earlier: earlierMessages(conversation.earlier, labels, options.earlierTrajectories === 'summary'),
  };
}

/** Rendered system prompts by label set, then by everything else they depend on (see {@link promptKey}). */
const promptCache = new WeakMap<LabelSet, Map<string, string>>();
/** Prompts kept per label set; the oldest is dropped first. */
const PROMPT_CACHE_SIZE = 32;

/**
 * The text-mode system prompt, rendered once per distinct tool list, instructions and examples rather than
 * once per run (rendering is a few dozen microseconds: as much as a whole short run's loop overhead).
 * Structured few-shot examples are keyed by the array's identity (an eval passes the same parsed array to
 * every item), so an array changed in place after a run is not seen by later runs: pass a new array.
 */
function cachedSystemPrompt(options: AgentOptions, labels: LabelSet, tools: readonly Tool[]): string {
  const key = promptKey(options, tools);
  let byKey = promptCache.get(labels);
  if (!byKey) {
    byKey = new Map();
    promptCache.set(labels, byKey);
  }
  const cached = byKey.get(key);
  if (cached !== undefined) return cached;
  const prompt = renderSystemPrompt({
    tools,
    labels,
    instructions: options.instructions,
    examples: options.examples,
    contentLanguage: options.contentLanguage,
  });
  if (byKey.size >= PROMPT_CACHE_SIZE) byKey.delete(byKey.keys().next().value as string);
  byKey.set(key, prompt);
  return prompt;
}

/**
 * Everything the text system prompt depends on besides the labels. Each field is written with its length
 * first, so no text can make two different option sets share a key; examples are `s` + the text, `a` + the
 * array's identity, or `-` when absent.
 */
function promptKey(options: AgentOptions, tools: readonly Tool[]): string {
  const { examples } = options;
  const examplesKey =
    examples === undefined ? '-' : typeof examples === 'string' ? `s${examples}` : `a${identity(examples)}`;
  let key = field(options.instructions) + field(options.contentLanguage) + field(examplesKey);
  for (const tool of tools) key += field(tool.name) + field(tool.description) + field(tool.inputHint);
  return key;
}

/** `text` prefixed by its length (`5:hello`); `undefined` as `-`. */
function field(text: string | undefined): string {
  return text === undefined ? '-' : `${text.length}:${text}`;
}

/** @throws {AgentConfigError} unless `value` is undefined or a whole number of at least 1. */
function checkLimit(name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
    throw new AgentConfigError(`${name} must be a whole number of at least 1, got ${value}.`);
  }
}

const identities = new WeakMap<object, number>();
let lastIdentity = 0;

/** A number for `value`'s identity, the same for as long as it lives. */
function identity(value: object): number {
  let id = identities.get(value);
  if (id === undefined) {
    id = ++lastIdentity;
    identities.set(value, id);
  }
  return id;
}

/** The request for the next model call. */
export function buildRequest(
  plan: RequestPlan,
  options: AgentOptions & { tools: readonly Tool[] },
  steps: readonly Step[],
  sendStop: boolean,
): ModelRequest {
  const fitted = fitSteps(plan, options, steps);
  // Built field by field: object spreads cost about a microsecond each on Node 20, on every step.
  const request: ModelRequest = { temperature: options.temperature ?? 0 } as ModelRequest;
  if (options.maxOutputTokens !== undefined) request.maxOutputTokens = options.maxOutputTokens;
  if (options.signal) request.signal = options.signal;
  if (options.promptCaching === false) request.promptCaching = false;
  if (plan.native) {
    const questionLine = `${primaryLabels(plan.labels).question}: ${plan.question}`;
    request.messages = renderNativeMessages(plan.systemPrompt, questionLine, fitted);
    request.messages.splice(1, 0, ...plan.earlier);
    request.tools = toolDefinitions(options.tools);
    return request;
  }
  const entries = fitted.map((s) => ({ modelText: s.transcriptText, observation: s.observation?.text }));
  request.messages = renderMessages({
    systemPrompt: plan.systemPrompt,
    question: plan.question,
    labels: plan.labels,
    entries,
  });
  // Earlier turns go between the system prompt and the question, as conversation.
  request.messages.splice(1, 0, ...plan.earlier);
  if (sendStop) request.stopSequences = plan.stopSequences;
  request.turnFormat = plan.turnFormat;
  return request;
}

/** Steps with the oldest observations shortened when the transcript would not fit the context window. */
function fitSteps(plan: RequestPlan, options: AgentOptions, steps: readonly Step[]): readonly Step[] {
  if (plan.contextWindowTokens === undefined) return steps;
  const earlier = plan.earlier.map((m) => m.content).join('\n');
  const reserved =
    estimateTokens(plan.systemPrompt + earlier + plan.question) + (options.maxOutputTokens ?? 1024);
  const entries = steps.map((s) => ({ modelText: s.transcriptText, observation: s.observation?.text }));
  const fitted = fitEntries(entries, plan.contextWindowTokens - reserved);
  return steps.map((step, i) => {
    const text = fitted[i]?.observation;
    if (!step.observation || text === undefined || text === step.observation.text) return step;
    return { ...step, observation: { ...step.observation, text } };
  });
}
