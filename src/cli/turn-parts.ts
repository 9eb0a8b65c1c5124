/**
 * The lines a model turn prints as, in order: the reasoning (dimmed), the thought (dimmed), then the action
 * or the answer (bold) or why the turn could not be used (red), then a note when the model wrote its own
 * observation. The same parts are printed whole after the turn, or grown as it streams (`LiveTurn`).
 *
 * @module
 */
import pc from 'picocolors';
import type { primaryLabels } from '../react/labels.js';
import type { Turn } from '../react/turn.js';
import { CLI_MESSAGES, type CliMessages } from './i18n.js';
import { safeText } from './safe-text.js';

/** What a part of a printed turn is. */
export type TurnPartKind = 'reasoning' | 'thought' | 'action' | 'answer' | 'unusable' | 'note';

/** One line (or block of lines) of a printed turn: its text, made safe to print, and its colour. */
export interface TurnPart {
  kind: TurnPartKind;
  text: string;
  style: (text: string) => string;
}

/** The labels a turn is printed with. */
export type PrintLabels = ReturnType<typeof primaryLabels>;

const bold = (text: string) => pc.bold(text);
const boldGreen = (text: string) => pc.bold(pc.green(text));

/**
 * The parts of a complete turn. `reasoning` is the step's reasoning when it is shown (`--hide-reasoning`
 * passes undefined); `text` is the model's reply, quoted when the turn could not be used.
 */
export function turnParts(
  turn: Turn,
  text: string,
  reasoning: string | undefined,
  l: PrintLabels,
  notes: Pick<CliMessages, 'unusableTurn' | 'droppedObservation'> = CLI_MESSAGES.en,
): TurnPart[] {
  const parts = leadingParts(turn, reasoning, l);
  switch (turn.type) {
    case 'action':
      parts.push({
        kind: 'action',
        text: `${l.action}: ${safeText(turn.tool)}[${safeText(turn.input)}]`,
        style: bold,
      });
      break;
    case 'answer':
      parts.push(answerPart(turn.text, l));
      break;
    case 'none':
      parts.push({
        kind: 'unusable',
        text: `${notes.unusableTurn} ${typeof text === 'string' ? safeText(JSON.stringify(text.slice(0, 500))) : '?'}`,
        style: pc.red,
      });
      break;
    default:
      turn satisfies never;
  }
  if (turn.inventedObservation)
    parts.push({ kind: 'note', text: notes.droppedObservation, style: pc.yellow });
  return parts;
}

/**
 * The parts of a turn still arriving, as far as they are known: the action's closing bracket, a format
 * problem and the invented-observation note wait for the complete turn, and so does an action input that
 * is not `inputSettled` (see `LiveTurn`).
 */
export function partialTurnParts(
  turn: Turn,
  reasoning: string | undefined,
  l: PrintLabels,
  inputSettled = true,
): TurnPart[] {
  const parts = leadingParts(turn, reasoning, l);
  if (turn.type === 'action') {
    const call = `${turn.tool}[${inputSettled ? turn.input : ''}`;
    parts.push({ kind: 'action', text: `${l.action}: ${safeText(call)}`, style: bold });
  }
  if (turn.type === 'answer' && turn.text !== '') parts.push(answerPart(turn.text, l));
  return parts;
}

function leadingParts(turn: Turn, reasoning: string | undefined, l: PrintLabels): TurnPart[] {
  const parts: TurnPart[] = [];
  if (reasoning) parts.push(reasoningPart(reasoning));
  if (turn.thought)
    parts.push({ kind: 'thought', text: `${l.thought}: ${safeText(turn.thought)}`, style: pc.dim });
  return parts;
}

/** The model's reasoning, dimmed. */
export function reasoningPart(reasoning: string): TurnPart {
  return { kind: 'reasoning', text: safeText(reasoning), style: pc.dim };
}

function answerPart(answer: string, l: PrintLabels): TurnPart {
  return { kind: 'answer', text: `${l.answer}: ${safeText(answer)}`, style: boldGreen };
}
