import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { runAgent } from '../../src/agent/loop.js';
import { renderSystemPrompt } from '../../src/react/prompt.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { defineTool } from '../../src/tools/define.js';
import { createToolRouter } from '../../src/tools/router.js';

const transfer = defineTool({
  name: 'transfer',
  description: 'Moves money.',
  input: z.object({ to: z.string().min(1), amountUsd: z.number().positive() }),
  effects: 'external',
  run: ({ to, amountUsd }) => `sent $${amountUsd} to ${to}`,
});

test('a schema tool takes JSON in the brackets and run gets the parsed value', async () => {
  const router = createToolRouter([transfer]);
  const outcome = await router.call('transfer', '{"to": "ana", "amountUsd": 5}');
  assert.deepEqual(
    { ok: outcome.ok, observation: outcome.observation },
    { ok: true, observation: 'sent $5 to ana' },
  );
});

test('invalid JSON and schema failures go back to the model saying what is wrong', async () => {
  const router = createToolRouter([transfer]);
  const bad = await router.call('transfer', '{to: ana}');
  assert.match(bad.observation, /^Error: transfer takes JSON in the brackets, and this is not valid JSON/);
  const invalid = await router.call('transfer', '{"to": "", "amountUsd": -1}');
  assert.match(invalid.observation, /^Error: invalid input for transfer: to: .+; amountUsd: .+/);
});

test('schema tools show their JSON input form in the prompt and allow longer inputs', () => {
  assert.equal(transfer.inputHint, '{"to": string, "amountUsd": number}');
  const prompt = renderSystemPrompt({ tools: [transfer] });
  assert.match(prompt, /^- transfer\[\{"to": string, "amountUsd": number\}\]: Moves money\.$/m);
  assert.equal(transfer.maxInputChars, 2000);
  assert.equal(transfer.effects, 'external');
});

test('a value that is not a string is turned into JSON', async () => {
  const stats = defineTool({ name: 'stats', description: 'Stats.', input: 'text', run: () => ({ rows: 3 }) });
  assert.equal((await createToolRouter([stats]).call('stats', '')).observation, '{"rows":3}');
});

test('output over maxOutputChars is truncated with a marker; the whole output stays in the trace', async () => {
  const flood = defineTool({
    name: 'flood',
    description: 'Prints 10 MB.',
    input: 'text',
    run: () => 'x'.repeat(10_000_000),
  });
  const model = scriptedModel(['Thought: t\nAction: flood[]', 'Thought: t\nAnswer: done']);
  const started = performance.now();
  const result = await runAgent({ model, question: 'q', tools: [flood] });
  assert.ok(performance.now() - started < 5000);
  const observation = result.steps[0]!.observation!;
  assert.ok(observation.text.length < 4200, `observation is ${observation.text.length} characters`);
  assert.match(observation.text, /\[\.\.\. output truncated: 9996000 more characters not shown\]/);
  assert.equal(observation.fullText?.length, 10_000_000);
  const sent = model.requests[1]!.messages.at(-1)!.content;
  assert.ok(sent.length < 4300);
});

test('a tool that hangs and ignores its signal does not hang the loop', async () => {
  const hang = defineTool({
    name: 'hang',
    description: 'Never returns.',
    input: 'text',
    timeoutMs: 100,
    run: () => new Promise(() => {}),
  });
  const model = scriptedModel(['Thought: t\nAction: hang[]', 'Thought: t\nAnswer: gave up']);
  const result = await runAgent({ model, question: 'q', tools: [hang] });
  assert.equal(result.steps[0]!.observation?.text, 'Error: hang timed out after 100 ms.');
  assert.equal(result.status, 'answered');
});
