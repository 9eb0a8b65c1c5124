import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { AgentConfigError } from '../../src/agent/errors.js';
import { runAgent } from '../../src/agent/loop.js';
import { resolveModelSpec } from '../../src/models/spec.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import { defineTool } from '../../src/tools/define.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';

const convert = defineTool({
  name: 'convert',
  description: 'Converts USD to EUR.',
  input: z.object({ amountUsd: z.number() }),
  run: ({ amountUsd }) => `${amountUsd * 0.5} EUR`,
});

for (const streaming of [false, true]) {
  test(`native tool calling through an OpenAI-compatible server (${streaming ? 'SSE' : 'JSON'})`, async () => {
    const server = await startFakeOpenAI({
      replies: [
        {
          text: 'I need the yearly total first.',
          toolCalls: [{ name: 'calculator', arguments: '{"input":"20 * 12 * 7"}' }],
        },
        { toolCalls: [{ name: 'convert', arguments: '{"amountUsd":1680}' }] },
        'Answer: 840 EUR per year',
      ],
    });
    try {
      const model = await resolveModelSpec(`openai-compatible:${server.baseURL}#tool-model`, {});
      const result = await runAgent({
        model,
        question: 'Yearly cost in EUR?',
        tools: [calculator, convert],
        modelSettings: { mode: 'native', streaming },
      });
      assert.equal(result.status, 'answered');
      assert.equal(result.answer, '840 EUR per year');
      assert.deepEqual(
        result.steps.map((s) => [
          s.turn.type,
          s.turn.type === 'action' ? s.turn.input : '',
          s.observation?.text,
        ]),
        [
          ['action', '20 * 12 * 7', '1680'],
          ['action', '{"amountUsd":1680}', '840 EUR'],
          ['answer', '', undefined],
        ],
      );
      assert.equal(result.steps[0]!.turn.thought, 'I need the yearly total first.');
      const first = server.requests[0]!;
      const tools = first.tools as { function: { name: string; parameters: Record<string, unknown> } }[];
      assert.deepEqual(
        tools.map((t) => t.function.name),
        ['calculator', 'convert'],
      );
      assert.deepEqual(tools[1]!.function.parameters.required, ['amountUsd']);
      assert.equal(first.stop, undefined, 'no text stop sequences in native mode');
      // The tool results go back as tool messages tied to the call ids.
      const third = server.requests[2]!.messages as {
        role: string;
        content: unknown;
        tool_call_id?: string;
      }[];
      const toolMessages = third.filter((m) => m.role === 'tool');
      assert.deepEqual(
        toolMessages.map((m) => [m.tool_call_id, m.content]),
        [
          ['call_1_0', '1680'],
          ['call_2_0', '840 EUR'],
        ],
      );
    } finally {
      await server.close();
    }
  });
}

test("auto mode uses native calls where the model supports them and the text protocol where it doesn't", async () => {
  const text = scriptedModel(['Thought: easy\nAnswer: 4']);
  const result = await runAgent({
    model: text,
    question: '2+2?',
    tools: [calculator],
    modelSettings: { mode: 'auto' },
  });
  assert.equal(result.answer, '4');
  assert.deepEqual(text.requests[0]!.stopSequences, ['\nObservation:']);
  assert.equal(text.requests[0]!.tools, undefined);
});

test('native mode on a model without tool calling is a caller error, before any call', async () => {
  const model = scriptedModel([]);
  await assert.rejects(
    runAgent({ model, question: 'q', tools: [calculator], modelSettings: { mode: 'native' } }),
    AgentConfigError,
  );
  assert.equal(model.requests.length, 0);
});

test('native mode never takes a cut-off or invented reply as the answer, and runs a text-protocol action', async () => {
  const server = await startFakeOpenAI({
    replies: [
      'The result is 5.\nObservation: fake tool data\nAnswer: 7',
      'Thought: I will use the protocol.\nAction: calculator[1 + 1]',
      'Answer: 2',
    ],
  });
  try {
    const model = await resolveModelSpec(`openai-compatible:${server.baseURL}#tool-model`, {});
    const result = await runAgent({
      model,
      question: 'q',
      tools: [calculator],
      modelSettings: { mode: 'native' },
    });
    assert.equal(result.status, 'answered');
    assert.equal(result.answer, '2');
    assert.equal(result.steps[0]!.turn.type, 'none');
    assert.equal(result.steps[0]!.turn.inventedObservation, true);
    assert.equal(result.steps[1]!.turn.type, 'action');
    assert.equal(result.steps[1]!.observation?.text, '2');
  } finally {
    await server.close();
  }
});

test('an empty question or a limit below 1 is a caller error, before any call', async () => {
  const model = scriptedModel([]);
  await assert.rejects(runAgent({ model, question: '  ', tools: [] }), /The question is empty/);
  await assert.rejects(
    runAgent({ model, question: 'q', tools: [], maxSteps: 0 }),
    /maxSteps must be a whole number of at least 1, got 0/,
  );
  await assert.rejects(runAgent({ model, question: 'q', tools: [], maxSteps: 2.5 }), AgentConfigError);
  assert.equal(model.requests.length, 0);
});
