/**
 * The ReAct turn as a GBNF grammar, so that a local model (llama.cpp through node-llama-cpp) can only write a
 * well-formed turn. Pure text: building it loads nothing.
 *
 * GBNF is llama.cpp's grammar format (https://github.com/ggml-org/llama.cpp/blob/master/grammars/README.md):
 * rules `name ::= ...`, string literals, character classes, alternation `|`, and bounded repetition
 * `x{m,n}`. Sampling under a grammar only allows tokens that keep the text inside the grammar, and once the
 * grammar is complete only end-of-generation tokens remain, so generation stops right after the `]` of an
 * action or the end of the answer line.
 *
 * @module
 */
import type { TurnFormat } from './types.js';

/** Length limits written into the grammar, in characters. */
export interface TurnGrammarLimits {
  /** Longest thought. @default 1000 */
  maxThoughtChars?: number;
  /** Longest action input; matches the tool router's default `maxInputChars`. @default 200 */
  maxInputChars?: number;
  /** Longest answer. @default 1000 */
  maxAnswerChars?: number;
}

/** Default limits of {@link turnGrammar}. */
export const DEFAULT_TURN_GRAMMAR_LIMITS: Required<TurnGrammarLimits> = {
  maxThoughtChars: 1000,
  maxInputChars: 200,
  maxAnswerChars: 1000,
};

/** llama.cpp refuses repetition counts above 2000 (`MAX_REPETITION_THRESHOLD` in llama-grammar.cpp). */
const MAX_REPETITION = 2000;

/** The pseudo-tool that ends the task (`finish[answer]`, ReAct paper section 2). */
const FINISH = 'finish';

/** A GBNF string literal: backslash, double quote and control characters escaped. */
export function gbnfLiteral(text: string): string {
  const escaped = text.replace(/[\\"\n\r\t]/g, (c) => {
    switch (c) {
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\t':
        return '\\t';
      default:
        return `\\${c}`;
    }
  });
  return `"${escaped}"`;
}

function limit(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > MAX_REPETITION) {
    throw new RangeError(`turnGrammar: ${name} must be an integer from 1 to ${MAX_REPETITION}, got ${value}`);
  }
  return value;
}

/**
 * The GBNF grammar of one ReAct turn in `format`'s labels:
 *
 * ```
 * Thought: <text without newline>\n
 * ```
 * followed by either `Action: <tool>[<input without newline or ]>]` (a name from `format.tools`, or
 * `finish`) or `Answer: <text without newline>` with an optional final newline. There is exactly one
 * space after each label's colon. Tool names are matched literally (case as given). With
 * `answerJsonGrammar` (a typed answer), the answer is a JSON value of that grammar instead (it may span
 * lines; `maxAnswerChars` does not apply), and `finish` is not offered.
 *
 * @param format The tools and labels (what the loop sends as `ModelRequest.turnFormat`).
 * @param limits Character limits; keep `maxThoughtChars + maxInputChars` (or `+ maxAnswerChars`) within the
 *   turn's `maxOutputTokens` (`modelSettings.maxOutputTokens`), or a long turn is cut before the grammar
 *   completes.
 * @param answerJsonGrammar node-llama-cpp's grammar for `format.answerJsonSchema`
 *   (`llama.createGrammarForJsonSchema(toLlamaJsonSchema(schema)).grammar`); see `answerJsonRules`.
 *   @default none: the answer is one line of text
 * @throws {RangeError} for a limit that is not an integer from 1 to 2000 (llama.cpp's bound).
 * @throws {Error} as `answerJsonRules`.
 * @example
 * ```ts
 * turnGrammar({ tools: ['search'], labels: { thought: 'Thought', action: 'Action', answer: 'Answer' } });
 * // root ::= "Thought: " thought "\n" (action | answer)
 * // tool ::= "search" | "finish"  ...
 * ```
 */
export function turnGrammar(
  format: TurnFormat,
  limits: TurnGrammarLimits = {},
  answerJsonGrammar?: string,
): string {
  const resolved = { ...DEFAULT_TURN_GRAMMAR_LIMITS, ...limits };
  const thoughtChars = limit('maxThoughtChars', resolved.maxThoughtChars);
  const inputChars = limit('maxInputChars', resolved.maxInputChars);
  const answerChars = limit('maxAnswerChars', resolved.maxAnswerChars);
  const { thought, action, answer } = format.labels;
  const tools = format.tools.filter((name) => name !== '');
  // A typed answer is written after the answer label only: `finish[...]` could not hold its JSON.
  const names = [...new Set(answerJsonGrammar === undefined ? [...tools, FINISH] : tools)];
  const answerText = answerJsonGrammar === undefined ? `[^\\n]{1,${answerChars}}` : ANSWER_JSON_RULE;
  const canAct = names.length > 0;
  return [
    `root ::= ${gbnfLiteral(`${thought}: `)} thought "\\n" ${canAct ? '(action | answer)' : 'answer'}`,
    `thought ::= [^\\n]{1,${thoughtChars}}`,
    ...(canAct
      ? [
          `action ::= ${gbnfLiteral(`${action}: `)} tool "[" input "]"`,
          `tool ::= ${names.map(gbnfLiteral).join(' | ')}`,
          `input ::= [^\\]\\n]{1,${inputChars}}`,
        ]
      : []),
    `answer ::= ${gbnfLiteral(`${answer}: `)} ${answerText} "\\n"?`,
    ...(answerJsonGrammar === undefined ? [] : [answerJsonRules(answerJsonGrammar)]),
    '',
  ].join('\n');
}

/** The rule a typed answer's JSON is written in. */
const ANSWER_JSON_RULE = 'answer-json';

/** The rules {@link turnGrammar} defines itself. */
const TURN_RULES = new Set(['root', 'thought', 'action', 'tool', 'input', 'answer', ANSWER_JSON_RULE]);

/**
 * What node-llama-cpp 3.21 puts after the JSON value in its JSON Schema grammar's root rule (four newlines,
 * then any newlines: its own stop trigger), which a turn does not want.
 */
const JSON_GRAMMAR_TAIL = ' "\\n\\n\\n\\n" [\\n]*';

/**
 * The rules of a JSON Schema grammar made by node-llama-cpp (`llama.createGrammarForJsonSchema(schema).grammar`)
 * with its `root` renamed `answer-json` and its trailing newlines dropped, to go under a turn's answer label.
 *
 * @throws {Error} when the grammar is not shaped as node-llama-cpp 3.21 makes it (a first `root` rule ending
 *   in four newlines), or defines a rule whose name the turn grammar uses.
 */
export function answerJsonRules(jsonGrammar: string): string {
  const lines = jsonGrammar.trim().split('\n');
  const first = lines[0] ?? '';
  if (!first.startsWith('root ::= ') || !first.endsWith(JSON_GRAMMAR_TAIL)) {
    throw new Error(
      `unexpected JSON Schema grammar from node-llama-cpp (expected a root rule ending in four newlines; install node-llama-cpp@3.21.1): ${first.slice(0, 120)}`,
    );
  }
  for (const line of lines.slice(1)) {
    const name = /^([a-zA-Z0-9-]+) ::= /.exec(line)?.[1];
    if (name !== undefined && TURN_RULES.has(name))
      throw new Error(`the JSON Schema grammar defines the rule "${name}", which the turn grammar uses`);
  }
  const body = first.slice('root ::= '.length, -JSON_GRAMMAR_TAIL.length);
  return [`${ANSWER_JSON_RULE} ::= ${body}`, ...lines.slice(1)].join('\n');
}
