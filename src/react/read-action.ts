/**
 * Reading one `Action:` (or `finish[...]`) item of a model turn into what the turn holds: a tool call, the
 * answer (`finish`), or what was wrong. The forms read: `tool[input]` and `tool(input)` as in the paper, a
 * keyword call (`finish(answer="Paris")`, `search(query="x")`), the two-line `Action:` + `Action Input:`
 * form (which ends at a line restating the call, `Tool Name: ...`), and a JSON blob (`{"action": "search",
 * "action_input": "x"}`, fenced or not).
 *
 * @module
 */
import {
  cleanInput,
  cleanToolName,
  readBracketInput,
  readHead,
  resolveTool,
  restatedAt,
  unwrapFence,
} from './action.js';
import { keywordInput } from './action-call.js';
import { readJsonAction } from './action-json.js';
import type { LabelSet } from './labels.js';
import { type Item, type LabelIndex, normaliseWord, type Scan } from './scan.js';

/** What the parser knows while reading one turn. */
export interface Context {
  labels: LabelSet;
  index: LabelIndex;
  tools: readonly string[] | undefined;
  cutOff: boolean;
  observationCut: boolean;
}

/** What the items of a reply hold, before deciding the turn. */
export interface Found {
  thought?: string;
  action?: ActionFound;
  answer?: { text: string; complete: boolean };
  /** Where the first action ends in the text, and the later actions written after it. */
  actionEnd?: number;
  laterActions?: string[];
}

/**
 * An action as read: a tool and its input, a name that means no tool, or a value not in the form
 * `tool[input]` (`json` when it was a JSON blob that could not be read: the tool it named, if any, and why).
 */
export type ActionFound =
  | { kind: 'tool'; tool: string; input: string; trailingText?: string; complete: boolean }
  | { kind: 'empty'; written: string; complete: boolean }
  | { kind: 'syntax'; written: string; complete: boolean; json?: { tool?: string; reason: string } };

type Input = { text: string; complete: boolean; trailingText?: string };

/** Action names that mean "no tool" (models copy `Action: None` from chat-style templates). */
const EMPTY_NAMES = new Set(['', 'none', 'null', 'nil', 'n/a', 'no action', 'nothing', '-']);

/** Tool calls written in text after an action's bracket (`search[b] lookup[c]`), as written. */
export function callsIn(text: string): string[] {
  return text.match(/[\p{L}_][\p{L}\p{N}_-]*\s?[[(][^\])\n]*[\])]/gu) ?? [];
}

/**
 * True when an action naming `written` ends the episode: the pseudo-tool `finish` (always, as in the paper),
 * or an answer label used as a tool name (`Final Answer`, `final_answer`) unless a listed tool has that name.
 */
export function isFinishName(written: string, context: Context): boolean {
  const word = normaliseWord(cleanToolName(written));
  if (context.index.finish.has(word)) return true;
  if (context.index.kinds.get(word) !== 'answer') return false;
  const tool = resolveTool(written, context.tools);
  return !(context.tools?.includes(tool) ?? false);
}

/**
 * Reads the action at `items[k]` into `found` (as the action, or as the answer when it calls `finish`),
 * unless one of that kind was already found. Returns the offset up to which the text was consumed.
 */
export function readAction(
  text: string,
  items: readonly Item[],
  k: number,
  scan: Scan,
  context: Context,
  found: Found,
): number {
  const item = items[k]!;
  const next = items[k + 1];
  const segmentEnd = next?.lineStart ?? scan.end;
  const head = readHead(text, item.valueStart, segmentEnd);
  const blob = item.kind === 'action' ? readJsonAction(text, item.valueStart, segmentEnd) : undefined;
  const isFinish = isFinishName(blob ? (blob.name ?? '') : head.name, context);
  if (isFinish ? found.answer : found.action) {
    if (!isFinish) {
      found.laterActions ??= [];
      // `Action: search[b] lookup[c]`: each call on its own.
      const value = text.slice(item.valueStart, blob?.end ?? head.lineEnd).trim();
      const calls = blob ? [] : callsIn(value);
      found.laterActions.push(...(calls.length > 1 ? calls : [value]));
    }
    return 0;
  }
  const endComplete = (hasNext: boolean) =>
    hasNext || scan.invented || scan.newStep === true || !context.cutOff;
  if (blob) {
    if (blob.ok && isFinish) found.answer = { text: blob.input, complete: true };
    else {
      found.action = blob.ok
        ? { kind: 'tool', tool: resolveTool(blob.name, context.tools), input: blob.input, complete: true }
        : jsonProblem(blob, isFinish, context, endComplete(next !== undefined));
      found.actionEnd = blob.end;
    }
    return blob.end;
  }
  let input: Input | undefined;
  let consumed = 0;
  let actionEnd = segmentEnd;
  let twoLine = false;
  if (head.bracket >= 0) {
    const read = readBracketInput(text, head.bracket, segmentEnd, scan.end);
    // `finish(answer="Paris")`, `search(query="x")`: the keyword argument's value.
    const call = isFinish || text[head.bracket] === '(' ? keywordInput(read.input, isFinish) : undefined;
    input = { text: call ?? read.input, complete: read.closed || endComplete(next !== undefined) };
    if (read.trailingText !== undefined) input.trailingText = read.trailingText;
    consumed = read.end;
    // Words after the bracket are not part of the action: it ends at the bracket.
    actionEnd = read.trailingText === undefined ? read.end : (read.closeEnd ?? read.end);
  } else if (next?.kind === 'actionInput') {
    const labelled = items[k + 2]?.lineStart ?? scan.end;
    // Lines that restate the call (`Tool Name: search`) are not part of the input.
    const inputEnd = restatedAt(text, next.valueStart, labelled);
    const value = cleanInput(unwrapFence(text.slice(next.valueStart, inputEnd).trim()));
    input = { text: value, complete: endComplete(k + 2 < items.length) || inputEnd < labelled };
    consumed = labelled;
    actionEnd = inputEnd;
    twoLine = true;
  }
  if (isFinish && input) {
    found.answer = { text: input.text, complete: input.complete };
  } else {
    found.action = classify(head.name, input, endComplete(next !== undefined), context, twoLine);
    found.actionEnd = actionEnd;
  }
  return consumed;
}

/**
 * A JSON blob that could not be read: reported with the tool it named (canonical when listed; the
 * pseudo-tool `finish` when it named an answer).
 */
function jsonProblem(
  blob: { name?: string; reason: string; end: number },
  isFinish: boolean,
  context: Context,
  complete: boolean,
): ActionFound {
  const finish = context.labels.finish[0] ?? 'finish';
  const tool =
    blob.name === undefined ? undefined : isFinish ? finish : resolveTool(blob.name, context.tools);
  return {
    kind: 'syntax',
    written: blob.name ?? '',
    complete,
    json: { ...(tool !== undefined && { tool }), reason: blob.reason },
  };
}

/**
 * What an action line names. A name of several words is a tool name when it is a listed tool, or in the
 * two-line form (`Action: Search Wikipedia` + `Action Input: x`), where nothing else could be meant; on a
 * bracket line it is more likely prose (`Action: I will search[x]`) and gets `unknown-syntax`.
 */
function classify(
  written: string,
  input: Input | undefined,
  lineComplete: boolean,
  context: Context,
  twoLine: boolean,
): ActionFound {
  const tool = resolveTool(written, context.tools);
  const known = context.tools?.includes(tool) ?? false;
  if (!known && EMPTY_NAMES.has(tool.toLowerCase()))
    return { kind: 'empty', written, complete: lineComplete };
  if (!input || (/\s/.test(tool) && !known && !twoLine))
    return { kind: 'syntax', written, complete: lineComplete };
  const action: ActionFound = { kind: 'tool', tool, input: input.text, complete: input.complete };
  if (input.trailingText !== undefined) action.trailingText = input.trailingText;
  return action;
}
