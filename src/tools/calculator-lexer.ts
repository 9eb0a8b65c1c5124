/**
 * Tokenizer for the calculator: turns an arithmetic expression into numbers, operators and parentheses.
 * Anything else (letters, quotes, `=`, `;`) is refused here, so nothing but arithmetic can reach the parser.
 *
 * @module
 */

/** A bad expression: the message says what was wrong and where (positions are 1-based). */
export class CalculatorError extends Error {
  override name = 'CalculatorError';
}

/** Operators the calculator understands. `%` is postfix percent, `^` is power. */
export type Operator = '+' | '-' | '*' | '/' | '^' | '%';

/**
 * One token with its 1-based position in the input. A number's `value` is its text without thousands
 * separators (`1,200e3` → `1200e3`).
 */
export type Token =
  | { kind: 'number'; text: string; value: string; position: number }
  | { kind: 'operator'; text: Operator; position: number }
  | { kind: 'paren'; text: '(' | ')'; position: number };

const OPERATOR_ALIASES: Readonly<Record<string, Operator>> = {
  '+': '+',
  '-': '-',
  '\u2212': '-', // minus sign
  '*': '*',
  '\u00d7': '*', // multiplication sign
  '/': '/',
  '\u00f7': '/', // division sign
  '^': '^',
  '%': '%',
};

// Thousands groups are exactly three digits; `(?!\d)` makes `1,2000` fail here and be reported below. An
// exponent (`e+21`, as results are written) is part of the number only when digits follow the `e`.
const NUMBER = /(?:\d+(?:,\d{3}(?!\d))*(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const WORD = /[\p{L}\p{N}_$.]+/uy;

/**
 * Splits `expr` into tokens.
 *
 * Numbers may use `,` as a thousands separator (`1,200`), may follow a `$` (`$20`) and may end in a decimal
 * exponent (`1.5e+21`, `2E-3`, the form results are written in from 1e21 up). `**` is read as
 * `^`, and the Unicode signs `−` `×` `÷` as `-` `*` `/`.
 *
 * @throws {CalculatorError} on a character or word that is not part of arithmetic, or a malformed number.
 */
export function tokenize(expr: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < expr.length) {
    const ch = expr[i]!;
    if (/\s/.test(ch)) {
      i += 1;
      continue;
    }
    if (ch === '$' && /[\d.]/.test(expr[i + 1] ?? '')) {
      i += 1; // models write `$20 * 12`: the dollar sign is dropped, the number stays
      continue;
    }
    if (ch === '*' && expr[i + 1] === '*') {
      tokens.push({ kind: 'operator', text: '^', position: i + 1 });
      i += 2;
      continue;
    }
    const operator = Object.hasOwn(OPERATOR_ALIASES, ch) ? OPERATOR_ALIASES[ch] : undefined;
    if (operator !== undefined) {
      tokens.push({ kind: 'operator', text: operator, position: i + 1 });
      i += 1;
      continue;
    }
    if (ch === '(' || ch === ')') {
      tokens.push({ kind: 'paren', text: ch, position: i + 1 });
      i += 1;
      continue;
    }
    const number = readNumber(expr, i);
    if (number !== undefined) {
      tokens.push(number);
      i += number.text.length;
      continue;
    }
    throw unexpected(expr, i);
  }
  return tokens;
}

function readNumber(expr: string, start: number): Token | undefined {
  NUMBER.lastIndex = start;
  const match = NUMBER.exec(expr);
  if (match === null) return undefined;
  const text = match[0];
  const end = start + text.length;
  if (expr[end] === ',' && /\d/.test(expr[end + 1] ?? '')) {
    throw new CalculatorError(
      `Invalid thousands separator at position ${end + 1}: a comma in a number must be followed by ` +
        'exactly 3 digits (write 1,200 or 1200)',
    );
  }
  if (expr[end] === '.' && /\d/.test(expr[end + 1] ?? '')) {
    throw new CalculatorError(`Invalid number at position ${start + 1}: more than one decimal point`);
  }
  return { kind: 'number', text, value: text.replaceAll(',', ''), position: start + 1 };
}

function unexpected(expr: string, index: number): CalculatorError {
  WORD.lastIndex = index;
  const word = WORD.exec(expr)?.[0] ?? expr[index] ?? '';
  const shown = word.length > 20 ? `${word.slice(0, 20)}...` : word;
  return new CalculatorError(
    `Unexpected "${shown}" at position ${index + 1}: only numbers, + - * / ^ %, and parentheses are allowed`,
  );
}
