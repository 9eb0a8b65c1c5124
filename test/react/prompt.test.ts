import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderMessages, renderSystemPrompt, stopSequences } from '../../src/react/prompt.js';

test('the system prompt lists every tool as name[input]: description and the exact format', () => {
  const prompt = renderSystemPrompt({
    tools: [
      { name: 'calculator', description: 'Evaluates arithmetic.', inputHint: 'expression' },
      { name: 'search', description: 'Searches the documents.' },
    ],
  });
  assert.match(prompt, /^- calculator\[expression\]: Evaluates arithmetic\.$/m);
  assert.match(prompt, /^- search\[input\]: Searches the documents\.$/m);
  assert.match(prompt, /^Thought: .*\nAction: tool_name\[input\]$/m);
  assert.match(prompt, /^Answer: /m);
  assert.match(prompt, /Action: finish\[/);
  assert.match(prompt, /then stop/);
  assert.match(prompt, /Do not write "Observation:" yourself/);
});

test('instructions and examples are appended', () => {
  const prompt = renderSystemPrompt({
    tools: [],
    instructions: 'Answer in euros.',
    examples: 'Question: x\nThought: y',
  });
  assert.ok(prompt.indexOf('Answer in euros.') < prompt.indexOf('Question: x'));
});

test('messages alternate model turns and real observations after the question', () => {
  const messages = renderMessages({
    systemPrompt: 'SYS',
    question: 'How much?',
    entries: [
      { modelText: 'Thought: a\nAction: search[price]', observation: '$20' },
      { modelText: 'Thought: b' },
    ],
  });
  assert.deepEqual(messages, [
    { role: 'system', content: 'SYS' },
    { role: 'user', content: 'Question: How much?' },
    { role: 'assistant', content: 'Thought: a\nAction: search[price]' },
    { role: 'user', content: 'Observation: $20' },
    { role: 'assistant', content: 'Thought: b' },
  ]);
});

test('the stop sequence is the Observation label at a line start', () => {
  assert.deepEqual(stopSequences(), ['\nObservation:']);
});

test('the prompt is written in the label set language, labels and prose alike', async () => {
  const { LABEL_SETS } = await import('../../src/react/labels.js');
  const tools = [{ name: 'search', description: 'Searches.' }];
  const pt = renderSystemPrompt({ tools, labels: LABEL_SETS.pt });
  assert.match(pt, /^Você responde à pergunta alternando raciocínio e ações\.$/m);
  assert.match(pt, /^Ação: nome_da_ferramenta\[entrada\]$/m);
  assert.match(pt, /Não escreva "Observação:" você mesmo/);
  const fr = renderSystemPrompt({ tools, labels: LABEL_SETS.fr });
  assert.match(fr, /^Réflexion: ce que vous savez/m);
  assert.match(fr, /^Règles :$/m);
  const id = renderSystemPrompt({ tools, labels: LABEL_SETS.id });
  assert.match(id, /^Tindakan: nama_alat\[masukan\]$/m);
  assert.match(id, /Jangan menulis "Observasi:" sendiri/);
  assert.doesNotMatch(
    pt + fr + id,
    /\{(thought|action|answer|observation|finish)\}/,
    'every placeholder filled',
  );
});
