/**
 * Reading the value of an `Action:` line: the tool name, then the input up to the matching closing
 * bracket (`tool[input]` as in the paper, or `tool(input)`). Hand-written scans, each linear in the text.
 *
 * @module
 */

import { keywordClose } from './action-call.js';

/** The name part of an action value. */
export interface ActionHead {
  /** The name as written, trimmed (may still carry backticks, quotes or markdown escapes). */
  name: string;
  /** Offset of the opening `[` or `(` on the name's line, or -1 when the line has none. */
  bracket: number;
  /** Offset where the name's line ends. */
  lineEnd: number;
}

/** An input read from a bracket. */
export interface BracketInput {
  input: string;
  /** False when the bracket was never closed; the input then runs to the end of the segment. */
  closed: boolean;
  /** Text after the closing bracket on the same line, when it is more than punctuation. */
  trailingText?: string;
  /** Offset after the consumed text (the end of the closing bracket's line, or the segment's end). */
  end: number;
  /** Offset just after the closing bracket, when the bracket was closed. */
  closeEnd?: number;
}

const CLOSER: Readonly<Record<string, string>> = { '[': ']', '(': ')' };

/** Reads the name on the first non-blank line of the value `[start, end)` (the value may begin on the next line). */
export function readHead(text: string, start: number, end: number): ActionHead {
  let at = start;
  while (at < end && /\s/.test(text[at] ?? '')) at++;
  const newline = text.indexOf('\n', at);
  const lineEnd = newline < 0 || newline > end ? end : newline;
  let bracket = at;
  while (bracket < lineEnd && text[bracket] !== '[' && text[bracket] !== '(') bracket++;
  if (bracket >= lineEnd) return { name: text.slice(at, lineEnd).trim(), bracket: -1, lineEnd };
  return { name: text.slice(at, bracket).trim(), bracket, lineEnd };
}

/**
 * Reads the input that starts at the bracket `open`. A JSON object or array is taken whole (brackets in
 * its strings ignored), and so is a keyword call's input (`answer="a) b"`: brackets in quotes ignored);
 * otherwise nested brackets of the same kind are balanced. Newlines are kept. Scanning
 * stops at `limit` (the cut before an invented observation); an unclosed input runs to `segmentEnd`.
 */
export function readBracketInput(
  text: string,
  open: number,
  segmentEnd: number,
  limit: number,
): BracketInput {
  const closer = CLOSER[text[open] ?? ''] ?? ']';
  const close =
    jsonClose(text, open, closer, limit) ??
    keywordClose(text, open, closer, limit) ??
    balancedClose(text, open, closer, limit);
  if (close < 0) {
    return { input: cleanInput(text.slice(open + 1, segmentEnd)), closed: false, end: segmentEnd };
  }
  const newline = text.indexOf('\n', close);
  const lineEnd = newline < 0 || newline > limit ? limit : newline;
  const result: BracketInput = {
    input: cleanInput(text.slice(open + 1, close)),
    closed: true,
    end: lineEnd,
    closeEnd: close + 1,
  };
  const trailing = text.slice(close + 1, lineEnd).trim();
  // `search[x]`.` or **search[x]**: closing markup, not words the model meant to add.
  if (/[^\s`"'*_.,;:]/.test(trailing)) result.trailingText = trailing;
  return result;
}

/** The closing bracket after a JSON value that fills the input, or undefined when the input is not JSON. */
function jsonClose(text: string, open: number, closer: string, limit: number): number | undefined {
  let at = open + 1;
  while (at < limit && /\s/.test(text[at] ?? '')) at++;
  if (text[at] !== '{' && text[at] !== '[') return undefined;
  const valueEnd = jsonValueEnd(text, at, limit);
  if (valueEnd === undefined) return undefined;
  at = valueEnd;
  while (at < limit && /\s/.test(text[at] ?? '')) at++;
  return text[at] === closer ? at : undefined;
}

/**
 * The end (exclusive) of the JSON object or array that starts at `open`, before `limit`: its matching
 * bracket, reading strings as strings; `undefined` when it does not close. Linear in the text read.
 */
export function jsonValueEnd(text: string, open: number, limit: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let at = open; at < limit; at++) {
    const c = text[at];
    if (inString) {
      if (c === '\\') at++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && --depth === 0) return at + 1;
  }
  return undefined;
}

function balancedClose(text: string, open: number, closer: string, limit: number): number {
  const opener = text[open];
  let depth = 0;
  for (let at = open; at < limit; at++) {
    const c = text[at];
    if (c === opener) depth++;
    else if (c === closer && --depth === 0) return at;
  }
  return -1;
}

/**
 * Trims an input without breaking indented code: leading blank lines go, but the first line's indentation
 * stays when the input starts on a new line. One pair of quotes or backticks around the whole input is
 * removed when that character does not occur inside.
 */
export function cleanInput(raw: string): string {
  const lead = raw.length - raw.trimStart().length;
  const lastNewline = raw.lastIndexOf('\n', lead - 1);
  const start = lastNewline >= 0 && lead > 0 ? lastNewline + 1 : lead;
  const trimmed = raw.slice(start).trimEnd();
  const first = trimmed[0];
  if (trimmed.length >= 2 && (first === '"' || first === "'" || first === '`') && trimmed.endsWith(first)) {
    const inner = trimmed.slice(1, -1);
    if (!inner.includes(first)) return inner;
  }
  return trimmed;
}

/** Removes one code fence around the whole value (`Action Input:` followed by a fenced block). */
export function unwrapFence(value: string): string {
  const match = /^(`{3,}|~{3,})[^\n`]*\n([\s\S]*)\n[ \t]*\1[ \t]*$/.exec(value);
  return match ? (match[2] ?? '') : value;
}

/** Markup around a tool name that is never part of it: backticks, quotes, emphasis, markdown escapes. */
export function cleanToolName(name: string): string {
  return name.replace(/[`"'*\\]/g, '').trim();
}

/** A name in lower case with its words joined by `_` (spaces, `-` and `_` all count as separators). */
function joinWords(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '_');
}

/**
 * Resolves a written tool name to a canonical one: exact, then case-insensitive, then the same after
 * removing backticks, quotes and escapes (`run\_tests` → `run_tests`), then with words joined the same way
 * (`Search Wikipedia` → `search_wikipedia`). Unknown names come back cleaned, in the case written.
 */
export function resolveTool(name: string, tools: readonly string[] | undefined): string {
  const cleaned = cleanToolName(name);
  if (!tools) return cleaned;
  for (const candidate of [name, cleaned]) {
    if (tools.includes(candidate)) return candidate;
    const lower = candidate.toLowerCase();
    const found = tools.find((tool) => tool.toLowerCase() === lower);
    if (found !== undefined) return found;
  }
  // `Search Wikipedia` or `search-wikipedia` for the tool `search_wikipedia`.
  const joined = joinWords(cleaned);
  return tools.find((tool) => joinWords(tool) === joined) ?? cleaned;
}

/** A line that restates the call after an `Action Input:` (`Tool Name: search`, `**Tool Arguments:** {...}`). */
const RESTATING =
  /^[ \t>*_#-]*(?:tool|function)[ _-]?(?:name|input|inputs|arguments|args|parameters|params|call)[ \t*_]*[:：]/i;

/**
 * Where the two-line form's input `text[start, end)` ends: at the first line after its first that restates
 * the call (`Tool Name:`, `Tool Input:`, `Tool Arguments:`, `Function Name:` and the like, see
 * {@link RESTATING}) outside a code fence, or at `end`. One pass over the lines, each looked at for at most
 * 64 characters.
 */
export function restatedAt(text: string, start: number, end: number): number {
  let fence = '';
  for (let line = lineAfter(text, start, end); line < end; line = lineAfter(text, line, end)) {
    const head = text.slice(line, Math.min(end, line + 64));
    const marker = /^[ \t]*(`{3,}|~{3,})/.exec(head)?.[1];
    if (marker && (!fence || marker.startsWith(fence))) fence = fence ? '' : marker;
    else if (!fence && RESTATING.test(head)) return line;
  }
  return end;
}

/** The start of the line after the one holding `from`, or `end`. */
function lineAfter(text: string, from: number, end: number): number {
  const newline = text.indexOf('\n', from);
  return newline < 0 || newline >= end ? end : newline + 1;
}
