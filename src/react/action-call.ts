/**
 * Reading an action written as a keyword call, as models trained on function calling write it:
 * `finish(answer="Paris")`, `search(query='Eiffel Tower')`, `lookup(city="Paris", year=2024)`. Hand-written
 * scans, each one pass over the text.
 *
 * @module
 */

/** A keyword argument's value: a string, number, boolean or null, as JSON has them. */
export type KeywordValue = string | number | boolean | null;

const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WORDS: Readonly<Record<string, KeywordValue>> = {
  true: true,
  false: false,
  null: null,
  True: true,
  False: false,
  None: null,
};
/** A keyword argument starts the input: `answer=`, `query =`. */
const STARTS_KEYWORD = /^\s*[A-Za-z_][A-Za-z0-9_]*\s*=(?!=)/;
const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r' };

/**
 * The closing bracket of a keyword call whose input starts at `open` (`(` or `[`), reading quoted strings
 * as strings (a `)` or `]` inside quotes does not close it); `undefined` when the input does not start with
 * a keyword argument or is not closed before `limit`.
 */
export function keywordClose(text: string, open: number, closer: string, limit: number): number | undefined {
  if (!STARTS_KEYWORD.test(text.slice(open + 1, open + 65))) return undefined;
  const opener = text[open];
  let depth = 0;
  let quote = '';
  for (let at = open; at < limit; at++) {
    const c = text[at];
    if (quote) {
      if (c === '\\') at++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === opener) depth++;
    else if (c === closer && --depth === 0) return at;
  }
  return undefined;
}

/**
 * The keyword arguments of `input` (the text between a call's brackets) when it is nothing but
 * `name=value` pairs separated by commas, each value a quoted string (`"..."` or `'...'`, with `\"`,
 * `\'`, `\\`, `\n`, `\t`, `\r` unescaped), a number, `true`/`false`/`null` or Python's `True`/`False`/`None`;
 * otherwise `undefined`.
 */
export function readKeywordArguments(input: string): [string, KeywordValue][] | undefined {
  const args: [string, KeywordValue][] = [];
  let at = skipBlanks(input, 0);
  while (at < input.length) {
    NAME.lastIndex = at;
    const name = NAME.exec(input)?.[0];
    if (name === undefined) return undefined;
    at = skipBlanks(input, at + name.length);
    if (input[at] !== '=') return undefined;
    const value = readValue(input, skipBlanks(input, at + 1));
    if (!value) return undefined;
    args.push([name, value.value]);
    at = skipBlanks(input, value.end);
    if (at < input.length && input[at] !== ',') return undefined;
    at = skipBlanks(input, at + 1);
  }
  return args.length > 0 ? args : undefined;
}

/** Argument names that hold the answer of a `finish` call written with several arguments. */
const ANSWER_NAMES = new Set([
  'answer',
  'final_answer',
  'finalanswer',
  'response',
  'text',
  'result',
  'output',
]);

/**
 * What a keyword call gives as the input: for `finish`, the answer (the only argument, or the one named
 * `answer`, `final_answer`, `response`, `text`, `result` or `output`), as text; for a tool, the value of a
 * single string argument (`search(query="x")` reads as `search(x)` does) or, otherwise, the arguments as a
 * JSON object (`{"city":"Paris","year":2024}`, as tools with an input schema take them). `undefined` when
 * `input` is not a keyword call: it is then used as written.
 */
export function keywordInput(input: string, finish: boolean): string | undefined {
  const args = readKeywordArguments(input);
  if (!args) return finish ? cutAnswer(input) : undefined;
  if (finish) {
    const answer = args.length === 1 ? args[0] : args.find(([name]) => ANSWER_NAMES.has(name.toLowerCase()));
    return answer === undefined ? undefined : String(answer[1]);
  }
  const only = args.length === 1 ? args[0]![1] : undefined;
  return typeof only === 'string' ? only : JSON.stringify(Object.fromEntries(args));
}

/**
 * The answer of a `finish` call cut off before its end (`finish(answer="42` when the reply stopped there):
 * the text after `answer=` and its opening quote, so the key and the quote never reach the answer.
 */
function cutAnswer(input: string): string | undefined {
  const key = /^\s*([A-Za-z_]+)\s*=\s*/.exec(input);
  if (!key || !ANSWER_NAMES.has(key[1]!.toLowerCase())) return undefined;
  let value = input.slice(key[0].length);
  const quote = value[0];
  if (quote !== '"' && quote !== "'") return value.trim();
  value = value.slice(1).trimEnd();
  const closed = value.endsWith(quote) && !value.endsWith(`\\${quote}`);
  return (closed ? value.slice(0, -1) : value).replaceAll(`\\${quote}`, quote);
}

function readValue(input: string, at: number): { value: KeywordValue; end: number } | undefined {
  const quote = input[at];
  if (quote === '"' || quote === "'") {
    let value = '';
    for (let i = at + 1; i < input.length; i++) {
      const c = input[i]!;
      if (c === quote) return { value, end: i + 1 };
      if (c !== '\\' || i + 1 >= input.length) {
        value += c;
        continue;
      }
      const next = input[++i]!;
      value +=
        ESCAPES[next] ??
        (next === quote || next === '\\' || next === '"' || next === "'" ? next : `\\${next}`);
    }
    return undefined;
  }
  NUMBER.lastIndex = at;
  const number = NUMBER.exec(input)?.[0];
  if (number !== undefined) return { value: Number(number), end: at + number.length };
  NAME.lastIndex = at;
  const word = NAME.exec(input)?.[0];
  if (word !== undefined && Object.hasOwn(WORDS, word)) return { value: WORDS[word]!, end: at + word.length };
  return undefined;
}

function skipBlanks(text: string, at: number): number {
  while (at < text.length && /\s/.test(text[at]!)) at++;
  return at;
}
