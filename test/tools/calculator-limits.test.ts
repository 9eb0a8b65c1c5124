import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { CalculatorError, evaluateExpression } from '../../src/tools/calculator.js';

/** Asserts that `expr` is refused with a CalculatorError whose message matches `pattern`. */
function fails(expr: string, pattern: RegExp, maxInputChars = 100_000): void {
  assert.throws(
    () => evaluateExpression(expr, { maxInputChars }),
    (error: unknown) => error instanceof CalculatorError && pattern.test(error.message),
    expr.length > 80 ? `${expr.slice(0, 80)}...` : expr,
  );
}

/** `(((x^1000)^1000)...)^last`: a value of exponent `1000^n * last` reached with allowed exponents only. */
function tower(x: string, n: number, last: number): string {
  return `${'('.repeat(n)}${x}${')^1000'.repeat(n)}^${last}`;
}

describe('calculator overflow and underflow are errors, never Infinity or 0', () => {
  it('a sum past the largest magnitude is too large (was "Infinity")', () => {
    const huge = `${tower('10', 4, 9)}*9.9`;
    fails(`${huge} + ${huge}`, /too large/);
  });

  it('a product, a power and a literal past the largest magnitude are too large', () => {
    fails(tower('10', 2, 1), /too large/); // 1e+1000000
    fails('(10^1000)^999 * 10^1000', /too large/);
    fails(`1${'0'.repeat(1_000_000)}`, /too large/, 2_000_000);
  });

  it('a power, a quotient and a percentage below the smallest magnitude are too small (was "0")', () => {
    fails(tower('10^-1', 5, 10), /too small/);
    fails('(10^-1000)^999 / 10^1000', /too small/);
    fails('(10^-1000)^999 * 10^-1000', /too small/);
    fails('((10^-1000)^999 * 10^-999)%', /too small/);
    fails(`0.${'0'.repeat(1_000_000)}1`, /too small/, 2_000_000);
  });

  it('results at the edge of the range are still answered', () => {
    assert.equal(evaluateExpression('(10^1000)^999 * 10^999', { maxInputChars: 1000 }), '1e+999999');
    assert.equal(evaluateExpression('(10^-1000)^999 * 10^-999', { maxInputChars: 1000 }), '1e-999999');
    // Exact zeros are not underflows.
    assert.equal(evaluateExpression('(10^-1000)^999 - (10^-1000)^999', { maxInputChars: 1000 }), '0');
    assert.equal(evaluateExpression('0 * (10^1000)^999', { maxInputChars: 1000 }), '0');
    assert.equal(evaluateExpression('0^5 + 0%'), '0');
  });

  it('the exponent limit holds at its exact boundary', () => {
    assert.equal(evaluateExpression('2^1000'), '1.07150860718627e+301');
    assert.equal(evaluateExpression('2^-1000'), '9.33263618503219e-302');
    assert.equal(evaluateExpression('10^1000'), '1e+1000');
    assert.equal(evaluateExpression('10^-1000'), '1e-1000');
    assert.equal(evaluateExpression('10^(999+1)'), '1e+1000');
    fails('2^1001', /from -1000 to 1000/);
    fails('2^-1001', /from -1000 to 1000/);
    fails('2^(1000+1)', /from -1000 to 1000/);
    fails('2^1000.5', /whole number/);
  });
});

describe('no input makes the calculator throw anything but its own error', () => {
  it('long runs of unary signs are evaluated without recursion', () => {
    const max = { maxInputChars: 1_000_000 };
    assert.equal(evaluateExpression(`${'-'.repeat(200_000)}1`, max), '1');
    assert.equal(evaluateExpression(`${'-'.repeat(200_001)}1`, max), '-1');
    assert.equal(evaluateExpression(`2*${'+-'.repeat(100_000)}3`, max), '6');
  });

  it("long chains of powers end in the calculator's own error", () => {
    fails(`${'2^'.repeat(200_000)}2`, /exponent must be a whole number/, 1_000_000);
    assert.equal(evaluateExpression(`${'1^'.repeat(200_000)}5`, { maxInputChars: 1_000_000 }), '1');
    assert.equal(evaluateExpression('2^-2^2'), '0.0625');
    assert.equal(evaluateExpression('-2^2'), '-4');
    assert.equal(evaluateExpression('2^-1^-1'), '0.5');
  });

  it('random operator soup of any length throws only CalculatorError', () => {
    const piece = fc.constantFrom(
      '-',
      '+',
      '^',
      '*',
      '/',
      '%',
      '(',
      ')',
      '9',
      '0',
      '1000',
      '0.001',
      ' ',
      '10^1000',
      '10^-1000',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 400 }), fc.integer({ min: 1, max: 200 }), (parts, repeat) => {
        const expr = parts.join('').repeat(repeat);
        try {
          const result = evaluateExpression(expr, { maxInputChars: expr.length });
          assert.doesNotMatch(result, /Infinity|NaN/);
        } catch (error) {
          if (!(error instanceof CalculatorError)) throw error;
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('a value too large to represent is an error at any input size (issue 27, item 8)', () => {
  /** 40 nines: a factor that fills the working precision, so the shown result is rounded. */
  const nines = `9.${'9'.repeat(39)}`;

  it('a long literal that rounds past the largest magnitude is too large (was "Infinity")', () => {
    fails('9'.repeat(1_000_000), /too large/, 2_000_000);
    fails(`-${'9'.repeat(1_000_000)}`, /too large/, 2_000_000);
    fails(`${'9'.repeat(1_000_000)}.5`, /too large/, 2_000_000);
  });

  it('a result that rounds past the largest magnitude is too large (was "Infinity")', () => {
    fails(`(10^1000)^999 * 10^999 * ${nines}`, /too large/);
    fails(`-(10^1000)^999 * 10^999 * ${nines}`, /too large/);
  });

  it('literals in exponent notation, as results are written, are read; out of range they are errors', () => {
    assert.equal(evaluateExpression('1e+21 * 3'), '3e+21');
    assert.equal(evaluateExpression('1.5E3 + 2e-3'), '1500.002');
    assert.equal(evaluateExpression('1,200e1'), '12000');
    assert.equal(evaluateExpression('0e999999999999999999999'), '0');
    fails('1e999999999', /too large/);
    fails('1e1000000', /too large/);
    fails(`1e${'9'.repeat(10_000)}`, /too large/);
    fails('-1e999999999 * 0', /too large/);
    fails('1e-999999999', /too small/);
    fails(`0.5e-${'9'.repeat(10_000)}`, /too small/);
    assert.equal(evaluateExpression('1e999999'), '1e+999999');
    assert.equal(evaluateExpression('0.1e-999998'), '1e-999999');
    fails('2e', /Unexpected "e"/);
    fails('2e+', /Unexpected "e"/);
  });

  it('no literal, however long, gives Infinity or NaN', () => {
    const literal = fc.tuple(
      fc.constantFrom('', '-', '('),
      fc.constantFrom('9', '1', '0', '5'),
      fc.constantFrom(999_999, 1_000_000, 1_000_001),
      fc.constantFrom('', '.5', '.99999', 'e0', 'e1', 'e-1', ' * 1', ' / 1', ' + 1', ' - 1'),
    );
    fc.assert(
      fc.property(literal, ([sign, digit, count, tail]) => {
        const expr = `${sign}${digit.repeat(count)}${tail}${sign === '(' ? ')' : ''}`;
        try {
          assert.doesNotMatch(evaluateExpression(expr, { maxInputChars: expr.length }), /Infinity|NaN/);
        } catch (error) {
          if (!(error instanceof CalculatorError)) throw error;
        }
      }),
      { numRuns: 40 },
    );
  });
});
