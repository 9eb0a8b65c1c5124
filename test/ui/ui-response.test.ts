import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readUIMessageStream, type UIMessage } from 'ai';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import { createAgentUIStreamResponse, uiMessagesToAgentMessages } from '../../src/ui/ui-response.js';
import type { TaoloopUIMessage, TaoloopUIMessageChunk } from '../../src/ui/ui-stream.js';
import { gatedModel } from '../helpers/ui-chat.js';

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

/** Reads a UI message stream response as it arrives: `until` waits for a chunk, `rest` reads to the end. */
function sseReader(response: Response) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const chunks: TaoloopUIMessageChunk[] = [];
  let buffer = '';
  const readMore = async (): Promise<boolean> => {
    const { done, value } = await reader.read();
    if (done) return false;
    buffer += value;
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    for (const line of lines)
      if (line.startsWith('data: ') && line !== 'data: [DONE]') chunks.push(JSON.parse(line.slice(6)));
    return true;
  };
  return {
    chunks,
    async until(found: (chunk: TaoloopUIMessageChunk) => boolean): Promise<void> {
      while (!chunks.some(found)) assert.ok(await readMore(), 'the stream ended first');
    },
    async rest(): Promise<TaoloopUIMessageChunk[]> {
      while (await readMore());
      return chunks;
    },
    cancel: () => reader.cancel(),
  };
}

async function messageOf(chunks: readonly TaoloopUIMessageChunk[]): Promise<TaoloopUIMessage> {
  let message: TaoloopUIMessage | undefined;
  const stream = new ReadableStream<TaoloopUIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  for await (const m of readUIMessageStream<TaoloopUIMessage>({ stream })) message = m;
  return message!;
}

const resumeRequest = (chatId: string) =>
  new Request(`http://127.0.0.1/api/chat/${encodeURIComponent(chatId)}/stream`, { method: 'GET' });

test('resumable streams: a reload mid-run gets the whole stream back, and the run went on', async () => {
  const { model, open, openAll, requests } = gatedModel([
    { before: 'Thought: I need 20 times 12.\n', after: 'Action: calculator[20 * 12]' },
    { before: 'Thought: Done.\nAnswer: 240', after: '' },
  ]);
  const streams = new Map();
  try {
    // The page: its request goes away mid-run (a reload), once the thought showed.
    const client = new AbortController();
    const first = sseReader(
      await createAgentUIStreamResponse({
        model,
        tools: [calculator],
        streams,
        request: chatRequest({ id: 'chat-7', messages: firstTurn, trigger: 'submit-message' }, client.signal),
      }),
    );
    await first.until((c) => c.type === 'reasoning-delta');
    client.abort();
    await first.cancel();
    assert.equal(requests[0]?.signal?.aborted, false, 'the run goes on without its first client');

    // The reloaded page asks for the chat's stream: everything from the start, then the rest as it comes.
    const resumed = sseReader(
      await createAgentUIStreamResponse({ model, tools: [], streams, request: resumeRequest('chat-7') }),
    );
    await resumed.until((c) => c.type === 'reasoning-delta');
    assert.deepEqual(resumed.chunks[0], { type: 'start' });
    open(0);
    open(1);
    const message = await messageOf(await resumed.rest());
    assert.deepEqual(
      message.parts
        .filter((p) => p.type === 'reasoning' || p.type === 'text')
        .map((p) => ('text' in p ? p.text : '')),
      ['I need 20 times 12.', 'Done.', '240'],
    );
    const stop = message.parts.find((p) => p.type === 'data-stop');
    assert.equal(stop?.type === 'data-stop' && stop.data.status, 'answered');

    // Once the run ended the chat has no stream: the client gets 204, and the map is empty again.
    const after = await createAgentUIStreamResponse({
      model,
      tools: [],
      streams,
      request: resumeRequest('chat-7'),
    });
    assert.equal(after.status, 204);
    assert.equal(streams.size, 0);
  } finally {
    openAll();
  }
});

test('resumable streams: stop() ends the run; a POST without the chat id is refused', async () => {
  const { model, openAll } = gatedModel([{ before: 'Thought: Slow.\n', after: 'Answer: late' }]);
  const streams = new Map();
  try {
    const response = sseReader(
      await createAgentUIStreamResponse({
        model,
        tools: [],
        streams,
        request: chatRequest({ id: 'chat-8', messages: firstTurn, trigger: 'submit-message' }),
      }),
    );
    await response.until((c) => c.type === 'reasoning-delta');
    streams.get('chat-8').stop();
    const chunks = await response.rest();
    const stop = chunks.find((c) => c.type === 'data-stop');
    assert.equal(stop?.type === 'data-stop' && stop.data.status, 'aborted');
    assert.ok(
      chunks.some((c) => c.type === 'abort'),
      JSON.stringify(chunks.map((c) => c.type)),
    );
    assert.equal(
      (await createAgentUIStreamResponse({ model, tools: [], streams, request: resumeRequest('chat-8') }))
        .status,
      204,
    );

    const noId = await createAgentUIStreamResponse({
      model,
      tools: [],
      streams,
      request: chatRequest({ messages: firstTurn, trigger: 'submit-message' }),
    });
    assert.equal(noId.status, 400);
    assert.match(((await noId.json()) as { error: string }).error, /chat `id`/);
  } finally {
    openAll();
  }
});
