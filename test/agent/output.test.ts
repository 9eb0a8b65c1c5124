import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { AgentConfigError } from '../../src/agent/errors.js';
import { runAgent } from '../../src/agent/loop.js';
import type { Model, ModelRequest, ModelResponse } from '../../src/models/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import { defineTool } from '../../src/tools/define.js';

const Total = z.object({ totalUsd: z.number(), seats: z.number().int() });

test('a schema answer is parsed, validated and typed; the prompt gives the JSON Schema', async () => {
  const model = scriptedModel([
    'Thought: multiply\nAction: calculator[20 * 12 * 7]',
    'Thought: done\nAnswer: {"totalUsd": 1680, "seats": 7}',
  ]);
  const result = await runAgent({
    model,
    tools: [calculator],
    question: 'Pro for 7 seats a year?',
    output: Total,
  });
  assert.equal(result.status, 'answered');
  const total: number | undefined = result.output?.totalUsd; // typed from the schema
  assert.equal(total, 1680);
  assert.deepEqual(result.output, { totalUsd: 1680, seats: 7 });
  assert.equal(result.answer, '{"totalUsd": 1680, "seats": 7}');
  const system = model.requests[0]!.messages[0]!.content;
  assert.match(system, /Write the final Answer as one line of JSON after "Answer: "/);
  assert.match(system, /"totalUsd":\{"type":"number"\}/);
  assert.deepEqual(model.requests[0]!.turnFormat?.answerJsonSchema?.required, ['totalUsd', 'seats']);
});

test('an invalid answer goes back as an observation saying what is wrong, without using a step', async () => {
  const model = scriptedModel([
    'Thought: multiply\nAction: calculator[20 * 12 * 7]',
    'Thought: done\nAnswer: {"totalUsd": "1,680 USD", "seats": 7}',
    'Thought: a number, then\nAnswer: ```json\n{"totalUsd": 1680, "seats": 7}\n```',
  ]);
  const result = await runAgent({
    model,
    tools: [calculator],
    question: 'Pro for 7 seats a year?',
    output: Total,
    // The action uses one step; had the correction used the other, the third call would not be made.
    maxSteps: 2,
  });
  assert.equal(result.status, 'answered', result.error);
  assert.deepEqual(result.output, { totalUsd: 1680, seats: 7 });
  const refused = result.steps[1]!;
  assert.equal(refused.observation?.source, 'answer-check');
  assert.match(
    refused.observation!.text,
    /not accepted: the answer does not match the schema: totalUsd: .*number/,
  );
  assert.equal(model.requests[2]!.messages.at(-1)!.content, `Observation: ${refused.observation!.text}`);
  model.assertAllUsed();
});

test('corrections are bounded: the run stops with format_errors and says why', async () => {
  const model = scriptedModel(['Answer: lots', 'Answer: many', 'Answer: plenty']);
  const result = await runAgent({
    model,
    tools: [],
    question: 'q',
    output: Total,
    limits: { maxAnswerCorrections: 2 },
  });
  assert.equal(result.status, 'format_errors');
  assert.equal(result.answer, undefined);
  assert.equal(result.output, undefined);
  assert.match(result.error ?? '', /refused 3 times; the last time: the answer is not valid JSON/);
  assert.deepEqual(result.messages, [{ role: 'user', content: 'q' }]);
});

test('checkAnswer refuses with a message that goes back to the model', async () => {
  const model = scriptedModel(['Answer: 1680', 'Answer: 1680 USD (calculator: 20 * 12 * 7)']);
  const seen: string[] = [];
  const result = await runAgent({
    model,
    tools: [],
    question: 'q',
    hooks: {
      checkAnswer: [
        ({ text }) => {
          seen.push(text);
          return text.includes('calculator') ? undefined : 'say how you computed it';
        },
      ],
    },
  });
  assert.equal(result.answer, '1680 USD (calculator: 20 * 12 * 7)');
  assert.deepEqual(seen, ['1680', '1680 USD (calculator: 20 * 12 * 7)']);
  assert.match(model.requests[1]!.messages.at(-1)!.content, /not accepted: say how you computed it/);
});

test('forceFinalAnswer: at the step limit one last call without tools gives the answer, marked forced', async () => {
  const model = scriptedModel([
    'Thought: multiply\nAction: calculator[20 * 12 * 7]',
    'Thought: from the evidence\nAnswer: {"totalUsd": 1680, "seats": 7}',
  ]);
  const result = await runAgent({
    model,
    tools: [calculator],
    question: 'q',
    output: Total,
    maxSteps: 1,
    limits: { forceFinalAnswer: true },
  });
  assert.equal(result.status, 'answered');
  assert.equal(result.forced, true);
  assert.deepEqual(result.output, { totalUsd: 1680, seats: 7 });
  const forced = model.requests[1]!;
  assert.match(forced.messages.at(-1)!.content, /no steps left: do not call any more tools/);
  assert.deepEqual(forced.turnFormat?.tools, []);

  // Without the option, the same run stops at the limit.
  const plain = await runAgent({
    model: scriptedModel(['Action: calculator[1 + 1]']),
    tools: [calculator],
    question: 'q',
    maxSteps: 1,
  });
  assert.equal(plain.status, 'max_steps');
  assert.equal(plain.forced, undefined);
});

test('a forced call that acts anyway runs nothing and the run keeps its limit; a budget limit forces too', async () => {
  let runs = 0;
  const counter = defineTool({
    name: 'count',
    description: 'Counts.',
    input: 'text',
    run: () => String(++runs),
  });
  const model = scriptedModel(['Action: count[a]', 'Action: count[b]']);
  const result = await runAgent({
    model,
    tools: [counter],
    question: 'q',
    maxSteps: 1,
    limits: { forceFinalAnswer: true },
  });
  assert.equal(result.status, 'max_steps');
  assert.equal(runs, 1);
  assert.equal(result.steps.length, 2);

  const budgeted = scriptedModel(['Answer: best guess']);
  const overBudget = await runAgent({
    model: budgeted,
    tools: [],
    question: 'q'.repeat(400),
    limits: { maxTokens: 10, forceFinalAnswer: true },
  });
  assert.equal(overBudget.status, 'answered');
  assert.equal(overBudget.forced, true);
});

/** A native-mode model answering with the calls it is given, recording requests. */
function nativeModel(replies: ModelResponse[]): Model & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    id: 'native-test',
    supportsToolCalls: true,
    requests,
    async generate(request) {
      requests.push(request);
      const reply = replies[requests.length - 1];
      if (!reply) throw new Error('no reply scripted');
      return reply;
    },
  };
}

test('native mode: the typed answer comes through a final_answer tool (wrapped when not an object)', async () => {
  const finish = { usage: {}, finishReason: 'tool-calls' as const };
  const model = nativeModel([
    {
      text: 'The total is known.',
      toolCalls: [{ id: 'c1', name: 'final_answer', input: '{"answer": 12}' }],
      ...finish,
    },
    { text: '', toolCalls: [{ id: 'c2', name: 'final_answer', input: '{"answer": 1680}' }], ...finish },
  ]);
  const result = await runAgent({
    model,
    tools: [calculator],
    question: 'q',
    output: z.number().min(100),
    modelSettings: { mode: 'native' },
  });
  assert.equal(result.status, 'answered');
  const n: number | undefined = result.output;
  assert.equal(n, 1680);
  const tool = model.requests[0]!.tools?.find((t) => t.name === 'final_answer');
  assert.deepEqual(tool?.inputJsonSchema.required, ['answer']);
  assert.match(model.requests[0]!.messages[0]!.content, /call the final_answer tool/);
  assert.equal(result.steps[0]!.observation?.source, 'answer-check');

  await assert.rejects(
    runAgent({
      model,
      tools: [defineTool({ name: 'final_answer', description: 'x', input: 'text', run: () => '' })],
      question: 'q',
      output: Total,
      modelSettings: { mode: 'native' },
    }),
    AgentConfigError,
  );
});
