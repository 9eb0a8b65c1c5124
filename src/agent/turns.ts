/**
 * How the loop words what it sends back for a turn.
 *
 * @module
 */
import type { LabelSet } from '../react/labels.js';
import { findInventedObservation } from '../react/parse.js';
import type { NoneTurn } from '../react/turn.js';

/** The model's text as kept in the transcript: cut before any observation the model wrote itself. */
export function cutTranscriptText(text: string, labels: LabelSet): string {
  const at = findInventedObservation(text, labels);
  return (at >= 0 ? text.slice(0, at) : text).trimEnd();
}

/** The observation sent back for an unusable turn: the parser's problem, marked as a format error. */
export function formatErrorObservation(turn: NoneTurn): string {
  return `Format error: ${turn.problem}`;
}
