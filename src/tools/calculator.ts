/**
 * The built-in calculator tool: exact decimal arithmetic over a small grammar, parsed by our own
 * recursive-descent parser. Nothing here evaluates code: no `eval`, no `Function`, no `vm`.
 *
 * @module
 */

import type { Decimal } from 'decimal.js';
import { CalculatorError, tokenize } from './calculator-lexer.js';
import { CalcDecimal, evaluateTokens, inRange } from './calculator-parser.js';
import type { Tool } from './types.js';

export { CalculatorError } from './calculator-lexer.js';

/** Default for {@link EvaluateOptions.maxInputChars}. */
export const DEFAULT_MAX_EXPRESSION_CHARS = 200;

/** Significant digits kept when a result is not exact (`1/3`). */
export const RESULT_SIGNIFICANT_DIGITS = 15;

/** Options for {@link evaluateExpression}. */
export interface EvaluateOptions {
  /** Longer expressions are refused with a `CalculatorError`. @default 200 */
  maxInputChars?: number;
}

/**
 * Evaluates an arithmetic expression exactly and returns the result as a plain decimal string.
 *
 * Supported: decimal numbers, thousands separators (`1,200`), decimal exponents (`1.5e+21`, the form
 * results from 1e21 up are written in), a `$` right before a number (`$20`),
 * `+ - * /`, unary `-` and `+`, parentheses (at most 50 levels), postfix percent (`15%` = 0.15) and
 * right-associative power `^` (also `**`) with a whole exponent from -1000 to 1000.
 *
 * Arithmetic is decimal, not binary floating point (`0.1 + 0.2` is `0.3`), with 40 significant digits
 * for intermediate results. An exact result is returned as is; a result that used all 40 digits (it did
 * not terminate, like `1/3`) is rounded half-up to 15 significant digits, so `1/3 * 3` is `1`. Trailing
 * zeros are dropped; exponent notation is used only below 1e-12 or from 1e21 up (`1e+21`).
 *
 * Every number, intermediate result and answer must have a magnitude below 1e+1000000 and, unless it
 * is exactly zero, of at least 1e-999999 (see `MAX_RESULT_EXPONENT`): an overflow or underflow anywhere
 * (a sum, product, quotient, power, percentage or literal) is an error saying the result is too large or
 * too small, never `Infinity` or a silent `0`. Signs and `^` chains are parsed with loops, so no input
 * of any length overflows the stack.
 *
 * @example
 * ```ts
 * evaluateExpression('20 * 12 * 7');         // '1680'
 * evaluateExpression('(1,200 + 300) / 4');   // '375'
 * evaluateExpression('200 * 15%');           // '30'
 * evaluateExpression('1/3');                 // '0.333333333333333'
 * ```
 *
 * @throws {CalculatorError} with a message saying what is wrong and where (1-based positions): an empty
 * or too long expression, a character that is not arithmetic (`Unexpected "fetch" at position 1: ...`),
 * two numbers in a row (`Unexpected "3" at position 3: expected an operator`), a missing parenthesis,
 * division by zero, a bad exponent, or a result too large or too small to represent. Never any other
 * error type, whatever `maxInputChars` allows.
 */
export function evaluateExpression(expr: string, options: EvaluateOptions = {}): string {
  const maxInputChars = options.maxInputChars ?? DEFAULT_MAX_EXPRESSION_CHARS;
  if (expr.length > maxInputChars) {
    throw new CalculatorError(
      `Expression too long: ${expr.length} characters, the limit is ${maxInputChars}`,
    );
  }
  if (expr.trim() === '') throw new CalculatorError('Empty expression');
  return formatResult(evaluateTokens(tokenize(expr)));
}

/**
 * Renders a calculator result: exact results in full, results that filled the 40-digit working
 * precision rounded to 15 significant digits, no trailing zeros, no `-0`.
 */
function formatResult(value: Decimal): string {
  if (value.isZero()) return '0';
  // A literal is kept exactly as written, so it may have more digits than the working precision.
  const rounded =
    value.sd() >= CalcDecimal.precision ? value.toSignificantDigits(RESULT_SIGNIFICANT_DIGITS) : value;
  // Rounding 9.99...e+999999 up reaches 1e+1000000, past the largest magnitude: an error, not `Infinity`.
  return new CalcDecimal(inRange(rounded, true)).toString();
}

/**
 * The calculator as a {@link Tool}: `calculator[20 * 12 * 7]` gives the observation `1680`. Read-only.
 * Bad input throws a `CalculatorError`, which the router shows the model as `Error: <message>`.
 */
export const calculator: Tool = {
  name: 'calculator',
  description: 'Evaluates arithmetic exactly: numbers, + - * / ^ %, parentheses, e.g. 20 * 12 * 7.',
  inputHint: 'arithmetic expression',
  effects: 'read',
  maxInputChars: DEFAULT_MAX_EXPRESSION_CHARS,
  run: (input) => evaluateExpression(input),
};
