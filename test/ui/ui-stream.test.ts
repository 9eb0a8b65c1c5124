import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readUIMessageStream } from 'ai';
import { z } from 'zod';
import { streamAgent } from '../../src/agent/loop.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import { defineTool } from '../../src/tools/define.js';
import {
  type TaoloopUIMessage,
  type TaoloopUIMessageChunk,
  toUIMessageStream,
} from '../../src/ui/ui-stream.js';

/** Reads the stream with the `ai` package's own reader; returns the last message state. */
async function lastMessage(stream: ReadableStream<TaoloopUIMessageChunk>): Promise<TaoloopUIMessage> {
  let last: TaoloopUIMessage | undefined;
  for await (const message of readUIMessageStream<TaoloopUIMessage>({ stream })) last = message;
  assert.ok(last, 'the stream produced a message');
  return last;
}

async function chunksOf(stream: ReadableStream<TaoloopUIMessageChunk>): Promise<TaoloopUIMessageChunk[]> {
  const chunks: TaoloopUIMessageChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

test('readUIMessageStream gives one assistant message: reasoning, a tool part with output, the answer', async () => {
  const model = scriptedModel([
    'Thought: I need 20 * 12.\nAction: calculator[20 * 12]',
    'Thought: That is the total.\nAnswer: 240',
  ]);
  const messages: TaoloopUIMessage[] = [];
  const stream = toUIMessageStream(streamAgent({ model, question: 'What is 20 * 12?', tools: [calculator] }));
  for await (const m of readUIMessageStream<TaoloopUIMessage>({ stream })) messages.push(m);
  const ids = new Set(messages.map((m) => m.id));
  assert.equal(ids.size, 1, 'one assistant message');
  const message = messages.at(-1)!;
  assert.equal(message.role, 'assistant');
  const kinds = message.parts.map((p) => p.type);
  assert.deepEqual(kinds, [
    'step-start',
    'reasoning',
    'tool-calculator',
    'step-start',
    'reasoning',
    'text',
    'data-stop',
  ]);
  const reasoning = message.parts.filter((p) => p.type === 'reasoning').map((p) => p.text);
  assert.deepEqual(reasoning, ['I need 20 * 12.', 'That is the total.']);
  const tool = message.parts.find((p) => p.type === 'tool-calculator');
  assert.ok(tool && tool.type === 'tool-calculator');
  assert.equal(tool.state, 'output-available');
  assert.equal(tool.input, '20 * 12');
  assert.equal((tool as { output?: unknown }).output, '240');
  const text = message.parts.find((p) => p.type === 'text');
  assert.equal(text?.type === 'text' && text.text, '240');
  const stop = message.parts.find((p) => p.type === 'data-stop');
  assert.equal(stop?.type === 'data-stop' && stop.data.status, 'answered');
  model.assertAllUsed();
});

test('format errors and invented observations are typed data parts; the stop reason is the last one', async () => {
  const model = scriptedModel([
    'I am thinking about it.',
    'Thought: add\nAction: calculator[1 + 1]\nObservation: 3',
    'Thought: still going',
  ]);
  const message = await lastMessage(
    toUIMessageStream(streamAgent({ model, question: 'q', tools: [calculator], maxSteps: 1 })),
  );
  const data = message.parts.filter((p) => p.type.startsWith('data-'));
  assert.deepEqual(
    data.map((p) => p.type),
    ['data-format-error', 'data-invented-observation', 'data-stop'],
  );
  const formatError = data[0]!;
  assert.ok(formatError.type === 'data-format-error');
  assert.equal(formatError.data.step, 1);
  assert.match(formatError.data.problem, /Action|Answer/);
  const invented = data[1]!;
  assert.ok(invented.type === 'data-invented-observation');
  assert.equal(invented.data.droppedText, 'Observation: 3');
  const stop = data[2]!;
  assert.ok(stop.type === 'data-stop');
  assert.equal(stop.data.status, 'max_steps');
  const tool = message.parts.find((p) => p.type === 'tool-calculator');
  assert.equal(tool?.type === 'tool-calculator' && tool.state, 'output-available');
});

test('a failing tool ends its part with an error; schema tools get their input as an object', async () => {
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks up a price.',
    input: z.object({ plan: z.string() }),
    run: ({ plan }) => {
      throw new Error(`no plan called ${plan}`);
    },
  });
  const model = scriptedModel(['Thought: look\nAction: lookup[{"plan": "Pro"}]', 'Answer: unknown']);
  const message = await lastMessage(
    toUIMessageStream(streamAgent({ model, question: 'q', tools: [lookup] }), { tools: [lookup] }),
  );
  const tool = message.parts.find((p) => p.type === 'tool-lookup');
  assert.ok(tool && tool.type === 'tool-lookup');
  assert.equal(tool.state, 'output-error');
  assert.deepEqual(tool.input, { plan: 'Pro' });
  assert.match((tool as { errorText?: string }).errorText ?? '', /no plan called Pro/);
});

test('approvals: the request is an approval part; a rejected call is denied and never runs', async () => {
  let ran = false;
  const send = defineTool({
    name: 'send',
    description: 'Sends.',
    input: z.object({ to: z.string() }),
    effects: 'external',
    run: () => {
      ran = true;
      return 'sent';
    },
  });
  const model = scriptedModel(['Thought: send\nAction: send[{"to": "a"}]', 'Answer: not sent']);
  const chunks = await chunksOf(
    toUIMessageStream(
      streamAgent({ model, question: 'q', tools: [send], approve: () => ({ type: 'reject' }) }),
    ),
  );
  const types = chunks.map((c) => c.type);
  const request = types.indexOf('tool-approval-request');
  assert.ok(types.indexOf('tool-input-available') < request && request >= 0);
  assert.ok(types.indexOf('tool-output-denied') > request);
  assert.equal(ran, false);
  const message = await lastMessage(
    new ReadableStream({
      start(c) {
        for (const chunk of chunks) c.enqueue(chunk);
        c.close();
      },
    }),
  );
  const part = message.parts.find((p) => p.type === 'tool-send');
  assert.equal(part?.type === 'tool-send' && part.state, 'output-denied');
});

test('an approval that edits the input shows as edited: a data-approval-edit part with the input that ran', async () => {
  const ran: string[] = [];
  const send = defineTool({
    name: 'send',
    description: 'Sends.',
    input: z.object({ to: z.string() }),
    effects: 'external',
    run: ({ to }) => {
      ran.push(to);
      return `sent to ${to}`;
    },
  });
  const model = scriptedModel(['Thought: send\nAction: send[{"to": "a"}]', 'Answer: sent']);
  const stream = toUIMessageStream(
    streamAgent({
      model,
      question: 'q',
      tools: [send],
      approve: () => ({ type: 'edit', input: '{"to": "b"}' }),
    }),
  );
  const message = await lastMessage(stream);
  assert.deepEqual(ran, ['b']);
  const edit = message.parts.find((p) => p.type === 'data-approval-edit');
  assert.deepEqual(edit?.type === 'data-approval-edit' && edit.data, {
    toolCallId: 'step-1',
    approvalId: edit?.type === 'data-approval-edit' ? edit.data.approvalId : '',
    input: '{"to": "b"}',
  });
  assert.match((edit as { data: { approvalId: string } }).data.approvalId, /\/step-1\/call-1$/);
  const part = message.parts.find((p) => p.type === 'tool-send');
  assert.equal(part?.type === 'tool-send' && part.state, 'output-available');
  assert.equal(part?.type === 'tool-send' && part.output, 'sent to b');
  // A plain approval adds no such part.
  const plain = await lastMessage(
    toUIMessageStream(
      streamAgent({
        model: scriptedModel(['Thought: send\nAction: send[{"to": "a"}]', 'Answer: sent']),
        question: 'q',
        tools: [send],
        approve: () => ({ type: 'approve' }),
      }),
    ),
  );
  assert.equal(plain.parts.filter((p) => p.type === 'data-approval-edit').length, 0);
});

test('a model failure ends with an error chunk; a caller mistake too; cancelling closes the run', async () => {
  const failing = scriptedModel([new Error('server down')]);
  const chunks = await chunksOf(toUIMessageStream(streamAgent({ model: failing, question: 'q', tools: [] })));
  const error = chunks.find((c) => c.type === 'error');
  assert.match(error?.type === 'error' ? error.errorText : '', /server down/);

  const bad = await chunksOf(
    toUIMessageStream(streamAgent({ model: failing, question: '  ', tools: [] }), { messageId: 'm1' }),
  );
  assert.deepEqual(bad[0], { type: 'start', messageId: 'm1' });
  assert.equal(bad.at(-1)?.type, 'error');

  let closed = false;
  async function* events() {
    try {
      yield* streamAgent({ model: scriptedModel(['Answer: x']), question: 'q', tools: [] });
    } finally {
      closed = true;
    }
  }
  const reader = toUIMessageStream(events()).getReader();
  await reader.read();
  await reader.read();
  await reader.cancel();
  assert.equal(closed, true);
});

test('a refused answer is a data-answer-refused part; only the accepted answer becomes text', async () => {
  const model = scriptedModel(['Answer: {"totalUsd": "lots"}', 'Answer: {"totalUsd": 1680}']);
  const message = await lastMessage(
    toUIMessageStream(
      streamAgent({ model, question: 'q', tools: [], output: z.object({ totalUsd: z.number() }) }),
    ),
  );
  const refused = message.parts.find((p) => p.type === 'data-answer-refused');
  assert.ok(refused?.type === 'data-answer-refused');
  assert.equal(refused.data.answer, '{"totalUsd": "lots"}');
  assert.match(refused.data.problem, /totalUsd/);
  const texts = message.parts.filter((p) => p.type === 'text').map((p) => (p.type === 'text' ? p.text : ''));
  assert.deepEqual(texts, ['{"totalUsd": 1680}']);
  const stop = message.parts.find((p) => p.type === 'data-stop');
  assert.deepEqual(stop?.type === 'data-stop' && stop.data.output, { totalUsd: 1680 });
});
