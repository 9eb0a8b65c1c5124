/**
 * Reading an action written as a JSON blob, as agent frameworks' prompts teach models to write it:
 * LangChain's `{"action": "search", "action_input": "Paris"}`, function calling's `{"name": "search",
 * "arguments": {...}}` and `{"tool": "search", "tool_input": "Paris"}`, bare or in a code fence after
 * `Action:`. Hand-written scans, each one pass over the text.
 *
 * @module
 */

import { jsonValueEnd } from './action.js';

/** What a JSON blob after `Action:` says: a tool and its input, or why it cannot be read. */
export type JsonAction =
  | {
      ok: true;
      /** The tool named, as written. */
      name: string;
      /** The input: a string as written, anything else as JSON (`{"city":"Paris"}`); `''` when absent. */
      input: string;
      /** Offset just after the blob (its closing fence or brace). */
      end: number;
    }
  | {
      ok: false;
      /** The tool the blob names, when one could be found in it. */
      name?: string;
      /** Why it cannot be read, worded for the model. */
      reason: string;
      end: number;
    };

/** Keys that name the tool, in the order they are looked for. */
const NAME_KEYS = ['action', 'name', 'tool', 'tool_name', 'function', 'action_name'];
/** Keys that hold the input, in the order they are looked for. */
const INPUT_KEYS = ['action_input', 'tool_input', 'arguments', 'args', 'input', 'parameters', 'params'];
/** A fence's info string that may hold JSON: none, or a JSON-ish language. */
const JSON_INFO = /^[ \t]*(?:json5?|jsonc|js|javascript)?[ \t]*$/i;
/** A tool name in text that is not valid JSON: `"action": "search"`. */
const NAMED = /"(?:action|name|tool|tool_name)"\s*:\s*"([^"\\\n]{1,64})"/;

/**
 * Reads the JSON blob that the action value `text[start, end)` consists of: a `{...}` object, or a code
 * fence (no language, or `json`) whose content is one. `undefined` when the value is not such a blob.
 */
export function readJsonAction(text: string, start: number, end: number): JsonAction | undefined {
  let at = start;
  while (at < end && /\s/.test(text[at]!)) at++;
  const blob = text[at] === '{' ? bareObject(text, at, end) : fencedObject(text, at, end);
  if (!blob) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(blob.json);
  } catch {
    const name = NAMED.exec(blob.json)?.[1];
    return { ok: false, ...(name !== undefined && { name }), reason: 'it is not valid JSON', end: blob.end };
  }
  return readCall(value, blob.end);
}

/** The tool and input of a parsed blob; `function: {name, arguments}` is read one level down. */
function readCall(value: unknown, end: number): JsonAction {
  const object = asObject(value);
  if (!object) return { ok: false, reason: 'it is not a JSON object', end };
  const fn = asObject(object.function);
  if (fn && typeof fn.name === 'string') return readCall(fn, end);
  const nameKey = NAME_KEYS.find((key) => typeof object[key] === 'string' && object[key] !== '');
  if (nameKey === undefined) return { ok: false, reason: 'it names no tool', end };
  const inputKey = INPUT_KEYS.find((key) => Object.hasOwn(object, key));
  const input = inputKey === undefined ? undefined : object[inputKey];
  const text =
    input === undefined || input === null ? '' : typeof input === 'string' ? input : JSON.stringify(input);
  return { ok: true, name: object[nameKey] as string, input: text, end };
}

/** A `{...}` object starting at `open`: up to its matching brace (strings read as strings), or to `end`. */
function bareObject(text: string, open: number, end: number): { json: string; end: number } {
  const close = jsonValueEnd(text, open, end) ?? end;
  return { json: text.slice(open, close), end: close };
}

/** A code fence at `at` holding a `{...}` object: its content, up to the closing fence (or `end`). */
function fencedObject(text: string, at: number, end: number): { json: string; end: number } | undefined {
  const mark = text[at];
  if (mark !== '`' && mark !== '~') return undefined;
  let run = at;
  while (run < end && text[run] === mark) run++;
  if (run - at < 3) return undefined;
  const infoEnd = lineEnd(text, run, end);
  if (!JSON_INFO.test(text.slice(run, Math.min(infoEnd, run + 40)))) return undefined;
  const fence = text.slice(at, run);
  const contentStart = Math.min(infoEnd + 1, end);
  for (let line = contentStart; line < end; ) {
    const next = lineEnd(text, line, end);
    if (text.slice(line, next).trim().startsWith(fence)) {
      return objectOnly(text.slice(contentStart, line), next);
    }
    line = next + 1;
  }
  return objectOnly(text.slice(contentStart, end), end);
}

function objectOnly(content: string, end: number): { json: string; end: number } | undefined {
  const json = content.trim();
  return json.startsWith('{') ? { json, end } : undefined;
}

function lineEnd(text: string, from: number, end: number): number {
  const newline = text.indexOf('\n', from);
  return newline < 0 || newline > end ? end : newline;
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
