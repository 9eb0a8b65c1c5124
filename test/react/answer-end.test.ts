/**
 * Where an answer ends (issue 28's mutation sample): a model that goes on after its answer with a new
 * `Question:` (or `Thought:`) has started the next example, which is not part of the answer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTurn } from '../../src/react/parse.js';

test('a Question line after an answer ends the answer', () => {
  const turn = parseTurn(
    'Thought: I know it.\nAnswer: Paris\nQuestion: What is the capital of Spain?\nThought: Madrid.',
  );
  assert.deepEqual(turn, { type: 'answer', thought: 'I know it.', text: 'Paris' });
});

test('an answer keeps its own lines, even one that starts with the word "Questions"', () => {
  assert.equal(
    (parseTurn('Thought: t\nAnswer: Paris is the capital\nof France.') as { text: string }).text,
    'Paris is the capital\nof France.',
  );
  assert.equal(
    (parseTurn('Thought: t\nAnswer: Paris\nQuestions remain open.') as { text: string }).text,
    'Paris\nQuestions remain open.',
  );
});
