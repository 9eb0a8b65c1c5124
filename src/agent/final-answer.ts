/**
 * How the final answer is asked for: the typed answer's instructions and native `final_answer` tool, and
 * the one last call without tools that `forceFinalAnswer` makes after a step or budget limit.
 *
 * @module
 */
import type { ModelRequest, ModelResponse, ModelToolCall, ModelToolDefinition } from '../models/types.js';
import { type LabelSet, primaryLabels } from '../react/labels.js';
import type { AnswerTurn } from '../react/turn.js';
import type { Tool } from '../tools/types.js';
import { AgentConfigError } from './errors.js';
import type { RunSettings } from './options.js';
import { outputInstructions, outputJsonSchema } from './output.js';

/** The native-mode tool that carries a typed answer. */
export const FINAL_ANSWER_TOOL = 'final_answer';

/** What a run with `output` asks of the model. */
export interface AnswerFormat {
  /** The schema's JSON Schema, when it can give one. */
  jsonSchema: Record<string, unknown> | undefined;
  /** Native mode: the `final_answer` tool's arguments wrap a non-object answer as `{ "answer": ... }`. */
  wrapped: boolean;
}

/**
 * The answer format for a run with `output`, or undefined without one.
 *
 * @throws {AgentConfigError} in native mode when a tool is already called `final_answer`.
 */
export function answerFormat(
  options: RunSettings,
  tools: readonly Tool[],
  native: boolean,
): AnswerFormat | undefined {
  if (!options.output) return undefined;
  if (native && tools.some((t) => t.name === FINAL_ANSWER_TOOL)) {
    throw new AgentConfigError(
      `A tool is called "${FINAL_ANSWER_TOOL}", the name native mode uses for the typed answer (output): rename it.`,
    );
  }
  const jsonSchema = outputJsonSchema(options.output);
  return { jsonSchema, wrapped: jsonSchema?.type !== 'object' };
}

/** The caller's instructions plus what the answer format asks for. */
export function answerInstructions(
  instructions: string | undefined,
  format: AnswerFormat | undefined,
  native: boolean,
  labels: LabelSet,
): string | undefined {
  if (!format) return instructions;
  const line = native
    ? `When you know the answer, call the ${FINAL_ANSWER_TOOL} tool with it instead of replying in text.`
    : outputInstructions(format.jsonSchema, primaryLabels(labels).answer);
  return instructions?.trim() ? `${instructions.trim()}\n\n${line}` : line;
}

/** The `final_answer` tool for native mode: the answer's JSON Schema, wrapped in an object if needed. */
export function finalAnswerDefinition(format: AnswerFormat): ModelToolDefinition {
  const schema = format.jsonSchema ?? {};
  return {
    name: FINAL_ANSWER_TOOL,
    description: 'Gives the final answer. Call it once you know the answer; nothing runs after it.',
    inputJsonSchema: format.wrapped
      ? { type: 'object', properties: { answer: schema }, required: ['answer'], additionalProperties: false }
      : schema,
  };
}

/** The answer a `final_answer` call carries, as JSON text (unwrapped when the format wraps it). */
export function finalAnswerText(call: ModelToolCall, format: AnswerFormat | undefined): string {
  if (!format?.wrapped) return call.input;
  try {
    const value = JSON.parse(call.input) as { answer?: unknown };
    if (value && typeof value === 'object' && 'answer' in value) return JSON.stringify(value.answer);
  } catch {
    // Not JSON: validation will say so.
  }
  return call.input;
}

/** Native mode with `output`: a `final_answer` call read as the answer turn (its JSON), else undefined. */
export function finalAnswerTurn(
  response: ModelResponse,
  format: AnswerFormat | undefined,
): AnswerTurn | undefined {
  const call = response.toolCalls?.find((c) => c.name === FINAL_ANSWER_TOOL);
  if (!format || !call) return undefined;
  const thought = response.text.trim();
  return { type: 'answer', text: finalAnswerText(call, format), ...(thought && { thought }) };
}

/**
 * Turns the next step's request into the forced last call: no tools offered, and a closing message
 * asking for the best answer from the evidence so far.
 */
export function forceAnswerRequest(
  request: ModelRequest,
  labels: LabelSet,
  format: AnswerFormat | undefined,
): void {
  const l = primaryLabels(labels);
  const native = request.tools !== undefined;
  const form = native
    ? format
      ? `by calling ${FINAL_ANSWER_TOOL}`
      : `as "${l.answer}: <the final answer>"`
    : `as "${l.thought}: ..." then "${l.answer}: ..."`;
  request.messages.push({
    role: 'user',
    content: `You have no steps left: do not call any more tools. Give your best final ${l.answer} now from the evidence above, ${form}.`,
  });
  if (native && format) request.tools = [finalAnswerDefinition(format)];
  else if (native) delete request.tools;
  if (request.turnFormat) request.turnFormat = { ...request.turnFormat, tools: [] };
}
