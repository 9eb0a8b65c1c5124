import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseExamples, renderExamples } from '../../src/react/examples.js';
import { FRENCH_LABELS } from '../../src/react/labels.js';
import { renderSystemPrompt } from '../../src/react/prompt.js';
import { skipUnless } from '../helpers/require.js';

const SHARED = new URL('../../../shared/react-data/prompts/', import.meta.url);

test('parses ReAct, Act and CoT examples in the paper format', () => {
  const text = [
    'Question: Is 2 + 2 four?',
    'Thought 1: I should check.',
    'Action 1: Search[2 + 2]',
    'Observation 1: 4',
    'Thought 2: It is.',
    'Action 2: Finish[yes]',
    'Question: What is 3 + 3?',
    'Action 1: Search[3 + 3]',
    'Observation 1: 6',
    'Action 2: Finish[6]',
    'Question: Who?',
    "Thought: Let's think step by step. Nobody.",
    'Answer: nobody',
  ].join('\n');
  const { preamble, examples } = parseExamples(text);
  assert.equal(preamble, '');
  assert.deepEqual(examples[0], {
    question: 'Is 2 + 2 four?',
    steps: [
      { thought: 'I should check.', action: { tool: 'search', input: '2 + 2' }, observation: '4' },
      { thought: 'It is.', action: { tool: 'finish', input: 'yes' } },
    ],
  });
  assert.deepEqual(examples[1]!.steps, [
    { action: { tool: 'search', input: '3 + 3' }, observation: '6' },
    { action: { tool: 'finish', input: '6' } },
  ]);
  assert.deepEqual(examples[2]!.steps, [{ thought: "Let's think step by step. Nobody.", answer: 'nobody' }]);
});

test('renders examples with another label set', () => {
  const { examples } = parseExamples(
    'Question: q\nThought 1: t\nAction 1: Search[x]\nObservation 1: o\nAction 2: Finish[a]',
  );
  assert.equal(
    renderExamples(examples, FRENCH_LABELS),
    'Question: q\nRéflexion: t\nAction: search[x]\nObservation: o\nAction: finish[a]',
  );
});

test('the system prompt can keep English labels and ask for content in another language', () => {
  const prompt = renderSystemPrompt({ tools: [], contentLanguage: 'Portuguese' });
  assert.match(
    prompt,
    /Write the content of each Thought and the Answer in Portuguese; keep the labels as shown\./,
  );
  assert.match(prompt, /^Thought: /m);
});

test("every prompt in the paper's files parses into complete examples", {
  skip: skipUnless(existsSync(SHARED), '../shared/react-data'),
}, () => {
  const naive = JSON.parse(readFileSync(new URL('prompts_naive.json', SHARED), 'utf8')) as Record<
    string,
    string
  >;
  const fever = JSON.parse(readFileSync(new URL('fever.json', SHARED), 'utf8')) as Record<string, string>;
  assert.equal(parseExamples(naive.webthink_simple6!).examples.length, 6);
  assert.equal(parseExamples(naive.cotqa_simple6!).examples.length, 6);
  const feverReact = parseExamples(fever.webthink_simple3!);
  assert.match(feverReact.preamble, /^Determine if there is Observation that SUPPORTS or REFUTES a Claim/);
  assert.equal(feverReact.examples.length, 3);
  for (const key of ['webthink_simple6', 'webact_simple6']) {
    for (const example of parseExamples(naive[key]!).examples) {
      const last = example.steps.at(-1)!;
      assert.equal(last.action?.tool, 'finish', `${key}: ${example.question}`);
    }
  }
});
