/**
 * Recursive-descent parser for the calculator that evaluates as it parses, with exact decimal arithmetic.
 *
 * Grammar (lowest precedence first):
 * ```
 * sum     := product (('+' | '-') product)*
 * product := unary (('*' | '/') unary)*
 * unary   := ('+' | '-') unary | power
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
 * The calculator's private Decimal: 40 significant digits for intermediate results, plain notation
 * below 1e21 and above 1e-12. A clone, so the global `Decimal` configuration is never touched.
 */
export const CalcDecimal = Decimal.clone({
  precision: 40,
  rounding: Decimal.ROUND_HALF_UP,
  toExpNeg: -12,
  toExpPos: 21,
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
        right = value.times(right);
      value = op === '+' ? value.plus(right) : value.minus(right);
    }
    return value;
  }

  private product(): Decimal {
    let value = this.unary();
    for (let op = this.operator('*', '/'); op !== undefined; op = this.operator('*', '/')) {
      const right = this.unary();
      if (op === '*') {
        value = value.times(right);
      } else {
        if (right.isZero()) throw new CalculatorError('Division by zero');
        value = value.dividedBy(right);
      }
      checkFinite(value);
    }
    return value;
  }

  private unary(): Decimal {
    const op = this.operator('+', '-');
    if (op === undefined) return this.power();
    const value = this.unary();
    return op === '-' ? value.negated() : value;
  }

  private power(): Decimal {
    const base = this.percent();
    const caret = this.peek();
    if (this.operator('^') === undefined) return base;
    const exponent = this.unary();
    if (!exponent.isInteger() || exponent.abs().greaterThan(MAX_EXPONENT)) {
      throw new CalculatorError(
        `Unsupported exponent ${exponent.toString()} after "^" at position ${caret!.position}: ` +
          `the exponent must be a whole number from -${MAX_EXPONENT} to ${MAX_EXPONENT}`,
      );
    }
    if (base.isZero() && exponent.isNegative()) throw new CalculatorError('Division by zero');
    return checkFinite(base.toPower(exponent));
  }

  private percent(): Decimal {
    const start = this.index;
    const value = this.primary();
    if (this.operator('%') === undefined) return value;
    this.barePercent = { start, end: this.index };
    return value.dividedBy(100);
  }

  private primary(): Decimal {
    const token = this.next();
    if (token === undefined) {
      throw new CalculatorError('Unexpected end of expression: expected a number or "("');
    }
    if (token.kind === 'number') return new CalcDecimal(token.value);
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

function checkFinite(value: Decimal): Decimal {
  if (!value.isFinite()) throw new CalculatorError('Result is too large');
  return value;
}
