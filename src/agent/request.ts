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
import { AgentConfigError } from './errors.js';
import {
  type AnswerFormat,
  answerFormat,
  answerInstructions,
  finalAnswerDefinition,
} from './final-answer.js';
import { renderNativeMessages, renderNativeSystemPrompt, toolDefinitions } from './native.js';
import type { AgentOptions, Step } from './types.js';

// Where it used to live; import it from './errors.js'.
export { AgentConfigError };

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
  /** The typed answer's format, when the run has `output`. */
  answer: AnswerFormat | undefined;
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
  checkLimit('toolConcurrency', options.toolConcurrency);
  const mode = options.mode ?? 'text';
  if (mode === 'native' && !model.supportsToolCalls) {
    throw new AgentConfigError(
      `The model ${model.id} does not support native tool calling; use mode 'text' (the ReAct text protocol) or 'auto'.`,
    );
  }
  const native = mode === 'native' || (mode === 'auto' && model.supportsToolCalls === true);
  checkLimit('maxAnswerCorrections', options.maxAnswerCorrections);
  const answer = answerFormat(options, tools, native);
  const instructions = answerInstructions(options.instructions, answer, native, labels);
  const systemPrompt = native
    ? renderNativeSystemPrompt({ instructions, answerLabel: primaryLabels(labels).answer })
    : renderSystemPrompt({
        tools,
        labels,
        instructions,
        examples: options.examples,
        contentLanguage: options.contentLanguage,
      });
  const contextWindowTokens =
    options.contextWindowTokens ?? model.contextWindowTokens ?? knownContextWindow(model.id);
  const l = primaryLabels(labels);
  const turnFormat: TurnFormat = {
    tools: tools.map((t) => t.name),
    labels: { thought: l.thought, action: l.action, answer: l.answer },
    ...(answer?.jsonSchema && { answerJsonSchema: answer.jsonSchema }),
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
    answer,
  };
}

/** @throws {AgentConfigError} unless `value` is undefined or a whole number of at least 1. */
function checkLimit(name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
    throw new AgentConfigError(`${name} must be a whole number of at least 1, got ${value}.`);
  }
}

/** The request for the next model call. */
export function buildRequest(
  plan: RequestPlan,
  options: AgentOptions & { tools: readonly Tool[] },
  steps: readonly Step[],
  sendStop: boolean,
): ModelRequest {
  const fitted = fitSteps(plan, options, steps);
  const settings = {
    temperature: options.temperature ?? 0,
    ...(options.maxOutputTokens !== undefined && { maxOutputTokens: options.maxOutputTokens }),
    ...(options.signal && { signal: options.signal }),
    ...(options.promptCaching === false && { promptCaching: false }),
  };
  if (plan.native) {
    const questionLine = `${primaryLabels(plan.labels).question}: ${plan.question}`;
    const messages = renderNativeMessages(plan.systemPrompt, questionLine, fitted);
    // Earlier turns go between the system prompt and the question, as conversation.
    messages.splice(1, 0, ...plan.earlier);
    const tools = toolDefinitions(options.tools);
    if (plan.answer) tools.push(finalAnswerDefinition(plan.answer));
    return { ...settings, messages, tools };
  }
  const entries = fitted.map((s) => ({ modelText: s.transcriptText, observation: s.observation?.text }));
  const messages: ModelMessage[] = renderMessages({
    systemPrompt: plan.systemPrompt,
    question: plan.question,
    labels: plan.labels,
    entries,
  });
  messages.splice(1, 0, ...plan.earlier);
  return {
    ...settings,
    messages,
    ...(sendStop && { stopSequences: plan.stopSequences }),
    turnFormat: plan.turnFormat,
  };
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
