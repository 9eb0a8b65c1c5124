/**
 * Parser kinds from issue 16: several actions in one turn (only the first runs, the rest is reported),
 * a tool name of several words in the two-line form, and a whole step inside `<think>`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseTurn, readTurn } from '../../src/react/parse.js';
import { describeIgnored } from '../../src/react/problems.js';
import { readReply } from '../../src/react/reply.js';

const tools = ['search', 'lookup', 'google_search'];

describe('several actions in one turn', () => {
  test('the first action is the turn; later actions and the text after it are reported', () => {
    const text = 'Thought: look both up\nAction: search[a]\nAction: search[b]\nAction: lookup[c]';
    const read = readTurn(text, { tools });
    assert.deepEqual(read.turn, {
      type: 'action',
      tool: 'search',
      input: 'a',
      thought: 'look both up',
      ignoredText: 'Action: search[b]\nAction: lookup[c]',
      ignoredActions: ['search[b]', 'lookup[c]'],
    });
    assert.equal(read.source.slice(0, read.end), 'Thought: look both up\nAction: search[a]');
  });

  test('calls written on one line after the first: the transcript ends at its bracket', () => {
    const read = readTurn('Thought: t\nAction: search[a] search[b] lookup[c]', { tools });
    assert.equal(read.turn.type === 'action' && read.turn.input, 'a');
    assert.deepEqual(read.turn.type === 'action' && read.turn.ignoredActions, ['search[b]', 'lookup[c]']);
    assert.equal(read.source.slice(0, read.end), 'Thought: t\nAction: search[a]');
  });

  test('words after the action are ignored text; closing markup is not', () => {
    const read = readTurn('Thought: t\nAction: search[a]\nThen I will compare.', { tools });
    assert.equal(read.turn.type === 'action' && read.turn.ignoredText, 'Then I will compare.');
    assert.equal(read.turn.type === 'action' && read.turn.ignoredActions, undefined);
    const bold = readTurn('Thought: t\n**Action: search[a]**', { tools });
    assert.equal(bold.turn.type === 'action' && bold.turn.ignoredText, undefined);
    assert.equal(bold.source.slice(0, bold.end), 'Thought: t\n**Action: search[a]**');
  });

  test('the note says what was not run and why', () => {
    assert.equal(
      describeIgnored('Action: search[b]', ['search[b]']),
      '(Only the first action runs each step; `search[b]` was not run.)',
    );
    assert.equal(
      describeIgnored('x', ['search[b]', 'lookup[c]']),
      '(Only the first action runs each step; `search[b]`, `lookup[c]` were not run.)',
    );
    assert.match(
      describeIgnored('Then I will compare.') ?? '',
      /the text after it was ignored: "Then I will compare\."/,
    );
    assert.equal(describeIgnored(undefined), undefined);
  });

  test('an invented observation after the action is not "ignored text": it is dropped as before', () => {
    const read = readReply('Thought: t\nAction: search[a]\nObservation: made up\nAction: search[b]', {
      tools,
    });
    assert.equal(read.turn.type === 'action' && read.turn.ignoredText, undefined);
    assert.equal(read.turn.inventedObservation, true);
  });
});

describe('the held-out kinds', () => {
  test('a tool name of several words in the two-line Action / Action Input form', () => {
    assert.deepEqual(parseTurn('Thought: t\nAction: Google Search\nAction Input: Paris', { tools }), {
      type: 'action',
      tool: 'google_search',
      input: 'Paris',
      thought: 't',
    });
    // Not a listed tool: still an action, so the model is told the tool is unknown and what to use.
    assert.deepEqual(parseTurn('Action: Wikipedia Lookup Tool\nAction Input: Paris', { tools }), {
      type: 'action',
      tool: 'Wikipedia Lookup Tool',
      input: 'Paris',
    });
    // On a bracket line, words before the bracket are still prose.
    const prose = parseTurn('Action: I will search[x]', { tools });
    assert.equal(prose.type === 'none' && prose.kind, 'unknown-syntax');
  });

  test('a whole step written inside <think> with nothing after it', () => {
    const text = '<think>\nThought: I need the capital.\nAction: search[France]\n</think>';
    const read = readTurn(text, { tools });
    assert.deepEqual(read.turn, {
      type: 'action',
      tool: 'search',
      input: 'France',
      thought: 'I need the capital.',
    });
    assert.equal(read.source.slice(0, read.end), 'Thought: I need the capital.\nAction: search[France]');
    assert.equal(read.reasoning, 'Thought: I need the capital.\nAction: search[France]');
    const answer = parseTurn('<think>Thought: easy.\nAnswer: Paris</think>\n\n');
    assert.deepEqual(answer, { type: 'answer', text: 'Paris', thought: 'easy.' });
  });

  test('think content is the reasoning, never the transcript', () => {
    const read = readTurn('<think>plan: search</think>\nThought: t\nAction: search[x]', { tools });
    assert.equal(read.reasoning, 'plan: search');
    assert.equal(read.source.slice(0, read.end).trim(), 'Thought: t\nAction: search[x]');
  });
});
