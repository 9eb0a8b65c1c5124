/**
 * Parsing one model turn of the ReAct text protocol (Yao et al. 2022): `Thought:` then `Action: tool[input]`,
 * or `Thought:` then `Answer:` (or the paper's `finish[answer]`). The parser never throws and runs in linear
 * time; anything it cannot use becomes a `none` turn whose `problem` tells the model how to recover.
 *
 * @module
 */
import { cleanReply, toOriginal } from './clean.js';
import { ENGLISH_LABELS, type LabelSet } from './labels.js';
import { describeProblem, type ProblemContext } from './problems.js';
import { type Context, callsIn, type Found, readAction } from './read-action.js';
import { type LabelIndex, labelIndex, type Scan, scanReply } from './scan.js';
import { readThinking } from './think.js';
import type { ActionTurn, FormatProblemKind, NoneTurn, Turn } from './turn.js';
import { trimLines } from './visible.js';

/** Options for {@link parseTurn}. */
export interface ParseOptions {
  /**
   * Valid tool names. When given, written names are resolved to these canonical names: exact, then
   * case-insensitive, then after removing backticks, quotes and markdown escapes (`run\_tests`). Unknown
   * names are still returned (cleaned, case kept): the router answers unknown tools. Listed in problems.
   */
  tools?: readonly string[];
  /** Label set; English is always accepted as well. @default ENGLISH_LABELS */
  labels?: LabelSet;
  /** The provider's finish reason; `'length'` means the reply was cut off at the token limit. */
  finishReason?: string;
  /**
   * The reply was cut where the model began writing an observation (by the stream cut, see `cutReply`), so
   * the text ends before it: the turn is marked `inventedObservation` as if the label were still there.
   */
  observationCut?: boolean;
}

/** A parsed turn with the text it was read from, for the transcript. */
export interface ReadTurn {
  turn: Turn;
  /**
   * The protocol text the turn was read from: the reply without its `<think>` blocks and wrapper fence, or,
   * when nothing is outside a closed block, the block that holds the step.
   */
  source: string;
  /** Where the used part of `source` ends: after the first action, or at the cut. */
  end: number;
  /** The `<think>` blocks, joined by a blank line; absent when there are none. */
  reasoning?: string;
}

/** The fields every turn may carry, filled before the turn's type is decided. */
type Base = Pick<ActionTurn, 'thought' | 'inventedObservation'>;

/** Words that decorate a placeholder answer (`your final answer here`) in the supported languages. */
const PLACEHOLDER_FILLERS = new Set([
  'the',
  'your',
  'my',
  'a',
  'an',
  'final',
  'here',
  'sua',
  'seu',
  'votre',
  'anda',
]);

/**
 * Parses one model reply into a {@link Turn}.
 *
 * - Labels count only at the start of a line; see `scan.ts` for the accepted spellings.
 * - `<think>` blocks are removed and one code fence around the whole reply is unwrapped first; labels
 *   inside other fences are ignored.
 * - Everything from the first model-written `Observation:` (or a trailing `\nObserv` fragment) is dropped
 *   and `inventedObservation` is set.
 * - An action and an answer in one turn, a placeholder answer, an action naming no tool, a bare action
 *   without brackets (`Action: Login`, even when the word is a tool), a reply cut off at the token limit
 *   (`finishReason: 'length'`) and prose without labels each give a `none` turn with a precise `problem`.
 * - Only a runnable action conflicts with an answer: `Action: None` then `Answer: x` is the answer.
 * - Several actions without an observation between them: the first is taken.
 * - An unclosed bracket runs to the next label; with `finishReason: 'length'` it is `truncated`, as is an
 *   answer or two-line input that nothing follows (it may have been cut mid-sentence).
 * - `finish[...]` is always the answer, even if a tool of that name is listed.
 *
 * @example
 * ```ts
 * parseTurn('Thought: I need the total.\nAction: calculator[20 * 12 * 7]');
 * // { type: 'action', tool: 'calculator', input: '20 * 12 * 7', thought: 'I need the total.' }
 * ```
 */
export function parseTurn(text: string, options: ParseOptions = {}): Turn {
  return readTurn(text, options).turn;
}

/**
 * {@link parseTurn}, also saying which text the turn was read from and where its used part ends: the loop
 * keeps only that in the transcript (no reasoning, nothing after the first action or the cut).
 *
 * - A reply whose text outside `<think>` blocks is empty is read from its last closed block (a whole step
 *   written inside `<think>`); a block holding no step gives `only-reasoning`.
 * - A reply that ends inside an unclosed block (a stop sequence or the token limit hit while the model was
 *   reasoning) and holds no usable step gives `reasoning-cut` (`truncated` at the token limit).
 */
export function readTurn(text: string, options: ParseOptions = {}): ReadTurn {
  const labels = options.labels ?? ENGLISH_LABELS;
  const context: Context = {
    labels,
    index: labelIndex(labels),
    tools: options.tools,
    cutOff: options.finishReason === 'length',
    observationCut: options.observationCut === true,
  };
  const thinking = readThinking(text);
  const reasoning = thinking.blocks.length ? { reasoning: thinking.blocks.join('\n\n') } : {};
  const cleaned = cleanReply(text).text;
  if (cleaned.trim() === '' && !context.observationCut) {
    const block = thinking.unclosed ? undefined : thinking.blocks.at(-1);
    if (block !== undefined) {
      const { stopped: _, ...inside } = readCleaned(cleanReply(block).text, context);
      if (inside.turn.type !== 'none') return { ...inside, ...reasoning };
      return { turn: none('only-reasoning', context, {}), source: '', end: 0, ...reasoning };
    }
    const kind = context.cutOff ? 'truncated' : thinking.unclosed ? 'reasoning-cut' : 'empty';
    return { turn: none(kind, context, {}, undefined, thinking.unclosed), source: '', end: 0, ...reasoning };
  }
  const { stopped, ...read } = readCleaned(cleaned, context);
  const { turn } = read;
  // The model was still reasoning when the reply stopped: that, not the format, is the problem. (Not when
  // the text was cut before the block opened: the block was never going to be read.)
  if (turn.type === 'none' && thinking.unclosed && !stopped && turn.kind !== 'action-and-answer') {
    read.turn = none(context.cutOff ? 'truncated' : 'reasoning-cut', context, baseOf(turn), undefined, true);
  }
  return { ...read, ...reasoning };
}

/**
 * Parses text already cleaned of `<think>` blocks and a wrapper fence; `stopped` is true when the text was
 * cut before its end (an invented observation, a new step after the answer).
 */
function readCleaned(cleaned: string, context: Context): ReadTurn & { stopped: boolean } {
  const scan = scanReply(cleaned, context.index, { endsAtLabel: context.observationCut });
  if (context.observationCut && !scan.invented && !scan.newStep) scan.invented = true;
  const found = collect(cleaned, scan, context);
  const base: Base = {
    ...(found.thought !== undefined && { thought: found.thought }),
    ...(scan.invented && { inventedObservation: true }),
  };
  const turn = decide(found, scan, context, base);
  const stopped = scan.invented || scan.newStep === true;
  if (turn.type !== 'action' || found.actionEnd === undefined) {
    return { turn, source: cleaned, end: scan.end, stopped };
  }
  const ignoredText = trimLines(cleaned.slice(found.actionEnd, scan.end));
  if (ignoredText !== '') {
    turn.ignoredText = ignoredText;
    const actions = [...callsIn(turn.trailingText ?? ''), ...(found.laterActions ?? [])];
    if (actions.length) turn.ignoredActions = actions;
  }
  return { turn, source: cleaned, end: found.actionEnd, stopped };
}

/**
 * Index in `text` where a model-written observation starts (the start of its line: a label, or a trailing
 * partial fragment such as `\nObserv` at the very end), or -1. The loop uses it to stop a stream early and
 * to cut the transcript. Uses the same rules as {@link parseTurn}.
 */
export function findInventedObservation(text: string, labels: LabelSet = ENGLISH_LABELS): number {
  const cleaned = cleanReply(text);
  const scan = scanReply(cleaned.text, labelIndex(labels));
  return scan.invented ? toOriginal(cleaned, scan.end) : -1;
}

function none(
  kind: FormatProblemKind,
  context: Context,
  base: Base,
  detail?: string,
  reasoning?: boolean,
  json?: ProblemContext['json'],
): NoneTurn {
  const invented = base.inventedObservation === true;
  const problem = describeProblem(kind, {
    labels: context.labels,
    tools: context.tools,
    invented,
    ...(detail === undefined ? {} : { detail }),
    ...(reasoning ? { reasoning } : {}),
    ...(json ? { json } : {}),
  });
  return { ...base, type: 'none', kind, problem };
}

/** The fields every turn has (its thought, and whether the model wrote its own observation). */
function baseOf(turn: Turn): Base {
  return {
    ...(turn.thought !== undefined && { thought: turn.thought }),
    ...(turn.inventedObservation !== undefined && { inventedObservation: turn.inventedObservation }),
  };
}

/** Walks the items in order: the first thought, the first action, the first answer. */
function collect(text: string, scan: Scan, context: Context): Found {
  const found: Found = {};
  const { items } = scan;
  let consumed = 0;
  for (let k = 0; k < items.length; k++) {
    const item = items[k]!;
    if (item.lineStart < consumed) continue; // inside an action input that spans lines
    const segmentEnd = items[k + 1]?.lineStart ?? scan.end;
    // A value is complete when something follows it: a later label or the cut at an invented observation.
    const complete = k + 1 < items.length || scan.invented || scan.newStep === true || !context.cutOff;
    if (item.kind === 'thought') {
      const value = trimLines(text.slice(item.valueStart, segmentEnd));
      if (found.thought === undefined && value !== '') found.thought = value;
    } else if (item.kind === 'answer') {
      found.answer ??= { text: trimLines(text.slice(item.valueStart, segmentEnd)), complete };
    } else if (item.kind === 'action' || item.kind === 'finish') {
      consumed = readAction(text, items, k, scan, context, found);
    }
    if (found.action && found.answer) break;
  }
  if (found.thought === undefined && items.length + Number(scan.invented) > 0) {
    const preamble = trimLines(text.slice(0, items[0]?.lineStart ?? scan.end));
    if (preamble !== '') found.thought = preamble;
  }
  return found;
}

function isPlaceholder(answer: string, index: LabelIndex): boolean {
  if (/^[\s.…]*$/.test(answer)) return true;
  // Digits or other punctuation mean real content ("Answer: 42", "Answer: yes, it is").
  if (/[^\p{L}\p{M}\s<>[\]{}"'`_.…*]/u.test(answer)) return false;
  const words = answer
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}]+/u)
    .filter((word) => word !== '' && !PLACEHOLDER_FILLERS.has(word));
  return words.length > 0 && words.length <= 3 && index.kinds.get(words.join('')) === 'answer';
}

function decide(found: Found, scan: Scan, context: Context, base: Base): Turn {
  const { action, answer } = found;
  if (action?.kind === 'tool' && answer) return none('action-and-answer', context, base);
  if (answer) {
    if (!answer.complete) return none('truncated', context, base);
    if (isPlaceholder(answer.text, context.index)) {
      return none('placeholder-answer', context, base, answer.text.trim() === '' ? undefined : answer.text);
    }
    return { ...base, type: 'answer', text: answer.text };
  }
  if (action && !action.complete) return none('truncated', context, base);
  if (action?.kind === 'tool') {
    return {
      ...base,
      type: 'action',
      tool: action.tool,
      input: action.input,
      ...(action.trailingText !== undefined && { trailingText: action.trailingText }),
    };
  }
  if (action?.kind === 'empty') return none('empty-action', context, base, action.written || undefined);
  if (action?.kind === 'syntax')
    return none('unknown-syntax', context, base, action.written, undefined, action.json);
  if (context.cutOff) return none('truncated', context, base);
  if (scan.items.length > 0 || scan.invented) return none('no-action', context, base);
  return none('no-labels', context, base);
}
