import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runAgent, streamAgent } from '../../src/agent/loop.js';
import type { AgentEvent } from '../../src/agent/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import type { Tool } from '../../src/tools/types.js';

const priceSearch: Tool = {
  name: 'search',
  description: 'Searches the docs.',
  run: (q) =>
    /price/i.test(q) ? 'Brightgrid Pro costs $20 per month per developer.' : 'No matching document.',
};

const happyPath = [
  'Thought: I need the price per developer.\nAction: search[Brightgrid Pro price per developer]',
  'Thought: Now the yearly total for 7 developers.\nAction: calculator[20 * 12 * 7]',
  'Thought: The calculator gave the total.\nAnswer: $1,680 per year',
];

test('search, calculator, answer: the real observations go back to the model', async () => {
  const model = scriptedModel(happyPath);
  const result = await runAgent({
    model,
    question: 'Pro for 7 developers per year?',
    tools: [priceSearch, calculator],
  });
  model.assertAllUsed();
  assert.equal(result.status, 'answered');
  assert.equal(result.answer, '$1,680 per year');
  assert.deepEqual(
    result.steps.map((s) => s.observation?.text),
    ['Brightgrid Pro costs $20 per month per developer.', '1680', undefined],
  );
  const last = model.requests[2]!;
  assert.equal(last.temperature, 0);
  assert.deepEqual(last.stopSequences, ['\nObservation:']);
  const transcript = last.messages.map((m) => m.content).join('\n');
  assert.match(transcript, /Observation: Brightgrid Pro costs \$20 per month per developer\./);
  assert.match(transcript, /Observation: 1680/);
});

test('events arrive in order and the last one carries the result', async () => {
  const events: AgentEvent['type'][] = [];
  const run = streamAgent({
    model: scriptedModel(happyPath),
    question: 'q',
    tools: [priceSearch, calculator],
  });
  for await (const event of run) events.push(event.type);
  assert.deepEqual(events, [
    'run-start',
    ...['model-start', 'model-end', 'tool-start', 'tool-end', 'step-end'],
    ...['model-start', 'model-end', 'tool-start', 'tool-end', 'step-end'],
    ...['model-start', 'model-end', 'step-end'],
    'run-end',
  ]);
});

test('an unformatted reply is never the answer: the problem goes back and the model may retry', async () => {
  const model = scriptedModel(['I think it is about $1,600.', 'Thought: Let me compute.\nAnswer: $1,680']);
  const result = await runAgent({ model, question: 'q', tools: [calculator] });
  assert.equal(result.status, 'answered');
  assert.equal(result.answer, '$1,680');
  assert.equal(result.steps[0]!.turn.type, 'none');
  assert.equal(result.steps[0]!.observation?.source, 'format-error');
  const retryPrompt = model.requests[1]!.messages.at(-1)!.content;
  assert.match(retryPrompt, /^Observation: Format error: /);
});

test('two unusable turns in a row stop the run with format_errors', async () => {
  const model = scriptedModel(['I think it is about $1,600.', 'Probably $1,600.']);
  const result = await runAgent({ model, question: 'q', tools: [calculator] });
  model.assertAllUsed();
  assert.equal(result.status, 'format_errors');
  assert.equal(result.answer, undefined);
});

test('format errors do not use up the step limit', async () => {
  const act = 'Thought: t\nAction: calculator[1 + 1]';
  const model = scriptedModel([act, 'no labels', act, 'Thought: done\nAnswer: 2']);
  const result = await runAgent({ model, question: 'q', tools: [calculator], maxSteps: 3 });
  assert.equal(result.status, 'answered');
});

test('the step limit stops a run that never answers', async () => {
  const act = 'Thought: t\nAction: calculator[1 + 1]';
  const model = scriptedModel([act, act, act]);
  const result = await runAgent({ model, question: 'q', tools: [calculator], maxSteps: 3 });
  model.assertAllUsed();
  assert.equal(result.status, 'max_steps');
  assert.equal(result.steps.length, 3);
});

test('an invented observation is dropped from the transcript and the real one is used', async () => {
  const model = scriptedModel([
    'Thought: add.\nAction: calculator[2 + 2]\nObservation: 5\nThought: so 5.\nAnswer: 5',
    'Thought: ok.\nAnswer: 4',
  ]);
  const result = await runAgent({ model, question: 'q', tools: [calculator] });
  assert.equal(result.answer, '4');
  assert.equal(result.steps[0]!.turn.inventedObservation, true);
  const sent = model.requests[1]!.messages.map((m) => m.content);
  assert.deepEqual(sent.slice(2), ['Thought: add.\nAction: calculator[2 + 2]', 'Observation: 4']);
});

test('a failing tool becomes an observation and the loop goes on', async () => {
  const broken: Tool = {
    name: 'broken',
    description: 'Fails.',
    run: () => {
      throw new Error('no disk');
    },
  };
  const model = scriptedModel(['Thought: t\nAction: broken[x]', 'Thought: t\nAnswer: gave up']);
  const result = await runAgent({ model, question: 'q', tools: [broken] });
  assert.equal(result.steps[0]!.observation?.text, 'Error: no disk');
  assert.equal(result.status, 'answered');
});

test('a model error ends the run with status error and keeps the partial trajectory', async () => {
  const model = scriptedModel(['Thought: t\nAction: calculator[1 + 1]', new Error('HTTP 500 from provider')]);
  const result = await runAgent({ model, question: 'q', tools: [calculator] });
  assert.equal(result.status, 'error');
  assert.match(result.error ?? '', /HTTP 500 from provider/);
  assert.equal(result.steps.length, 1);
});

test('an abort during an async tool ends the run in under a second and says it was cancelled', async () => {
  const controller = new AbortController();
  const slow: Tool = {
    name: 'slow',
    description: 'Waits.',
    run: (_, context) =>
      new Promise((resolve) => {
        controller.abort();
        // Read after the abort: a listener on an already-aborted signal never fires.
        context.signal.addEventListener('abort', () => resolve('cancelled'));
      }),
  };
  const model = scriptedModel(['Thought: t\nAction: slow[x]']);
  const started = performance.now();
  const result = await runAgent({ model, question: 'q', tools: [slow], signal: controller.signal });
  assert.ok(performance.now() - started < 1000, 'not the 30 s tool timeout');
  assert.equal(result.status, 'aborted');
  assert.match(result.error ?? '', /aborted/);
  assert.equal(result.steps.length, 1);
  assert.equal(result.steps[0]?.observation?.text, 'Error: slow was cancelled.');
  assert.equal(result.steps[0]?.observation?.ok, false);
});

test('an abort during a synchronous tool ends the run in under a second, keeping what the tool returned', async () => {
  const controller = new AbortController();
  const busy: Tool = {
    name: 'busy',
    description: 'Works synchronously.',
    run: () => {
      controller.abort();
      return 'done anyway';
    },
  };
  const model = scriptedModel(['Thought: t\nAction: busy[x]', 'Thought: t\nAnswer: never asked']);
  const started = performance.now();
  const result = await runAgent({ model, question: 'q', tools: [busy], signal: controller.signal });
  assert.ok(performance.now() - started < 1000);
  assert.equal(result.status, 'aborted');
  assert.match(result.error ?? '', /aborted/);
  assert.equal(result.steps.length, 1, 'no model call after the abort');
  assert.equal(result.steps[0]?.observation?.text, 'done anyway');
});

test('streaming stops reading once the model starts writing its own observation', async () => {
  const reply =
    'Thought: add.\nAction: calculator[2 + 2]\nObservation: 5\nThought: so it is five.\nAnswer: 5';
  const model = scriptedModel([reply, 'Thought: ok\nAnswer: 4'], { streamChunkChars: 4 });
  const deltas: string[] = [];
  for await (const event of streamAgent({ model, question: 'q', tools: [calculator] })) {
    if (event.type === 'model-delta' && event.step === 1) deltas.push(event.text);
  }
  const streamed = deltas.join('');
  assert.match(streamed, /Action: calculator\[2 \+ 2\]\nObservation:/);
  assert.doesNotMatch(streamed, /so it is five/);
});
