/**
 * Properties of the turn parser: it never throws, returns a well-formed turn for any string, and runs in
 * linear time on pathological inputs (issue 3), checked by ratio (`test/helpers/linear.ts`), never by a wall-clock bound.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { LABEL_SETS } from '../../src/react/labels.js';
import { findInventedObservation, parseTurn } from '../../src/react/parse.js';
import type { Turn } from '../../src/react/turn.js';
import { assertLinear } from '../helpers/linear.js';

const KINDS = new Set([
  'empty',
  'no-labels',
  'no-action',
  'action-and-answer',
  'empty-action',
  'placeholder-answer',
  'unknown-syntax',
  'truncated',
  'reasoning-cut',
  'only-reasoning',
]);

function assertWellFormed(turn: Turn): void {
  if (turn.type === 'action') {
    assert.equal(typeof turn.tool, 'string');
    assert.equal(typeof turn.input, 'string');
  } else if (turn.type === 'answer') {
    assert.equal(typeof turn.text, 'string');
  } else {
    assert.ok(KINDS.has(turn.kind), turn.kind);
    assert.ok(turn.problem.length > 0);
  }
  for (const value of Object.values(turn)) assert.notEqual(value, undefined, 'optional fields are omitted');
}

/** Strings built from protocol fragments, so the generator reaches the parser's interesting paths. */
const protocolish = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'Thought: ',
        'Action: ',
        'Action Input: ',
        'Observation: ',
        'Observ',
        'Answer: ',
        'Final Answer: ',
        '**Action:** ',
        'Ação: ',
        'Réponse : ',
        'Jawaban: ',
        'finish[',
        'search[',
        'tool(',
        '[',
        ']',
        '(',
        ')',
        '{"a": "]"}',
        '"',
        '`',
        '```',
        '```json\n',
        '<think>',
        '</think>',
        '\n',
        '\r\n',
        '：',
        'None',
        'answer',
        ' ',
        '\\',
      ),
      fc.string({ unit: 'grapheme', maxLength: 8 }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

const options = fc.record(
  {
    tools: fc.array(fc.string({ maxLength: 8 }), { maxLength: 4 }),
    labels: fc.constantFrom(...Object.values(LABEL_SETS)),
    finishReason: fc.constantFrom('stop', 'length', 'unknown'),
  },
  { requiredKeys: [] },
);

test('never throws and returns a well-formed turn on arbitrary unicode strings', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 300 }), options, (text, opts) => {
      assertWellFormed(parseTurn(text, opts));
      const at = findInventedObservation(text, opts.labels);
      assert.ok(at >= -1 && at <= text.length);
    }),
    { numRuns: 500 },
  );
});

test('never throws on strings made of protocol fragments', () => {
  fc.assert(
    fc.property(protocolish, options, (text, opts) => {
      assertWellFormed(parseTurn(text, opts));
      const at = findInventedObservation(text, opts.labels);
      assert.ok(at >= -1 && at <= text.length);
    }),
    { numRuns: 1000 },
  );
});

test('findInventedObservation agrees with parseTurn', () => {
  fc.assert(
    fc.property(protocolish, (text) => {
      const turn = parseTurn(text);
      const at = findInventedObservation(text);
      if (at >= 0) assert.equal(turn.inventedObservation, true, JSON.stringify(text));
      // Parsing the cut text sees no observation any more.
      if (at >= 0) assert.equal(findInventedObservation(text.slice(0, at)), -1, JSON.stringify(text));
    }),
    { numRuns: 500 },
  );
});

test('a well-formed action round-trips', () => {
  const name = fc
    .stringMatching(/^[a-z][a-z0-9_]{0,11}$/)
    .filter((n) => !['finish', 'none', 'null', 'nil', 'nothing'].includes(n));
  // Inputs without brackets, quotes at the ends or surrounding blanks, so they come back unchanged.
  const input = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ,.+*-]{0,30}[A-Za-z0-9]$/);
  const thought = fc.stringMatching(/^[A-Za-z][A-Za-z ,.]{0,40}[A-Za-z.]$/);
  fc.assert(
    fc.property(name, input, thought, (tool, text, why) => {
      const turn = parseTurn(`Thought: ${why}\nAction: ${tool}[${text}]`, { tools: [tool] });
      assert.deepEqual(turn, { type: 'action', tool, input: text, thought: why });
    }),
  );
});

/** Pathological inputs of about `size` characters. */
const pathological: Record<string, (size: number) => string> = {
  'opening brackets': (n) => `Action: a${'['.repeat(n)}`,
  'brackets in an input': (n) => `Action: a[${'[]['.repeat(n / 3)}`,
  parentheses: (n) => `Action: a${'('.repeat(n)}`,
  'JSON that never closes': (n) => `Action: a[${'{"a": ['.repeat(n / 7)}`,
  'thought lines': (n) => 'Thought: x\n'.repeat(n / 11),
  'action lines': (n) => 'Action: a[\n'.repeat(n / 11),
  'finish lines': (n) => 'Action: finish[\nfinish(\n'.repeat(n / 24),
  'two-line actions': (n) => 'Action: a\nAction Input: ```\n'.repeat(n / 30),
  'label-like headers': (n) => `Thought${' '.repeat(38)}x:\n`.repeat(n / 48),
  'think tags': (n) => '</think><think>'.repeat(n / 15),
  fences: (n) => '```\n'.repeat(n / 4),
  'one long line': (n) => `Thought: ${'a '.repeat(n / 2)}`,
  'blank lines after a fragment': (n) => `Action: a[x]\nObserv${'\n'.repeat(n)}`,
};

test('pathological inputs: time grows linearly with their size', () => {
  const read = (text: string) => {
    parseTurn(text, { finishReason: 'length', tools: ['a'] });
    findInventedObservation(text);
  };
  for (const [name, make] of Object.entries(pathological)) assertLinear(name, make, read, 10_000);
});

test('opening brackets and Thought lines: time grows linearly with their number', () => {
  const cases: Record<string, (n: number) => string> = {
    brackets: (n) => '['.repeat(n),
    'an action of brackets': (n) => `Action: x${'['.repeat(n)}`,
    'Thought lines': (n) => 'Thought:\n'.repeat(n),
  };
  for (const [name, make] of Object.entries(cases)) assertLinear(name, make, (t) => parseTurn(t), 10_000);
});
