import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { runAgent, streamAgent } from '../../src/agent/loop.js';
import type { AgentEvent } from '../../src/agent/types.js';
import { resolveModelSpec } from '../../src/models/spec.js';
import { parseExamples } from '../../src/react/examples.js';
import { PORTUGUESE_LABELS } from '../../src/react/labels.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import type { Tool } from '../../src/tools/types.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { waitFor } from '../helpers/wait.js';

const lookup: Tool = { name: 'lookup', description: 'Looks up.', run: () => 'nothing new' };

test('a repeated action with the same observation gets a note, and the 4th identical call stops the run', async () => {
  const act = 'Thought: again\nAction: lookup[x]';
  const model = scriptedModel([act, act, act, act]);
  const result = await runAgent({ model, question: 'q', tools: [lookup] });
  model.assertAllUsed();
  assert.equal(result.status, 'repeated_action');
  assert.equal(result.steps[0]!.observation?.text, 'nothing new');
  assert.match(
    result.steps[1]!.observation?.text ?? '',
    /^nothing new\n\(You already ran lookup\[x\] and got this same result/,
  );
  assert.equal(result.answer, undefined);
});

test('a repeated action whose observation changed is not a repeat', async () => {
  let n = 0;
  const counter: Tool = { name: 'count', description: 'Counts.', run: () => String(++n) };
  const act = 'Thought: t\nAction: count[]';
  const model = scriptedModel([act, act, act, act, act, 'Thought: t\nAnswer: 5']);
  const result = await runAgent({ model, question: 'q', tools: [counter] });
  assert.equal(result.status, 'answered');
  assert.ok(result.steps.every((s) => !s.observation?.text.includes('already ran')));
});

test('the loop emits an event when it drops an invented observation', async () => {
  const model = scriptedModel([
    'Thought: t\nAction: calculator[2 + 2]\nObservation: 5',
    'Thought: t\nAnswer: 4',
  ]);
  const events: AgentEvent[] = [];
  for await (const event of streamAgent({ model, question: 'q', tools: [calculator] })) events.push(event);
  const dropped = events.find((e) => e.type === 'invented-observation');
  assert.deepEqual(dropped, { type: 'invented-observation', step: 1, droppedText: 'Observation: 5' });
});

test('a provider that rejects stop sequences is called again without them, and the cut still applies', async () => {
  const server = await startFakeOpenAI({
    rejectStop: true,
    ignoreStop: true,
    replies: ['Thought: add\nAction: calculator[2 + 2]\nObservation: 5\nAnswer: 5', 'Thought: ok\nAnswer: 4'],
  });
  try {
    const model = await resolveModelSpec(`openai-compatible:${server.baseURL}#reasoner`, {});
    const result = await runAgent({
      model,
      question: 'q',
      tools: [calculator],
      modelSettings: { streaming: false },
    });
    assert.equal(result.status, 'answered');
    assert.equal(result.answer, '4');
    assert.equal(result.steps[0]!.observation?.text, '4');
    // First call with stop (rejected), then without; the second step does not try stop again.
    assert.deepEqual(
      server.requests.map((r) => r.stop !== undefined),
      [true, false, false],
    );
  } finally {
    await server.close();
  }
});

test('streaming from a server that ignores stop: reading stops at the invented observation', async () => {
  const tail = '\nThought: It is five.\nAnswer: 5'.repeat(40);
  const server = await startFakeOpenAI({
    ignoreStop: true,
    chunkDelayMs: 2,
    replies: [`Thought: add\nAction: calculator[2 + 2]\nObservation: 5${tail}`, 'Thought: ok\nAnswer: 4'],
  });
  try {
    const model = await resolveModelSpec(`openai-compatible:${server.baseURL}#chatty`, {});
    let streamed = '';
    for await (const event of streamAgent({ model, question: 'q', tools: [calculator] })) {
      if (event.type === 'model-delta' && event.step === 1) streamed += event.text;
    }
    assert.ok(
      streamed.length < 80,
      `read ${streamed.length} characters of a ${tail.length + 50}-character reply`,
    );
    await waitFor('the first request to be cancelled', () => server.abandonedStreams === 1);
  } finally {
    await server.close();
  }
});

test('when the transcript outgrows the context window, the oldest observations after the first findings are shortened', async () => {
  const big: Tool = {
    name: 'fetch_page',
    description: 'Returns a long page.',
    maxInputChars: 10,
    maxOutputChars: 10_000,
    run: (p) => `${p}:${'x'.repeat(4000)}`,
  };
  const turns = ['1', '2', '3'].map((p) => `Thought: read page ${p}\nAction: fetch_page[${p}]`);
  const model = scriptedModel([...turns, 'Thought: done\nAnswer: ok']);
  const result = await runAgent({
    model,
    question: 'Summarise the pages.',
    tools: [big],
    prompt: { contextWindowTokens: 4000 },
  });
  assert.equal(result.status, 'answered');
  const last = model.requests[3]!.messages;
  assert.equal(last[0]!.role, 'system');
  assert.match(last[0]!.content, /fetch_page\[input\]/);
  assert.equal(last[1]!.content, 'Question: Summarise the pages.');
  const observations = last.filter((m) => m.content.startsWith('Observation:')).map((m) => m.content);
  assert.match(
    observations[0]!,
    /^Observation: 1:x{4000}$/,
    'the first findings (within half the budget) are kept',
  );
  assert.match(
    observations[1]!,
    /^Observation: \[observation shortened to fit the context window: 4002 characters\]$/,
  );
  assert.match(observations[2]!, /^Observation: 3:x{4000}$/, 'the latest observation is kept whole');
  // The trace keeps everything.
  assert.equal(result.steps[0]!.observation?.text.length, 4002);
});

test("few-shot examples from the paper's prompt file are rendered in the run's labels", async () => {
  const prompts = JSON.parse(
    readFileSync(new URL('../fixtures/react-prompts-sample.json', import.meta.url), 'utf8'),
  ) as Record<string, string>;
  const { examples } = parseExamples(prompts.webthink_simple!);
  assert.equal(examples.length, 2);
  assert.equal(examples[0]!.steps[0]!.action?.tool, 'search');
  const model = scriptedModel(['Pensamento: sei.\nResposta: 1,800 a 7,000 pés']);
  const result = await runAgent({
    model,
    question: 'q',
    tools: [lookup],
    prompt: { labels: PORTUGUESE_LABELS, examples },
  });
  assert.equal(result.answer, '1,800 a 7,000 pés');
  const system = model.requests[0]!.messages[0]!.content;
  assert.match(system, /^Pergunta: What is the elevation range/m);
  assert.match(system, /^Pensamento: I need to search Colorado orogeny/m);
  assert.match(system, /^Ação: search\[Colorado orogeny\]$/m);
  assert.match(system, /^Observação: The Colorado orogeny was/m);
  assert.match(system, /^Ação: finish\[1,800 to 7,000 ft\]$/m);
  assert.deepEqual(model.requests[0]!.stopSequences, ['\nObservação:', '\nObservation:']);
});
