import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { InvalidToolInputError, NoSuchToolError } from '../../src/agent/errors.js';
import { runAgent } from '../../src/agent/loop.js';
import type { RepairToolCallOptions } from '../../src/agent/tool-repair.js';
import type { Model, ModelRequest, ModelResponse, ModelToolCall } from '../../src/models/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import { defineTool } from '../../src/tools/define.js';

/** A native model that makes the given calls, one reply per call, then answers. */
function nativeModel(calls: ModelToolCall[][], answer = 'Answer: done') {
  const requests: ModelRequest[] = [];
  const model: Model = {
    id: 'native',
    supportsToolCalls: true,
    async generate(request): Promise<ModelResponse> {
      requests.push(request);
      const toolCalls = calls[requests.length - 1];
      if (toolCalls) return { text: '', toolCalls, usage: {}, finishReason: 'tool-calls' };
      return { text: answer, usage: {}, finishReason: 'stop' };
    },
  };
  return { model, requests };
}

let converted: number[] = [];
const convert = defineTool({
  name: 'convert',
  description: 'Converts USD to EUR.',
  input: z.object({ amountUsd: z.number() }),
  run: ({ amountUsd }) => {
    converted.push(amountUsd);
    return `${amountUsd * 0.5} EUR`;
  },
});

test('an unknown tool is repaired before the corrective observation: the repaired call runs under the same id', async () => {
  const { model, requests } = nativeModel([[{ id: 'call-1', name: 'calc', input: '{"input":"1 + 1"}' }]]);
  const seen: RepairToolCallOptions[] = [];
  const result = await runAgent({
    model,
    question: '1 + 1?',
    tools: [calculator],
    modelSettings: { mode: 'native' },
    hooks: {
      repairToolCall: (options) => {
        seen.push(options);
        return { ...options.toolCall, name: 'calculator' };
      },
    },
  });
  assert.equal(result.status, 'answered');
  assert.equal(seen.length, 1);
  const [{ error, step, toolCall, tools, messages, inputSchema }] = seen as [RepairToolCallOptions];
  assert.ok(error instanceof NoSuchToolError);
  assert.equal(error.toolName, 'calc');
  assert.deepEqual(error.availableTools, ['calculator']);
  assert.equal(step, 1);
  assert.equal(toolCall.name, 'calc');
  assert.deepEqual(
    tools.map((t) => t.name),
    ['calculator'],
  );
  assert.equal(messages[0]!.role, 'system');
  assert.deepEqual(inputSchema({ toolName: 'calculator' })?.required, ['input']);
  assert.equal(inputSchema({ toolName: 'calc' }), undefined);

  const first = result.steps[0]!;
  assert.equal(first.observation?.ok, true);
  assert.equal(first.observation?.text, '2');
  assert.deepEqual(first.toolCall, { id: 'call-1', name: 'calculator', input: '{"input":"1 + 1"}' });
  assert.deepEqual(first.toolCallRepairs, [
    {
      original: { id: 'call-1', name: 'calc', input: '{"input":"1 + 1"}' },
      error: 'unknown tool "calc"; the tools are calculator',
      repaired: { id: 'call-1', name: 'calculator', input: '{"input":"1 + 1"}' },
    },
  ]);
  // The transcript shows the repaired call and its result, tied by the model's call id.
  const toolMessage = requests[1]!.messages.find((m) => m.role === 'tool');
  assert.deepEqual(toolMessage && { ...toolMessage }, {
    role: 'tool',
    toolCallId: 'call-1',
    toolName: 'calculator',
    content: '2',
  });
});

test('invalid input is repaired by asking a second model for arguments that fit the schema', async () => {
  converted = [];
  const { model } = nativeModel([[{ id: 'c1', name: 'convert', input: '{"amount":"10 dollars"}' }]]);
  const fixer = scriptedModel([
    (request) => {
      assert.match(request.messages[0]!.content, /amountUsd/);
      return '{"amountUsd":10}';
    },
  ]);
  const result = await runAgent({
    model,
    question: '10 USD in EUR?',
    tools: [convert],
    modelSettings: { mode: 'native' },
    hooks: {
      repairToolCall: async ({ toolCall, error, inputSchema, generate }) => {
        assert.ok(error instanceof InvalidToolInputError);
        assert.equal(error.toolInput, '{"amount":"10 dollars"}');
        const schema = JSON.stringify(inputSchema({ toolName: toolCall.name }));
        const reply = await generate(fixer, {
          messages: [
            { role: 'system', content: `Rewrite the arguments to fit this JSON Schema: ${schema}` },
            { role: 'user', content: `${toolCall.input}\nProblem: ${error.message}` },
          ],
        });
        return { ...toolCall, input: reply.text };
      },
    },
  });
  fixer.assertAllUsed();
  assert.equal(result.status, 'answered');
  assert.deepEqual(converted, [10]);
  assert.equal(result.steps[0]!.observation?.text, '5 EUR');
  assert.match(result.steps[0]!.toolCallRepairs![0]!.error, /amountUsd/);
});

test('no repair (null), a throwing repair and a repair that is still wrong all get the corrective observation', async () => {
  converted = [];
  const calls = [
    [{ id: 'a', name: 'calc', input: '{"input":"1"}' }],
    [{ id: 'b', name: 'calc', input: '{"input":"2"}' }],
    [{ id: 'c', name: 'convert', input: '{}' }],
  ];
  const { model } = nativeModel(calls);
  let attempt = 0;
  const result = await runAgent({
    model,
    question: 'q',
    tools: [calculator, convert],
    modelSettings: { mode: 'native' },
    hooks: {
      repairToolCall: ({ toolCall }) => {
        attempt += 1;
        if (attempt === 1) return null;
        if (attempt === 2) throw new Error('fixer offline');
        return { ...toolCall, input: '{"amountUsd":"ten"}' };
      },
    },
  });
  assert.equal(result.status, 'answered');
  assert.equal(attempt, 3);
  assert.deepEqual(converted, [], 'nothing invalid ran');
  const [one, two, three] = result.steps;
  assert.match(one!.observation!.text, /unknown tool "calc"/);
  assert.equal(one!.observation!.ok, false);
  assert.equal(one!.toolCallRepairs![0]!.repaired, undefined);
  assert.match(two!.observation!.text, /unknown tool "calc"/);
  assert.equal(two!.toolCallRepairs![0]!.repairError, 'fixer offline');
  assert.equal(three!.observation!.ok, false);
  assert.match(three!.observation!.text, /amountUsd/);
  assert.deepEqual(three!.toolCallRepairs![0]!.repaired, {
    id: 'c',
    name: 'convert',
    input: '{"amountUsd":"ten"}',
  });
});

test('calls that can run never reach repairToolCall', async () => {
  const { model } = nativeModel([[{ id: 'a', name: 'calculator', input: '{"input":"2 * 3"}' }]]);
  let asked = 0;
  const result = await runAgent({
    model,
    question: 'q',
    tools: [calculator],
    modelSettings: { mode: 'native' },
    hooks: {
      repairToolCall: () => {
        asked += 1;
        return null;
      },
    },
  });
  assert.equal(result.status, 'answered');
  assert.equal(asked, 0);
  assert.equal(result.steps[0]!.toolCallRepairs, undefined);
  assert.equal(result.steps[0]!.observation?.text, '6');
});
