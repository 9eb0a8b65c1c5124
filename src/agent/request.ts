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
import { estimateTokens, knownContextWindow } from './context.js';
import { type Conversation, earlierMessages } from './conversation.js';
import { AgentConfigError } from './errors.js';
import {
  type AnswerFormat,
  answerFormat,
  answerInstructions,
  finalAnswerDefinition,
} from './final-answer.js';
import { renderNativeMessages, renderNativeSystemPrompt, toolDefinitions } from './native.js';
import type { RunSettings } from './options.js';
import type { Step } from './types.js';

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
  /** The instructions the system prompt carries (the caller's, plus how to give a typed answer). */
  instructions: string | undefined;
}

/**
 * Decides the mode and renders the system prompt once per run.
 *
 * @throws {AgentConfigError} when `mode` is `'native'` and the model cannot call tools, or a limit is not a
 * whole number of at least 1.
 */
export function planRequests(
  options: RunSettings,
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
  const systemPrompt = renderPlanSystemPrompt(native, options, labels, tools, instructions);
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
    instructions,
  };
}

/** The system prompt for `tools` (text mode lists them; native mode sends them as functions). */
function renderPlanSystemPrompt(
  native: boolean,
  options: RunSettings,
  labels: LabelSet,
  tools: readonly Tool[],
  instructions: string | undefined,
): string {
  return native
    ? renderNativeSystemPrompt({ instructions, answerLabel: primaryLabels(labels).answer })
    : renderSystemPrompt({
        tools,
        labels,
        instructions,
        examples: options.examples,
        contentLanguage: options.contentLanguage,
      });
}

/**
 * The system prompt of one step whose `prepareStep` offered only `tools` or added `extraInstructions`
 * (appended after the run's own instructions).
 */
export function stepSystemPrompt(
  plan: RequestPlan,
  options: RunSettings,
  tools: readonly Tool[],
  extraInstructions: string | undefined,
): string {
  const instructions = [plan.instructions, extraInstructions].filter((s) => s?.trim()).join('\n\n');
  return renderPlanSystemPrompt(plan.native, options, plan.labels, tools, instructions || undefined);
}

/** @throws {AgentConfigError} unless `value` is undefined or a whole number of at least 1. */
function checkLimit(name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
    throw new AgentConfigError(`${name} must be a whole number of at least 1, got ${value}.`);
  }
}

/**
 * The request for the next model call, rendered from all of `steps` as they are. Keeping it inside the
 * context window is the compaction strategy's job (`compaction.ts`), which renders shortened steps with
 * {@link renderStepMessages}.
 */
export function buildRequest(
  plan: RequestPlan,
  options: RunSettings & { tools: readonly Tool[] },
  steps: readonly Step[],
  sendStop: boolean,
): ModelRequest {
  const settings = {
    temperature: options.temperature ?? 0,
    ...(options.maxOutputTokens !== undefined && { maxOutputTokens: options.maxOutputTokens }),
    ...(options.signal && { signal: options.signal }),
    ...(options.promptCaching === false && { promptCaching: false }),
  };
  const messages = renderStepMessages(plan, steps);
  if (plan.native) {
    const tools = toolDefinitions(options.tools);
    if (plan.answer) tools.push(finalAnswerDefinition(plan.answer));
    return {
      ...settings,
      messages,
      tools,
      ...(options.parallelToolCalls === false && { parallelToolCalls: false }),
    };
  }
  return {
    ...settings,
    messages,
    ...(sendStop && { stopSequences: plan.stopSequences }),
    turnFormat: plan.turnFormat,
  };
}

/**
 * The messages for `steps`: the system prompt, earlier turns of the conversation, the question, then each
 * step (text mode: its turn and `Observation:`; native mode: its tool calls and their results).
 */
export function renderStepMessages(plan: RequestPlan, steps: readonly Step[]): ModelMessage[] {
  let messages: ModelMessage[];
  if (plan.native) {
    const questionLine = `${primaryLabels(plan.labels).question}: ${plan.question}`;
    messages = renderNativeMessages(plan.systemPrompt, questionLine, steps);
  } else {
    const entries = steps.map((s) => ({ modelText: s.transcriptText, observation: s.observation?.text }));
    messages = renderMessages({
      systemPrompt: plan.systemPrompt,
      question: plan.question,
      labels: plan.labels,
      entries,
    });
  }
  // Earlier turns go between the system prompt and the question, as conversation.
  messages.splice(1, 0, ...plan.earlier);
  return messages;
}

/**
 * Tokens the steps' transcript may take: the context window minus the system prompt, the earlier turns,
 * the question and room for the reply (`maxOutputTokens`, else 1024). `undefined` when the window is unknown.
 */
export function transcriptBudgetTokens(plan: RequestPlan, options: RunSettings): number | undefined {
  if (plan.contextWindowTokens === undefined) return undefined;
  const earlier = plan.earlier.map((m) => m.content).join('\n');
  const reserved =
    estimateTokens(plan.systemPrompt + earlier + plan.question) + (options.maxOutputTokens ?? 1024);
  return plan.contextWindowTokens - reserved;
}
