/**
 * How the loop reads a model response into a step, and words what it sends back for a turn.
 *
 * @module
 */
import type { ModelResponse } from '../models/types.js';
import { type LabelSet, primaryLabels } from '../react/labels.js';
import { findInventedObservation } from '../react/parse.js';
import { describeIgnored } from '../react/problems.js';
import { readReply } from '../react/reply.js';
import { readThinking } from '../react/think.js';
import type { ActionTurn, NoneTurn, Turn } from '../react/turn.js';
import { trimLinesEnd } from '../react/visible.js';

/** The model's text as kept in the transcript: cut before any observation the model wrote itself. */
export function cutTranscriptText(text: string, labels: LabelSet): string {
  const at = findInventedObservation(text, labels);
  return trimLinesEnd(at >= 0 ? text.slice(0, at) : text);
}

/** The observation sent back for an unusable turn: the parser's problem, marked as a format error. */
export function formatErrorObservation(turn: NoneTurn): string {
  return `Format error: ${turn.problem}`;
}

/** A response read into the parts of a step. */
export interface StepReading {
  turn: Turn;
  /** What the next prompt shows of the turn: no reasoning, nothing after the first action or the cut. */
  transcriptText: string;
  /** The provider's separate reasoning, then the `<think>` blocks; absent when there is none. */
  reasoning?: string;
  /** The text from the observation the model wrote itself, when it wrote one. */
  droppedText?: string;
}

/**
 * Reads a text-mode response as the stream cut and the parser read it (`readReply`), the same whether it
 * was streamed or not. The transcript keeps the turn up to the end of its first action, without reasoning.
 */
export function readTextStep(
  response: ModelResponse,
  options: { tools: readonly string[]; labels: LabelSet },
): StepReading {
  const { text } = response;
  const read = readReply(text, {
    tools: options.tools,
    labels: options.labels,
    finishReason: response.finishReason,
  });
  const reading: StepReading = {
    turn: read.turn,
    transcriptText: trimLinesEnd(read.source.slice(0, read.end)),
  };
  const reasoning = joinReasoning(response.reasoning, read.reasoning);
  if (reasoning !== undefined) reading.reasoning = reasoning;
  if (read.turn.inventedObservation) {
    const at =
      read.cut?.reason === 'observation' ? read.cut.at : findInventedObservation(text, options.labels);
    if (at >= 0) reading.droppedText = text.slice(at).trim();
  }
  return reading;
}

/** Native mode: the text without `<think>` blocks is the transcript; the blocks join the reasoning. */
export function nativeStepText(response: ModelResponse): { transcriptText: string; reasoning?: string } {
  const thinking = readThinking(response.text);
  const reasoning = joinReasoning(response.reasoning, thinking.blocks.join('\n\n') || undefined);
  return { transcriptText: thinking.outside.trim(), ...(reasoning !== undefined && { reasoning }) };
}

function joinReasoning(provider: string | undefined, think: string | undefined): string | undefined {
  const parts = [provider?.trim(), think].filter((part): part is string => Boolean(part));
  return parts.length ? parts.join('\n\n') : undefined;
}

/** The note for a turn that held more than its first action, or undefined. */
export function ignoredNote(turn: ActionTurn): string | undefined {
  return describeIgnored(turn.ignoredText, turn.ignoredActions);
}

/**
 * Appended to the observation for a tool that does not exist: besides the tools to use (which the router
 * lists), how to give the answer instead.
 */
export function unknownToolHint(labels: LabelSet, native: boolean): string {
  return native
    ? 'To give the final answer instead, reply without calling a tool.'
    : `To give the final answer instead, write \`${primaryLabels(labels).answer}: <the answer>\` in place of the action.`;
}
