/**
 * Recursive-descent parser for the calculator that evaluates as it parses, with exact decimal arithmetic.
 *
 * Grammar (lowest precedence first):
 * ```
 * sum     := product (('+' | '-') product)*
 * product := unary (('*' | '/') unary)*
 * unary   := ('+' | '-')* power
 * power   := percent ('^' unary)?        right-associative: 2^3^2 = 2^9; -2^2 = -(2^2)
 * percent := primary '%'?                50% = 0.5
 *
 * As on a desk calculator, a bare percentage added or subtracted is a percentage of the left side:
 * `200 + 10%` = 220, `80 - 25%` = 60 (while `200 * 10%` = 20 and `10%` alone = 0.1).
 * primary := number | '(' sum ')'
 * ```
 *
 * @module
 */

import { Decimal } from 'decimal.js';
import { CalculatorError, type Operator, type Token } from './calculator-lexer.js';

/**
 * Largest decimal exponent a value may have anywhere in an expression: every number, intermediate
 * result and answer has a magnitude below 1e+1000000 and, unless it is exactly zero, of at least
 * 1e-999999. Beyond that an operation is an error ("too large" / "too small"), never Infinity or 0.
 */
export const MAX_RESULT_EXPONENT = 999_999;

/**
 * The calculator's private Decimal: 40 significant digits for intermediate results, plain notation
 * below 1e21 and above 1e-12, overflow past {@link MAX_RESULT_EXPONENT} to Infinity and underflow to 0
 * (both caught after every operation). A clone, so the global `Decimal` configuration is never touched.
 */
export const CalcDecimal = Decimal.clone({
  precision: 40,
  rounding: Decimal.ROUND_HALF_UP,
  toExpNeg: -12,
  toExpPos: 21,
  maxE: MAX_RESULT_EXPONENT,
  minE: -MAX_RESULT_EXPONENT,
});

/** Largest allowed |exponent| for `^`. */
export const MAX_EXPONENT = 1000;

/** Deepest allowed parenthesis nesting. */
export const MAX_DEPTH = 50;

/** Parses and evaluates a token list. @throws {CalculatorError} on any syntax or arithmetic error. */
export function evaluateTokens(tokens: readonly Token[]): Decimal {
  if (tokens.length === 0) throw new CalculatorError('Empty expression');
  const parser = new Parser(tokens);
  return parser.parseAll();
}

class Parser {
  private index = 0;
  /** Where the last `x%` term began and ended, so `a + x%` can mean a percentage of `a`. */
  private barePercent: { start: number; end: number } | undefined;
  private depth = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  parseAll(): Decimal {
    const value = this.sum();
    const extra = this.peek();
    if (extra !== undefined) {
      if (extra.text === ')') {
        throw new CalculatorError(`Unexpected ")" at position ${extra.position}: no matching "("`);
      }
      const afterPercent = this.tokens[this.index - 1]?.text === '%';
      const hint =
        extra.kind === 'operator'
          ? ''
          : `: expected an operator${afterPercent ? ' ("%" means percent, not remainder)' : ''}`;
      throw new CalculatorError(`Unexpected "${extra.text}" at position ${extra.position}${hint}`);
    }
    return value;
  }

  private sum(): Decimal {
    let value = this.product();
    for (let op = this.operator('+', '-'); op !== undefined; op = this.operator('+', '-')) {
      const start = this.index;
      let right = this.product();
      if (this.barePercent?.start === start && this.barePercent.end === this.index)
        right = times(value, right);
      value = op === '+' ? plus(value, right) : plus(value, right.negated());
    }
    return value;
  }

  private product(): Decimal {
    let value = this.unary();
    for (let op = this.operator('*', '/'); op !== undefined; op = this.operator('*', '/')) {
      const right = this.unary();
      if (op === '*') {
        value = times(value, right);
      } else {
        if (right.isZero()) throw new CalculatorError('Division by zero');
        value = inRange(value.dividedBy(right), !value.isZero());
      }
    }
    return value;
  }

  /**
   * Signs, then a chain `a ^ b ^ c` folded from the right. Written as loops, not recursion, so a long
   * run of signs or carets (any `maxInputChars`) cannot overflow the stack.
   */
  private unary(): Decimal {
    const terms: { negative: boolean; base: Decimal; caret: Token | undefined }[] = [];
    let caret: Token | undefined;
    do {
      let negative = false;
      for (let op = this.operator('+', '-'); op !== undefined; op = this.operator('+', '-')) {
        if (op === '-') negative = !negative;
      }
      terms.push({ negative, base: this.percent(), caret });
      caret = this.peek();
    } while (this.operator('^') !== undefined);
    let value: Decimal | undefined;
    for (let i = terms.length - 1; i >= 0; i--) {
      const term = terms[i]!;
      const raised = value === undefined ? term.base : power(term.base, value, terms[i + 1]!.caret!);
      value = term.negative ? raised.negated() : raised;
    }
    return value!;
  }

  private percent(): Decimal {
    const start = this.index;
    const value = this.primary();
    if (this.operator('%') === undefined) return value;
    this.barePercent = { start, end: this.index };
    return inRange(value.dividedBy(100), !value.isZero());
  }

  private primary(): Decimal {
    const token = this.next();
    if (token === undefined) {
      throw new CalculatorError('Unexpected end of expression: expected a number or "("');
    }
    if (token.kind === 'number') return literal(token.value);
    if (token.text === '(') return this.parenthesized(token.position);
    throw new CalculatorError(
      `Unexpected "${token.text}" at position ${token.position}: expected a number or "("`,
    );
  }

  private parenthesized(position: number): Decimal {
    this.depth += 1;
    if (this.depth > MAX_DEPTH) {
      throw new CalculatorError(`Too deeply nested: more than ${MAX_DEPTH} levels of parentheses`);
    }
    const value = this.sum();
    const close = this.next();
    if (close === undefined) {
      throw new CalculatorError(`Missing closing parenthesis for "(" at position ${position}`);
    }
    if (close.text !== ')') {
      throw new CalculatorError(
        `Unexpected "${close.text}" at position ${close.position}: expected an operator or ")"`,
      );
    }
    this.depth -= 1;
    return value;
  }

  /** Consumes the next token if it is one of `ops`. */
  private operator(...ops: Operator[]): Operator | undefined {
    const token = this.peek();
    if (token?.kind !== 'operator' || !ops.includes(token.text)) return undefined;
    this.index += 1;
    return token.text;
  }

  private peek(): Token | undefined {
    return this.tokens[this.index];
  }

  private next(): Token | undefined {
    const token = this.tokens[this.index];
    if (token !== undefined) this.index += 1;
    return token;
  }
}

/** Exponents of more digits than this are decided by their sign alone: far past any magnitude allowed. */
const LONG_EXPONENT_DIGITS = 15;

/**
 * A number as written (`1200`, `.5`, `1.5e+21`), exactly. A literal out of range is an error like any other
 * value: `1e999999999` is too large, `1e-999999999` too small; `0e999999999` is 0.
 */
function literal(text: string): Decimal {
  const e = text.search(/[eE]/);
  const mantissa = e < 0 ? text : text.slice(0, e);
  const nonZero = /[1-9]/.test(mantissa);
  if (e >= 0 && nonZero) {
    // decimal.js reads the exponent as a JavaScript number: a long one would lose digits (or be Infinity).
    const exponent = text.slice(e + 1).replace(/^[+-]?0*/, '');
    if (exponent.length > LONG_EXPONENT_DIGITS) {
      return inRange(text[e + 1] === '-' ? new CalcDecimal(0) : new CalcDecimal(Infinity), true);
    }
  }
  return inRange(new CalcDecimal(e >= 0 && !nonZero ? '0' : text), nonZero);
}

/** `base ^ exponent`, the exponent a whole number within {@link MAX_EXPONENT}. */
function power(base: Decimal, exponent: Decimal, caret: Token): Decimal {
  if (!exponent.isInteger() || exponent.abs().greaterThan(MAX_EXPONENT)) {
    throw new CalculatorError(
      `Unsupported exponent ${exponent.toString()} after "^" at position ${caret.position}: ` +
        `the exponent must be a whole number from -${MAX_EXPONENT} to ${MAX_EXPONENT}`,
    );
  }
  if (base.isZero() && exponent.isNegative()) throw new CalculatorError('Division by zero');
  return inRange(base.toPower(exponent), !base.isZero());
}

function times(a: Decimal, b: Decimal): Decimal {
  return inRange(a.times(b), !a.isZero() && !b.isZero());
}

function plus(a: Decimal, b: Decimal): Decimal {
  return inRange(a.plus(b), !a.eq(b.negated()));
}

/**
 * Turns decimal.js's silent overflow (Infinity) and underflow (0) into errors. `nonZero` says whether
 * the exact result is known to be non-zero, so a 0 can only be an underflow.
 *
 * @returns `value`, when it is finite and (if `nonZero`) not 0
 * @throws {CalculatorError} "Result is too large" for an infinite value, "Result is too small" for a 0
 * that should not be
 */
export function inRange(value: Decimal, nonZero: boolean): Decimal {
  if (!value.isFinite()) {
    throw new CalculatorError(
      `Result is too large: magnitudes must stay below 1e+${MAX_RESULT_EXPONENT + 1}`,
    );
  }
  if (nonZero && value.isZero()) {
    throw new CalculatorError(
      `Result is too small: non-zero magnitudes must be at least 1e-${MAX_RESULT_EXPONENT}`,
    );
  }
  return value;
}
