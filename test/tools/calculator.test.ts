import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CalculatorError, calculator, evaluateExpression } from '../../src/tools/calculator.js';

function fails(expr: string, message: string | RegExp): void {
  assert.throws(
    () => evaluateExpression(expr),
    (error: unknown) => {
      assert.ok(error instanceof CalculatorError, `expected CalculatorError for ${JSON.stringify(expr)}`);
      if (typeof message === 'string') assert.equal(error.message, message);
      else assert.match(error.message, message);
      return true;
    },
  );
}

describe('evaluateExpression', () => {
  it('computes exact decimal results', () => {
    assert.equal(evaluateExpression('0.1 + 0.2'), '0.3');
    assert.equal(evaluateExpression('20 * 12 * 7'), '1680');
    assert.equal(evaluateExpression('(1,200 + 300) / 4'), '375');
    assert.equal(evaluateExpression('1,200.50 * 2'), '2401');
    assert.equal(evaluateExpression('123456789012345678 + 1'), '123456789012345679');
    assert.equal(evaluateExpression('2^64'), '18446744073709551616');
  });

  it('rounds non-terminating results to 15 significant digits', () => {
    assert.equal(evaluateExpression('1/3'), '0.333333333333333');
    assert.equal(evaluateExpression('2/3'), '0.666666666666667');
    assert.equal(evaluateExpression('10/3'), '3.33333333333333');
    assert.equal(evaluateExpression('1/3 * 3'), '1');
  });

  it('uses plain notation for ordinary magnitudes and never prints -0', () => {
    assert.equal(evaluateExpression('10^20'), '100000000000000000000');
    assert.equal(evaluateExpression('10^21'), '1e+21');
    assert.equal(evaluateExpression('0.000001'), '0.000001');
    assert.equal(evaluateExpression('-0'), '0');
    assert.equal(evaluateExpression('0 * -5'), '0');
  });

  it('supports unary signs, percent and right-associative power', () => {
    assert.equal(evaluateExpression('1++2'), '3');
    assert.equal(evaluateExpression('-3 - -2'), '-1');
    assert.equal(evaluateExpression('+4'), '4');
    assert.equal(evaluateExpression('50%'), '0.5');
    assert.equal(evaluateExpression('200 * 15%'), '30');
    // A bare percentage added or subtracted is a percentage of the left side, as on a desk calculator.
    assert.equal(evaluateExpression('200 + 10%'), '220');
    assert.equal(evaluateExpression('80 - 25%'), '60');
    assert.equal(evaluateExpression('(200 + 10%) * 2'), '440');
    assert.equal(evaluateExpression('200 + 2 * 10%'), '200.2');
    assert.equal(evaluateExpression('2^3^2'), '512');
    assert.equal(evaluateExpression('2 ** 10'), '1024');
    assert.equal(evaluateExpression('-2^2'), '-4');
    assert.equal(evaluateExpression('2^-2'), '0.25');
    assert.equal(evaluateExpression('(1.5)^2'), '2.25');
  });

  it('accepts a dollar sign before a number and Unicode operator signs', () => {
    assert.equal(evaluateExpression('$20 * 12'), '240');
    assert.equal(evaluateExpression('6 \u00d7 7 \u2212 2 \u00f7 2'), '41');
  });

  it('reports syntax errors with what was wrong and where', () => {
    fails('', 'Empty expression');
    fails('   ', 'Empty expression');
    fails('2 3', 'Unexpected "3" at position 3: expected an operator');
    fails('(1+2', /^Missing closing parenthesis/);
    fails('1+2)', 'Unexpected ")" at position 4: no matching "("');
    fails('1++', 'Unexpected end of expression: expected a number or "("');
    fails('1,2', /^Invalid thousands separator at position 2/);
    fails('1,2000', /^Invalid thousands separator/);
    fails('1.2.3', /more than one decimal point/);
    fails('2(3)', 'Unexpected "(" at position 2: expected an operator');
    fails('10 % 3', /"%" means percent, not remainder/);
    fails('20 USD', /^Unexpected "USD" at position 4/);
  });

  it('reports arithmetic errors', () => {
    fails('1/0', 'Division by zero');
    fails('5 / (2 - 2)', 'Division by zero');
    fails('0^-1', 'Division by zero');
    fails('2^0.5', /exponent must be a whole number/);
    fails('2^1001', /from -1000 to 1000/);
    fails('((((((9^999)^999)^999)^999)^999)^999)^999', /^Result is too large/);
  });

  it('refuses anything that is not arithmetic, running nothing', () => {
    fails("fetch('https://example.com')", /^Unexpected "fetch" at position 1/);
    fails('rm -rf /', /^Unexpected "rm" at position 1/);
    fails('process.exit(1)', /^Unexpected "process\.exit" at position 1/);
    fails('1; 2', /^Unexpected ";" at position 2/);
  });

  it('bounds input length and nesting depth', () => {
    fails(`${'1+'.repeat(100)}1`, 'Expression too long: 201 characters, the limit is 200');
    assert.equal(evaluateExpression(`${'1+'.repeat(100)}1`, { maxInputChars: 300 }), '101');
    assert.equal(evaluateExpression(`${'('.repeat(50)}1${')'.repeat(50)}`), '1');
    fails(`${'('.repeat(51)}1${')'.repeat(51)}`, /^Too deeply nested/);
  });
});

describe('evaluateExpression cost', () => {
  it('finishes quickly on the most expensive inputs the limits allow', () => {
    const started = performance.now();
    for (const expr of [
      `${'9'.repeat(190)}^999`,
      `${'(9^999)^999'}^1`,
      `1/${'3/'.repeat(95)}3`,
      `${'-'.repeat(199)}1`,
      `${'2^'.repeat(99)}2`,
    ]) {
      try {
        evaluateExpression(expr);
      } catch (error) {
        assert.ok(error instanceof CalculatorError);
      }
    }
    assert.ok(performance.now() - started < 1000);
  });
});

describe('calculator tool', () => {
  it('describes itself and returns the result string', async () => {
    assert.equal(calculator.name, 'calculator');
    // No text-protocol syntax in the description: it is also the function description in native mode.
    assert.match(calculator.description, /e\.g\. 20 \* 12 \* 7/);
    assert.doesNotMatch(calculator.description, /\[/);
    assert.equal(calculator.effects, 'read');
    const signal = new AbortController().signal;
    assert.equal(await calculator.run('20 * 12 * 7', { signal }), '1680');
    await assert.rejects(async () => calculator.run('2 3', { signal }), CalculatorError);
  });
});
