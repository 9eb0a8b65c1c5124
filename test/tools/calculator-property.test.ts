import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { CalculatorError, evaluateExpression } from '../../src/tools/calculator.js';

// An independent reference: the same working precision, the same rounding rule, computed from a tree.
const Ref = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -12, toExpPos: 21 });

type Expr =
  | { kind: 'num'; text: string }
  | { kind: 'bin'; op: '+' | '-' | '*' | '/'; left: Expr; right: Expr };

const smallDecimal = fc
  .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 99 }), fc.boolean())
  .map(([whole, cents, hasFraction]): Expr => {
    const text = hasFraction ? `${whole}.${String(cents).padStart(2, '0')}` : String(whole);
    return { kind: 'num', text };
  });

const expr: fc.Arbitrary<Expr> = fc.letrec<{ node: Expr }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    smallDecimal,
    fc
      .record({ op: fc.constantFrom('+', '-', '*', '/'), left: tie('node'), right: tie('node') })
      .map((parts) => ({ kind: 'bin', ...parts }) as Expr),
  ),
})).node;

function render(node: Expr): string {
  return node.kind === 'num' ? node.text : `(${render(node.left)} ${node.op} ${render(node.right)})`;
}

/** Returns undefined when the tree divides by zero. */
function reference(node: Expr): Decimal | undefined {
  if (node.kind === 'num') return new Ref(node.text);
  const left = reference(node.left);
  const right = reference(node.right);
  if (left === undefined || right === undefined) return undefined;
  switch (node.op) {
    case '+':
      return left.plus(right);
    case '-':
      return left.minus(right);
    case '*':
      return left.times(right);
    case '/':
      return right.isZero() ? undefined : left.dividedBy(right);
  }
}

function format(value: Decimal): string {
  if (value.isZero()) return '0';
  return new Ref(value.sd() >= 40 ? value.toSignificantDigits(15) : value).toString();
}

describe('evaluateExpression properties', () => {
  it('returns a string or throws CalculatorError on arbitrary input', () => {
    const arithmeticish = fc.string({
      unit: fc.constantFrom(...'0123456789.,+-*/^%() $e'.split('')),
      maxLength: 60,
    });
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 250 }), arithmeticish), (input) => {
        try {
          assert.equal(typeof evaluateExpression(input), 'string');
        } catch (error) {
          assert.ok(
            error instanceof CalculatorError,
            `unexpected ${String(error)} for ${JSON.stringify(input)}`,
          );
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('matches a Decimal reference on well-formed expressions', () => {
    fc.assert(
      fc.property(expr, (tree) => {
        const text = render(tree);
        fc.pre(text.length <= 200);
        const expected = reference(tree);
        if (expected === undefined) {
          assert.throws(() => evaluateExpression(text), /Division by zero/);
          return;
        }
        assert.equal(evaluateExpression(text), format(expected), text);
      }),
      { numRuns: 1000 },
    );
  });

  it('never touches globals, whatever the input', () => {
    const canary = '__taoloopCalculatorCanary';
    for (const input of [
      `globalThis.${canary}=1`,
      `globalThis["${canary}"]=1`,
      `this.${canary}=1`,
      `(${canary}=1)`,
      `1;globalThis.${canary}=1`,
      `constructor.constructor("globalThis.${canary}=1")()`,
    ]) {
      assert.throws(() => evaluateExpression(input), CalculatorError);
    }
    assert.equal(Object.hasOwn(globalThis, canary), false);
  });
});
