import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  FRENCH_LABELS,
  INDONESIAN_LABELS,
  LABEL_SETS,
  mergeLabels,
  PORTUGUESE_LABELS,
} from '../../src/react/labels.js';
import { findInventedObservation, type ParseOptions, parseTurn } from '../../src/react/parse.js';
import type { Turn } from '../../src/react/turn.js';

/** Asserts a `none` turn of `kind` and returns its problem text. */
function problemOf(turn: Turn, kind: string): string {
  assert.equal(turn.type, 'none', JSON.stringify(turn));
  assert.ok(turn.type === 'none');
  assert.equal(turn.kind, kind, turn.problem);
  return turn.problem;
}

function action(text: string, options?: ParseOptions) {
  const turn = parseTurn(text, options);
  assert.equal(turn.type, 'action', JSON.stringify(turn));
  assert.ok(turn.type === 'action');
  return turn;
}

describe('seed cases (issue 2)', () => {
  test('thought then bracket action', () => {
    assert.deepEqual(parseTurn('Thought: I need the total.\nAction: calculator[20 * 12 * 7]'), {
      type: 'action',
      tool: 'calculator',
      input: '20 * 12 * 7',
      thought: 'I need the total.',
    });
  });
  test('thought then answer', () => {
    assert.deepEqual(parseTurn('Thought: Done.\nAnswer: $1,680 per year'), {
      type: 'answer',
      text: '$1,680 per year',
      thought: 'Done.',
    });
  });
  test('an invented observation is dropped and flagged', () => {
    assert.deepEqual(parseTurn('Action: calculator[2 + 2]\nObservation: 5'), {
      type: 'action',
      tool: 'calculator',
      input: '2 + 2',
      inventedObservation: true,
    });
  });
  test('prose without labels is none', () => {
    problemOf(parseTurn('I think it is about $1,600.'), 'no-labels');
  });
});

describe('labels', () => {
  test('markdown emphasis around labels', () => {
    for (const text of [
      '**Thought:** t\n**Action:** search[x]',
      '__Thought__: t\n__Action__: search[x]',
      '*Thought*: t\n*Action*: search[x]',
      '**Thought**: t\n**Action**: search[x]',
      '### Thought: t\n- Action: search[x]',
    ]) {
      assert.deepEqual(parseTurn(text), { type: 'action', tool: 'search', input: 'x', thought: 't' }, text);
    }
  });
  test('any case, full-width colon, space before the colon, step numbers', () => {
    for (const text of [
      'THOUGHT: t\naction: search[x]',
      'Thought： t\nAction：search[x]',
      'Thought : t\nAction : search[x]',
      'Thought 2: t\nAction 2: search[x]',
      '**Thought 3**: t\n**Action 3:** search[x]',
    ]) {
      assert.deepEqual(parseTurn(text), { type: 'action', tool: 'search', input: 'x', thought: 't' }, text);
    }
  });
  test('the value may start on the next line', () => {
    assert.deepEqual(parseTurn('Thought:\nI will look.\nAction:\nsearch[x]'), {
      type: 'action',
      tool: 'search',
      input: 'x',
      thought: 'I will look.',
    });
  });
  test('a label word inside a sentence is not a label', () => {
    problemOf(parseTurn('I will take the Action: search[x] next.'), 'no-labels');
    const turn = parseTurn('Thought: my next Action: search[x]');
    assert.equal(problemOf(turn, 'no-action').length > 0, true);
    assert.equal(turn.thought, 'my next Action: search[x]');
  });
  test('answer labels: Answer, Final Answer, FinalAnswer, Final_Answer', () => {
    for (const label of [
      'Answer',
      'Final Answer',
      'FinalAnswer',
      'Final_Answer',
      'final answer',
      '**Final Answer:**',
    ]) {
      const colon = label.endsWith(':**') ? '' : ':';
      assert.deepEqual(parseTurn(`Thought: t\n${label}${colon} Paris`), {
        type: 'answer',
        text: 'Paris',
        thought: 't',
      });
    }
  });
  test('a multi-line answer keeps its code fence exactly', () => {
    const text = 'Thought: t\nAnswer: Use this:\n```js\nconst a = [1];\n// Action: not a label\n```\nDone.';
    assert.deepEqual(parseTurn(text), {
      type: 'answer',
      text: 'Use this:\n```js\nconst a = [1];\n// Action: not a label\n```\nDone.',
      thought: 't',
    });
  });
});

describe('action syntaxes', () => {
  test('two-line form: Action then Action Input', () => {
    assert.deepEqual(parseTurn('Thought: t\nAction: search\nAction Input: "Paris"'), {
      type: 'action',
      tool: 'search',
      input: 'Paris',
      thought: 't',
    });
    const fenced = action('Action: api\nAction Input:\n```json\n{"a": 1}\n```');
    assert.equal(fenced.input, '{"a": 1}');
  });
  test('tool(input) on the Action line', () => {
    assert.equal(action('Action: calculator((1 + 2) * 3)').input, '(1 + 2) * 3');
    assert.equal(action('Action: search("Paris")').input, 'Paris');
  });
  test('finish[...] in any case, with or without Action:, is the answer', () => {
    assert.deepEqual(parseTurn('Thought 2: t\nAction 2: Finish[SUPPORTS]'), {
      type: 'answer',
      text: 'SUPPORTS',
      thought: 't',
    });
    assert.deepEqual(parseTurn('Thought: t\nfinish[42]'), { type: 'answer', text: '42', thought: 't' });
    assert.deepEqual(parseTurn('FINISH(yes)'), { type: 'answer', text: 'yes' });
    assert.deepEqual(parseTurn('Action: finish\nAction Input: 7'), { type: 'answer', text: '7' });
  });
  test('nested brackets are balanced and newlines kept', () => {
    assert.equal(
      action('Action: lookup[The Dark Tower (2017 film) [disambiguation]]').input,
      'The Dark Tower (2017 film) [disambiguation]',
    );
    const code = action('Action: python[\n    for i in [1, 2]:\n        print(i)\n]').input;
    assert.equal(code, '    for i in [1, 2]:\n        print(i)');
  });
  test('a JSON input is taken whole, brackets inside its strings ignored', () => {
    assert.equal(action('Action: api[{"q": "a]b", "n": [1, 2]}]').input, '{"q": "a]b", "n": [1, 2]}');
    assert.equal(action('Action: api[["x]", "y"]]').input, '["x]", "y"]');
    assert.equal(action('Action: api({"q": ")"})').input, '{"q": ")"}');
  });
  test('one pair of wrapping quotes or backticks is removed', () => {
    assert.equal(action("Action: search['Paris']").input, 'Paris');
    assert.equal(action('Action: search[`ls -la`]').input, 'ls -la');
    assert.equal(action('Action: search["a" and "b"]').input, '"a" and "b"');
  });
  test('a code fence inside an input is kept exactly', () => {
    const input = action('Thought: t\nAction: write[\n```py\nprint([1])\n```\n]').input;
    assert.equal(input, '```py\nprint([1])\n```');
  });
  test('text after the closing bracket is trailingText, not input', () => {
    const turn = action('Action: Lookup[The Dark Tower (2017 film)] on different website', {
      tools: ['lookup'],
    });
    assert.deepEqual(turn, {
      type: 'action',
      tool: 'lookup',
      input: 'The Dark Tower (2017 film)',
      trailingText: 'on different website',
      ignoredText: 'on different website',
    });
    // Closing markup is not trailing text.
    assert.equal(action('Action: `search[x]`.').trailingText, undefined);
    assert.equal(action('**Action:** **search[x]**').trailingText, undefined);
  });
  test('an unclosed bracket runs to the next label (reply not cut off)', () => {
    assert.equal(action('Action: search[Paris').input, 'Paris');
    problemOf(parseTurn('Action: search[Paris\nAnswer: x'), 'action-and-answer');
  });
  test('tool names resolve: exact, case-insensitive, then without backticks, quotes and escapes', () => {
    const tools = ['search', 'run_tests', 'Lookup'];
    assert.equal(action('Action: Search[x]', { tools }).tool, 'search');
    assert.equal(action('Action: LOOKUP[x]', { tools }).tool, 'Lookup');
    assert.equal(action('Action: run\\_tests[x]', { tools }).tool, 'run_tests');
    assert.equal(action('Action: `run_tests`[x]', { tools }).tool, 'run_tests');
    assert.equal(action('Action: "search"[x]', { tools }).tool, 'search');
    assert.equal(action('Action: Browse[x]', { tools }).tool, 'Browse', 'unknown tools pass through');
    assert.equal(action('Action: Search[x]').tool, 'Search', 'case kept without a tool list');
  });
  test('a bare action without brackets is unknown-syntax, even for a known tool', () => {
    const problem = problemOf(
      parseTurn('Thought: t\nAction: Login', { tools: ['search', 'lookup'] }),
      'unknown-syntax',
    );
    assert.match(problem, /"Login"/);
    assert.match(problem, /square brackets/);
    assert.match(problem, /Valid tools: search, lookup\./);
    const known = problemOf(parseTurn('Action: Search', { tools: ['search'] }), 'unknown-syntax');
    assert.match(known, /Write it as `Action: search\[input\]`/);
    assert.doesNotMatch(problem, /Write it as/);
    problemOf(parseTurn('Action: use the search[x]'), 'unknown-syntax');
  });
  test('when several actions are written, the first is taken', () => {
    assert.equal(action('Action: search[a]\nAction: search[b]').input, 'a');
  });
});

describe('invented observations', () => {
  test('every label form and language cuts the text', () => {
    for (const obs of [
      'Observation: 5',
      '**Observation 1:** 5',
      'OBSERVATION : 5',
      'Observação: 5',
      'Observasi: 5',
    ]) {
      const turn = action(`Thought: t\nAction: calc[2 + 2]\n${obs}\nThought: more`);
      assert.equal(turn.inventedObservation, true, obs);
      assert.equal(turn.input, '2 + 2');
    }
  });
  test('a trailing stop fragment is dropped too', () => {
    for (const tail of ['\nObserv', '\nObservation', '\nObs', '\n**Observation 2']) {
      const turn = action(`Action: search[x]${tail}`);
      assert.equal(turn.inventedObservation, true, tail);
      assert.equal(turn.trailingText, undefined);
    }
    assert.equal(action('Action: search[x]\nObviously').inventedObservation, undefined);
  });
  test('an answer that appears only after an invented observation is discarded', () => {
    const turn = action('Thought: t\nAction: search[x]\nObservation: Paris.\nThought: done\nAnswer: Paris');
    assert.deepEqual(turn, {
      type: 'action',
      tool: 'search',
      input: 'x',
      thought: 't',
      inventedObservation: true,
    });
  });
  test('an observation with nothing usable before it is no-action and says why', () => {
    const turn = parseTurn('Observation: I found it');
    assert.match(problemOf(turn, 'no-action'), /Observation yourself/);
    assert.equal(turn.inventedObservation, true);
  });
  test('findInventedObservation returns the line start in the original text', () => {
    const text = 'Thought: t\nAction: s[x]\nObservation: 1';
    assert.equal(findInventedObservation(text), text.indexOf('Observation'));
    assert.equal(findInventedObservation('Thought: t\nAction: s[x]\nObserv'), 24);
    assert.equal(findInventedObservation('Thought: t\nAction: s[x]'), -1);
    assert.equal(findInventedObservation('Obs'), -1, 'a first line is not a fragment');
    const thinking = '<think>Observation: no</think>\nAction: s[x]\nObservation: yes';
    assert.equal(findInventedObservation(thinking), thinking.lastIndexOf('Observation'));
    const fenced = '```\nAction: s[x]\nObservação: 1';
    assert.equal(findInventedObservation(fenced, PORTUGUESE_LABELS), fenced.indexOf('Observação'));
    assert.equal(findInventedObservation('Thought: t\n```\nObservation: in code\n```'), -1);
  });
});

describe('fences and think blocks', () => {
  test('one fence around the whole reply is unwrapped, closed or not', () => {
    const expected = { type: 'action', tool: 's', input: 'x', thought: 't' };
    assert.deepEqual(parseTurn('```\nThought: t\nAction: s[x]\n```'), expected);
    assert.deepEqual(parseTurn('```text\nThought: t\nAction: s[x]\n'), expected);
  });
  test('labels inside other fences are ignored', () => {
    const turn = parseTurn('Thought: an example:\n```\nAction: s[x]\n```');
    problemOf(turn, 'no-action');
    assert.equal(action('Thought: t\n~~~\nAnswer: no\n~~~\nAction: s[x]').tool, 's');
  });
  test('<think> blocks are removed first, also an unclosed leading one', () => {
    const expected = { type: 'action', tool: 's', input: 'x', thought: 't' };
    assert.deepEqual(
      parseTurn('<think>Answer: maybe\nObservation: no</think>\nThought: t\nAction: s[x]'),
      expected,
    );
    assert.deepEqual(parseTurn('reasoning, Answer: 3\n</think>\nThought: t\nAction: s[x]'), expected);
    problemOf(parseTurn('<think>still thinking, Action: s[x]'), 'reasoning-cut');
    problemOf(parseTurn('<think>still thinking', { finishReason: 'length' }), 'truncated');
  });
});

describe('thought', () => {
  test('runs to the next label and is trimmed', () => {
    assert.equal(action('Thought:   two\nlines  \n\nAction: s[x]').thought, 'two\nlines');
  });
  test('prose before the action is the thought when there is no Thought label', () => {
    assert.equal(action('I should search.\nAction: s[x]').thought, 'I should search.');
  });
  test('an empty Thought is omitted', () => {
    assert.equal('thought' in action('Thought:\nAction: s[x]'), false);
  });
});

describe('none turns with precise problems', () => {
  test('empty and whitespace replies', () => {
    problemOf(parseTurn(''), 'empty');
    problemOf(parseTurn(' \n\t '), 'empty');
  });
  test('an action and an answer in the same turn', () => {
    const problem = problemOf(parseTurn('Thought: t\nAction: search[x]\nAnswer: y'), 'action-and-answer');
    assert.match(problem, /both an Action and an Answer/);
    problemOf(parseTurn('Answer: y\nAction: search[x]'), 'action-and-answer');
    problemOf(parseTurn('Action: search[x]\nFinish[y]'), 'action-and-answer');
  });
  test('an action naming no tool', () => {
    for (const text of ['Action: None', 'Action: none', 'Action:', 'Action: [x]', 'Action: None[]']) {
      problemOf(parseTurn(`Thought: t\n${text}`), 'empty-action');
    }
  });
  test('Action: None followed by an answer is the answer', () => {
    assert.deepEqual(parseTurn('Thought: t\nAction: None\nFinal Answer: Paris'), {
      type: 'answer',
      text: 'Paris',
      thought: 't',
    });
  });
  test('a template placeholder answer', () => {
    for (const text of [
      'answer',
      'Your answer',
      '<answer>',
      'the final answer',
      '[your final answer here]',
      '...',
      '',
    ]) {
      problemOf(parseTurn(`Thought: t\nAnswer: ${text}`), 'placeholder-answer');
    }
    problemOf(parseTurn('Action: finish[]'), 'placeholder-answer');
    for (const text of ['A', 'Answer 42', 'The answer is 5.', 'Paris']) {
      assert.equal(parseTurn(`Answer: ${text}`).type, 'answer', text);
    }
  });
  test('a reply cut off at the token limit', () => {
    const length = { finishReason: 'length' };
    problemOf(parseTurn('Thought: I am still thinking about', length), 'truncated');
    problemOf(parseTurn('Thought: t\nAction: python[print(1', length), 'truncated');
    problemOf(parseTurn('Thought: t\nAction: sea', length), 'truncated');
    problemOf(parseTurn('Thought: t\nAnswer: The capital of', length), 'truncated');
    // Complete parts are kept: a closed bracket, or an answer followed by more text.
    assert.equal(action('Thought: t\nAction: s[x]\nThought: and then', length).input, 'x');
    assert.equal(parseTurn('Answer: Paris\nQuestion: next one', length).type, 'answer');
    assert.equal(parseTurn('Answer: Paris', { finishReason: 'stop' }).type, 'answer');
  });
  test('a Thought with no Action or Answer', () => {
    assert.match(problemOf(parseTurn('Thought: I should search.'), 'no-action'), /no Action and no Answer/);
  });
  test('the problem shows the expected format in the configured labels and the tools', () => {
    const problem = problemOf(parseTurn('hello', { tools: ['search', 'lookup'] }), 'no-labels');
    assert.match(problem, /`Thought: \.\.\.` and on the next line `Action: tool\[input\]`/);
    assert.match(problem, /`Answer: \.\.\.`/);
    assert.match(problem, /Valid tools: search, lookup\./);
    assert.doesNotMatch(problem, /\n/, 'no label lines inside the problem');
    const pt = problemOf(parseTurn('olá', { labels: PORTUGUESE_LABELS }), 'no-labels');
    assert.match(pt, /`Pensamento: \.\.\.` and on the next line `Ação: tool\[input\]`/);
    assert.match(pt, /`Resposta: \.\.\.`/);
  });
});

describe('languages', () => {
  test('Portuguese, with and without accents', () => {
    const labels = PORTUGUESE_LABELS;
    assert.deepEqual(parseTurn('Pensamento: t\nAção: busca[x]', { labels }), {
      type: 'action',
      tool: 'busca',
      input: 'x',
      thought: 't',
    });
    assert.equal(
      action('Pensamento: t\nAcao: busca[x]\nObservacao: y', { labels }).inventedObservation,
      true,
    );
    assert.deepEqual(parseTurn('Pensamento: t\nResposta: Lisboa', { labels }), {
      type: 'answer',
      text: 'Lisboa',
      thought: 't',
    });
    assert.equal(action('Ação: busca\nEntrada da Ação: x', { labels }).input, 'x');
  });
  test('French, with typographic spaces before the colon', () => {
    const labels = FRENCH_LABELS;
    assert.deepEqual(parseTurn('Réflexion : t\nAction : recherche[x]', { labels }), {
      type: 'action',
      tool: 'recherche',
      input: 'x',
      thought: 't',
    });
    assert.equal(parseTurn('Pensée : t\nRéponse : Paris', { labels }).type, 'answer');
    assert.equal(parseTurn('Reflexion: t\nReponse finale: Paris', { labels }).type, 'answer');
  });
  test('Indonesian, and English labels mixed with Jawaban', () => {
    const labels = INDONESIAN_LABELS;
    assert.equal(action('Pikiran: t\nTindakan: cari[x]\nObservasi: y', { labels }).tool, 'cari');
    assert.deepEqual(parseTurn('Thought: t\nJawaban: Jakarta', { labels }), {
      type: 'answer',
      text: 'Jakarta',
      thought: 't',
    });
    assert.equal(action('Thought: t\nAction: cari[x]', { labels }).tool, 'cari');
  });
  test('English is always accepted; other languages only when configured', () => {
    assert.equal(parseTurn('Pensamento: t\nResposta: x', { labels: PORTUGUESE_LABELS }).type, 'answer');
    problemOf(parseTurn('Pensamento: t\nResposta: x'), 'no-labels');
  });
  test('LABEL_SETS and mergeLabels', () => {
    assert.deepEqual(Object.keys(LABEL_SETS).sort(), ['en', 'fr', 'id', 'pt']);
    const merged = mergeLabels(INDONESIAN_LABELS);
    assert.equal(merged.answer[0], 'Jawaban');
    assert.ok(merged.answer.includes('Final Answer'));
    assert.ok(merged.thought.includes('Thought'));
    assert.equal(new Set(mergeLabels(LABEL_SETS.en).answer).size, mergeLabels(LABEL_SETS.en).answer.length);
  });
});

test('a plain turn reads as thought, type, tool, input: key order included, as traces are JSON', () => {
  const tools = ['search', 'calculator'];
  const plain = parseTurn('Thought: I need the total.\nAction: calculator[20 * 12 * 7]\n', { tools });
  assert.equal(
    JSON.stringify(plain),
    JSON.stringify({
      thought: 'I need the total.',
      type: 'action',
      tool: 'calculator',
      input: '20 * 12 * 7',
    }),
  );
  const named = parseTurn('Thought: go\nAction: Search["Ada Lovelace"]', { tools });
  assert.equal(
    JSON.stringify(named),
    JSON.stringify({ thought: 'go', type: 'action', tool: 'search', input: 'Ada Lovelace' }),
  );
});
