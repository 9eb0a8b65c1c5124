/**
 * How a tool's return value and a tool's thrown value become observation text, honestly: a circular
 * object is still JSON (its back-references marked), and a value that has no text form is an error the
 * model is told about, never `[object Object]` passed off as a good result.
 *
 * @module
 */

import { describeThrown, safeJson } from '../util/describe.js';

/** What a tool's return value reads as: its text, or why it has none. */
export type ToolOutputText = { ok: true; text: string } | { ok: false; problem: string };

/**
 * A tool's return value as observation text. Strings stay as they are; `undefined` is `(no output)`;
 * anything else is JSON, where a repeated reference to an enclosing object becomes `"[Circular]"`, a
 * `bigint` its digits, and a `Map` / `Set` its entries. A function or symbol, or a value whose
 * `toJSON` throws, has no text form: `{ ok: false, problem }` says so.
 */
export function toolOutputText(value: unknown): ToolOutputText {
  if (typeof value === 'string') return { ok: true, text: value };
  if (value === undefined) return { ok: true, text: '(no output)' };
  if (typeof value === 'function' || typeof value === 'symbol') {
    return { ok: false, problem: `the tool returned a ${typeof value}, which has no text form.` };
  }
  try {
    const text = safeJson(value);
    if (text === undefined) return { ok: false, problem: 'the tool returned a value with no JSON form.' };
    return { ok: true, text };
  } catch (error) {
    return {
      ok: false,
      problem: `the tool's output could not be turned into JSON (${describeThrown(error)}).`,
    };
  }
}
