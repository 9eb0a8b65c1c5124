/**
 * parseTurn reads the plain `Thought: ...\nAction: tool[input]` turn on a fast path; it must give exactly
 * the turn the full parser gives, for every text, whichever path takes it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ENGLISH_LABELS, FRENCH_LABELS, mergeLabels, PORTUGUESE_LABELS } from '../../src/react/labels.js';
import { parseFull, parseTurn, plainAction } from '../../src/react/parse.js';
import { labelIndex } from '../../src/react/scan.js';

const TOOLS = ['search', 'lookup', 'calculator', 'run_tests', 'web-fetch', 'Finish2', 'finish_now'];

/** Pieces that sit on the edge of the fast path's rules. */
const edgy = fc.constantFrom(
  '',
  ' ',
  '\t',
  '\n',
  '\r',
  '\r\n',
  '[',
  ']',
  '(',
  ')',
  '{',
  '}',
  '<',
  '<think>',
  '</think>',
  '`',
  '```',
  '~~~',
  '"',
  "'",
  '*',
  '**',
  '_',
  '\\',
  ':',
  '：',
  'Observation:',
  '\nObservation: x',
  '\nObserv',
  'Answer:',
  '\nAnswer: 42',
  'Action:',
  '\nAction: lookup[y]',
  'finish',
  'Thought:',
  'é',
  '\u00a0',
  '\u2028',
  '42',
  '-',
);
const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_ -]{0,12}$/);
const piece = fc.oneof(edgy, word, fc.string({ maxLength: 6 }));
const noisy = fc.array(piece, { maxLength: 6 }).map((parts) => parts.join(''));
const toolName = fc.oneof(
  fc.constantFrom(...TOOLS, 'SEARCH', 'Search', 'unknown', 'finish', 'Finish', 'none', 'search2', 'x'),
  word,
);

/** Mostly plain turns, with noise in every slot the fast path checks. */
const turn = fc
  .record({
    thoughtLabel: fc.constantFrom('Thought: ', 'Thought:', 'thought: ', '**Thought:** ', 'Thought 1: '),
    thought: fc.oneof(word, noisy),
    actionLabel: fc.constantFrom('\nAction: ', '\nAction:', '\naction: ', '\nAction 1: ', '\n**Action:** '),
    tool: toolName,
    open: fc.constantFrom('[', '[', '[', '(', ' ['),
    input: fc.oneof(word, noisy, fc.constantFrom('"quoted"', "'q'", '`code`', '  padded  ', '{"a": 1}', '')),
    close: fc.constantFrom(']', ']', ']', ')', ''),
    after: fc.oneof(fc.constantFrom('', '\n', '  ', '\n\n', ' \t\n'), noisy),
  })
  .map(
    (t) => `${t.thoughtLabel}${t.thought}${t.actionLabel}${t.tool}${t.open}${t.input}${t.close}${t.after}`,
  );

/** Plain turns, each with at most one slot made edgy. */
const slots = ['thought', 'tool', 'input', 'after'] as const;
const plainish = fc
  .record({
    thought: word,
    tool: fc.constantFrom(...TOOLS, 'Search', 'LOOKUP'),
    input: fc.oneof(word, fc.constantFrom('"Ada Lovelace"', "'x'", ' 20 * 7 ', '')),
    after: fc.constantFrom('', '\n', ' \t\n'),
    edgy: fc.option(fc.record({ slot: fc.constantFrom(...slots), value: fc.oneof(edgy, noisy) })),
  })
  .map((t) => {
    const parts: Record<(typeof slots)[number], string> = {
      thought: t.thought,
      tool: t.tool,
      input: t.input,
      after: t.after,
    };
    if (t.edgy) parts[t.edgy.slot] = `${parts[t.edgy.slot]}${t.edgy.value}`;
    return `Thought: ${parts.thought}\nAction: ${parts.tool}[${parts.input}]${parts.after}`;
  });

const optionSets = [
  { tools: TOOLS },
  { tools: TOOLS, finishReason: 'length' },
  { tools: TOOLS, labels: mergeLabels(PORTUGUESE_LABELS) },
  { tools: TOOLS, labels: FRENCH_LABELS },
  {},
];

test('the fast path gives the full parser turn, on plain and noisy turns', () => {
  let fast = 0;
  let runs = 0;
  fc.assert(
    fc.property(fc.oneof(plainish, turn, noisy), fc.constantFrom(...optionSets), (text, options) => {
      runs++;
      if (plainAction(text, labelIndex(options.labels ?? ENGLISH_LABELS), options.tools)) fast++;
      assert.deepStrictEqual(parseTurn(text, options), parseFull(text, options));
    }),
    { numRuns: 20_000 },
  );
  // The generator must reach the fast path often, or this test would prove nothing about it.
  assert.ok(fast > runs * 0.05, `the fast path took ${fast} of ${runs} texts`);
});

test('the fast path takes the plain turns (same result, and it is taken)', () => {
  const plain = 'Thought: I need the total.\nAction: calculator[20 * 12 * 7]\n';
  const expected = { thought: 'I need the total.', type: 'action', tool: 'calculator', input: '20 * 12 * 7' };
  assert.deepStrictEqual(parseTurn(plain, { tools: TOOLS }), expected);
  assert.deepStrictEqual(parseFull(plain, { tools: TOOLS }), expected);
  // Key order too: traces are JSON.
  assert.equal(JSON.stringify(parseTurn(plain, { tools: TOOLS })), JSON.stringify(expected));
  assert.equal(
    parseTurn('Thought: go\nAction: Search["Ada Lovelace"]', { tools: TOOLS }).type === 'action' &&
      JSON.stringify(parseTurn('Thought: go\nAction: Search["Ada Lovelace"]', { tools: TOOLS })),
    JSON.stringify({ thought: 'go', type: 'action', tool: 'search', input: 'Ada Lovelace' }),
  );
});
