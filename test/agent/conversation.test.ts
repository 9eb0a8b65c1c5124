import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelMessage as AiModelMessage } from 'ai';
import type { AgentMessage } from '../../src/agent/conversation.js';
import { AgentConfigError } from '../../src/agent/errors.js';
import { runAgent } from '../../src/agent/loop.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';

test('a follow-up carries the earlier question and answer to the model as conversation', async () => {
  const model = scriptedModel([
    'Thought: multiply\nAction: calculator[20 * 12]',
    'Thought: done\nAnswer: 240 USD',
    'Thought: times 7\nAction: calculator[240 * 7]',
    'Thought: done\nAnswer: 1680 USD',
  ]);
  const first = await runAgent({
    model,
    tools: [calculator],
    messages: [{ role: 'user', content: 'Price of Pro per seat per year?' }],
  });
  assert.equal(first.status, 'answered');
  assert.deepEqual(first.messages, [
    { role: 'user', content: 'Price of Pro per seat per year?' },
    { role: 'assistant', content: '240 USD' },
  ]);
  const second = await runAgent({
    model,
    tools: [calculator],
    messages: [...first.messages, { role: 'user', content: 'And for 7 seats?' }],
  });
  assert.equal(second.answer, '1680 USD');
  assert.equal(second.question, 'And for 7 seats?');
  assert.equal(second.messages.length, 4);
  assert.deepEqual(second.messages.at(-1), { role: 'assistant', content: '1680 USD' });
  // The follow-up's first model call: system, the earlier turn as conversation, then the new question.
  const sent = model.requests[2]!.messages;
  assert.deepEqual(
    sent.slice(1).map((m) => [m.role, m.content]),
    [
      ['user', 'Question: Price of Pro per seat per year?'],
      ['assistant', 'Answer: 240 USD'],
      ['user', 'Question: And for 7 seats?'],
    ],
  );
  // The earlier trajectory is not re-sent.
  assert.ok(!sent.slice(1).some((m) => m.content.includes('20 * 12')));
  // Later calls of the follow-up add this run's steps after the question, not before it.
  const later = model.requests[3]!.messages.map((m) => m.content);
  assert.equal(later.indexOf('Question: And for 7 seats?'), 3);
  assert.match(later.at(-1)!, /^Observation: 1680/);
  model.assertAllUsed();
});

test("earlierTrajectories: 'summary' keeps a summary of the steps with the answer and sends it", async () => {
  const model = scriptedModel([
    'Thought: multiply\nAction: calculator[20 * 12]',
    'Answer: 240',
    'Answer: still 240',
  ]);
  const options = { model, tools: [calculator], prompt: { earlierTrajectories: 'summary' as const } };
  const first = await runAgent({ ...options, question: 'Price?' });
  const reply = first.messages[1]!;
  assert.ok(reply.role === 'assistant');
  assert.equal(reply.trajectory, '(Earlier steps: calculator[20 * 12] gave 240)');
  await runAgent({ ...options, messages: [...first.messages, { role: 'user', content: 'Sure?' }] });
  assert.equal(
    model.requests[2]!.messages[2]!.content,
    '(Earlier steps: calculator[20 * 12] gave 240)\nAnswer: 240',
  );
});

test('AI SDK ModelMessages with text parts fit; tool messages and tool-call parts are not re-sent', async () => {
  const history: AiModelMessage[] = [
    { role: 'user', content: [{ type: 'text', text: 'What is 2 + 2?' }] },
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'c1', toolName: 'calculator', input: { expression: '2 + 2' } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'calculator',
          output: { type: 'text', value: '4' },
        },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'It is 4.' }] },
    { role: 'user', content: 'Double it?' },
  ];
  const model = scriptedModel(['Answer: 8']);
  const result = await runAgent({ model, tools: [calculator], messages: history as AgentMessage[] });
  assert.equal(result.answer, '8');
  assert.deepEqual(
    model.requests[0]!.messages.slice(1).map((m) => m.content),
    ['Question: What is 2 + 2?', 'Answer: It is 4.', 'Question: Double it?'],
  );
  assert.equal(result.messages.length, 6);
});

test('native mode sends earlier turns as conversation too', async () => {
  const model = scriptedModel(['Answer: 8']);
  const native = { ...model, supportsToolCalls: true, id: 'native' };
  await runAgent({
    model: native,
    tools: [calculator],
    messages: [
      { role: 'user', content: 'a?' },
      { role: 'assistant', content: 'A.' },
      { role: 'user', content: 'b?' },
    ],
    modelSettings: { mode: 'native' },
  });
  assert.deepEqual(
    model.requests[0]!.messages.slice(1).map((m) => [m.role, m.content]),
    [
      ['user', 'Question: a?'],
      ['assistant', 'Answer: A.'],
      ['user', 'Question: b?'],
    ],
  );
});

test('bad conversations are caller mistakes with a message that says what to change', async () => {
  const model = scriptedModel([]);
  const cases: [Parameters<typeof runAgent>[0], RegExp][] = [
    // Both inputs, or none: the types forbid them, plain JavaScript can still pass them.
    [
      { model, tools: [], question: 'q', messages: [{ role: 'user', content: 'q' }] } as never,
      /either `question`/,
    ],
    [{ model, tools: [] } as never, /question is empty/],
    [{ model, tools: [], messages: [] }, /last message must be the user's/],
    [
      {
        model,
        tools: [],
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: 'a' },
        ],
      },
      /last message must be the user's/,
    ],
    [
      { model, tools: [], messages: [{ role: 'system', content: 'be nice' }] as unknown as AgentMessage[] },
      /instructions/,
    ],
    [
      { model, tools: [], messages: [{ role: 'user', content: [{ type: 'image' }] }] },
      /"image" part: taoloop conversations carry text only/,
    ],
  ];
  for (const [options, message] of cases) {
    await assert.rejects(runAgent(options), (error: Error) => {
      assert.ok(error instanceof AgentConfigError, error.message);
      assert.match(error.message, message);
      return true;
    });
  }
});
