import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readUIMessageStream, type UIMessage } from 'ai';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import { createAgentUIStreamResponse, uiMessagesToAgentMessages } from '../../src/ui/ui-response.js';
import type { TaoloopUIMessage, TaoloopUIMessageChunk } from '../../src/ui/ui-stream.js';

function chatRequest(body: unknown, signal?: AbortSignal): Request {
  return new Request('http://127.0.0.1/api/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(signal && { signal }),
  });
}

/** The chunks of a UI message stream response (server-sent events, `data: <json>` lines). */
async function sseChunks(response: Response): Promise<TaoloopUIMessageChunk[]> {
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)) as TaoloopUIMessageChunk);
}

const firstTurn: UIMessage[] = [
  { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'What is 20 * 12?' }] },
];

test('a useChat request gets a UI message stream response: reasoning, the tool call, the answer', async () => {
  const model = scriptedModel([
    'Thought: multiply\nAction: calculator[20 * 12]',
    'Thought: done\nAnswer: 240',
  ]);
  let stored: unknown;
  const response = await createAgentUIStreamResponse({
    model,
    tools: [calculator],
    request: chatRequest({ id: 'chat-1', messages: firstTurn, trigger: 'submit-message' }),
    onResult: (result) => {
      stored = result.messages;
    },
  });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /text\/event-stream/);
  assert.equal(response.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
  const chunks = await sseChunks(response);
  let message: TaoloopUIMessage | undefined;
  const stream = new ReadableStream<TaoloopUIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  for await (const m of readUIMessageStream<TaoloopUIMessage>({ stream })) message = m;
  const parts = message!.parts;
  const tool = parts.find((p) => p.type === 'tool-calculator');
  assert.equal(tool?.type === 'tool-calculator' && tool.state, 'output-available');
  assert.equal(tool?.type === 'tool-calculator' && tool.output, '240');
  const text = parts.find((p) => p.type === 'text');
  assert.equal(text?.type === 'text' && text.text, '240');
  assert.deepEqual(stored, [
    { role: 'user', content: 'What is 20 * 12?' },
    { role: 'assistant', content: '240' },
  ]);
});

test('a follow-up from useChat sends the first turn to the model as conversation', async () => {
  const model = scriptedModel(['Answer: 1680']);
  const history: UIMessage[] = [
    ...firstTurn,
    {
      id: 'a1',
      role: 'assistant',
      parts: [
        { type: 'step-start' },
        { type: 'reasoning', text: 'multiply' },
        {
          type: 'tool-calculator',
          toolCallId: 'step-1',
          state: 'output-available',
          input: '20 * 12',
          output: '240',
        },
        { type: 'text', text: '240' },
        { type: 'data-stop', data: { status: 'answered' } },
      ],
    },
    { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'And times 7?' }] },
  ];
  const response = await createAgentUIStreamResponse({
    model,
    tools: [calculator],
    request: chatRequest({ messages: history }),
  });
  await response.text();
  assert.deepEqual(
    model.requests[0]!.messages.slice(1).map((m) => m.content),
    ['Question: What is 20 * 12?', 'Answer: 240', 'Question: And times 7?'],
  );
});

test('a bad request gets 400 with what is wrong, and the model is never called', async () => {
  const model = scriptedModel([]);
  const bad: [unknown, RegExp][] = [
    ['not json', /not JSON/],
    [{}, /must be an array/],
    [{ messages: [{ id: 's', role: 'system', parts: [{ type: 'text', text: 'x' }] }] }, /user or assistant/],
    [
      {
        messages: [
          { id: 'u', role: 'user', parts: [{ type: 'file', url: 'data:,', mediaType: 'text/plain' }] },
        ],
      },
      /"file" part/,
    ],
    [{ messages: [] }, /last message must be the user's/],
  ];
  for (const [body, message] of bad) {
    const response = await createAgentUIStreamResponse({ model, tools: [], request: chatRequest(body) });
    assert.equal(response.status, 400);
    const json = (await response.json()) as { error: string };
    assert.match(json.error, message);
  }
  assert.equal(model.requests.length, 0);
});

test('closing the request aborts the run', async () => {
  const controller = new AbortController();
  const model = scriptedModel([
    () => {
      controller.abort();
      return 'Thought: x\nAction: calculator[1 + 1]';
    },
  ]);
  const response = await createAgentUIStreamResponse({
    model,
    tools: [calculator],
    request: chatRequest({ messages: firstTurn }, controller.signal),
  });
  const chunks = await sseChunks(response);
  const stop = chunks.find((c) => c.type === 'data-stop');
  assert.equal(stop?.type === 'data-stop' && stop.data.status, 'aborted');
});

test('uiMessagesToAgentMessages keeps text, drops assistant turns without an answer', () => {
  assert.deepEqual(
    uiMessagesToAgentMessages([
      { id: '1', role: 'user', parts: [{ type: 'text', text: 'a' }] },
      { id: '2', role: 'assistant', parts: [{ type: 'data-stop', data: {} }] },
      { id: '3', role: 'user', parts: [{ type: 'text', text: 'b' }] },
    ]),
    [
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
    ],
  );
});
