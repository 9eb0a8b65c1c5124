import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { runAgent, streamAgent } from '../../src/agent/loop.js';
import { STOP_REJECTED } from '../../src/agent/model-call.js';
import type { AgentEvent } from '../../src/agent/types.js';
import { resolveModelSpec } from '../../src/models/spec.js';
import { calculator } from '../../src/tools/calculator.js';
import { replayModel } from '../../src/trace/replay-model.js';
import { createTraceWriter, readTrace } from '../../src/trace/trace.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { tempDir } from '../helpers/temp.js';

const ANSWER = 'Thought: Easy.\nAnswer: 42';

/** The run's events, and the retry events without their wait (which depends on the machine). */
async function eventsOf(run: AsyncGenerator<AgentEvent>) {
  const events: AgentEvent[] = [];
  for await (const event of run) events.push(event);
  return events;
}

for (const streaming of [true, false]) {
  test(`a 503 the AI SDK retries is a model-retry event before the call's text (${streaming ? 'streamed' : 'not streamed'})`, async () => {
    const server = await startFakeOpenAI({
      replies: [ANSWER],
      failFirst: { count: 1, status: 503, message: 'overloaded', headers: { 'retry-after-ms': '60' } },
    });
    try {
      const model = await resolveModelSpec(`openai-compatible:${server.baseURL}#m`, {});
      const events = await eventsOf(
        streamAgent({ model, question: 'q', tools: [calculator], modelSettings: { streaming } }),
      );
      const retries = events.filter((e) => e.type === 'model-retry');
      assert.equal(retries.length, 1);
      const { delayMs, ...retry } = retries[0]!;
      assert.deepEqual(retry, { type: 'model-retry', step: 1, retry: 1, maxRetries: 2, error: 'HTTP 503' });
      assert.ok(delayMs >= 50 && delayMs < 5000, `waited ${delayMs} ms`);
      const types = events.map((e) => e.type).filter((t) => t !== 'model-delta');
      assert.deepEqual(types.slice(0, 4), ['run-start', 'model-start', 'model-retry', 'model-end']);
      // The retry came before the first streamed text.
      const firstDelta = events.findIndex((e) => e.type === 'model-delta');
      if (streaming) assert.ok(firstDelta > events.indexOf(retries[0]!));
      assert.equal(server.received, 2);
    } finally {
      await server.close();
    }
  });
}

test('a connection closed before the headers is a model-retry event naming it (the AI SDK waits 2 s)', async (t) => {
  let requests = 0;
  // Closes the first connection unanswered; answers the next as an OpenAI-compatible server.
  const server = createServer((request, response) => {
    requests += 1;
    if (requests === 1) return request.socket.destroy();
    response.writeHead(200, { 'content-type': 'application/json' });
    const message = { role: 'assistant', content: ANSWER };
    response.end(
      JSON.stringify({
        id: 'c',
        created: 0,
        model: 'm',
        choices: [{ index: 0, message, finish_reason: 'stop' }],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const { port } = server.address() as AddressInfo;
  const model = await resolveModelSpec(`openai-compatible:http://127.0.0.1:${port}/v1#m`, {});
  const events = await eventsOf(
    streamAgent({ model, question: 'q', tools: [calculator], modelSettings: { streaming: false } }),
  );
  const retries = events.filter((e) => e.type === 'model-retry');
  assert.deepEqual(
    retries.map((e) => e.type === 'model-retry' && [e.retry, e.maxRetries, e.error]),
    [[1, 2, 'the server closed the connection before sending response headers']],
  );
  const end = events.at(-1);
  assert.equal(end?.type === 'run-end' && end.result.status, 'answered');
  assert.equal(requests, 2);
});

test('a call that succeeds at once has no model-retry event', async () => {
  const server = await startFakeOpenAI({ replies: [ANSWER] });
  try {
    const model = await resolveModelSpec(`openai-compatible:${server.baseURL}#m`, {});
    const events = await eventsOf(streamAgent({ model, question: 'q', tools: [calculator] }));
    assert.ok(!events.some((e) => e.type === 'model-retry'));
  } finally {
    await server.close();
  }
});

test('a call made again without stop sequences is a model-retry event', async () => {
  const server = await startFakeOpenAI({ rejectStop: true, replies: [ANSWER] });
  try {
    const model = await resolveModelSpec(`openai-compatible:${server.baseURL}#reasoner`, {});
    const events = await eventsOf(streamAgent({ model, question: 'q', tools: [calculator] }));
    const retries = events.filter((e) => e.type === 'model-retry');
    assert.deepEqual(retries, [{ type: 'model-retry', step: 1, retry: 1, error: STOP_REJECTED, delayMs: 0 }]);
  } finally {
    await server.close();
  }
});

test('the trace records each retry in its place; readTrace and a replay read it', async () => {
  const server = await startFakeOpenAI({
    replies: [ANSWER],
    failFirst: { count: 2, status: 429, message: 'slow down', headers: { 'retry-after-ms': '10' } },
  });
  const file = join(tempDir('taoloop-retries-'), 'run.jsonl');
  try {
    const model = await resolveModelSpec(`openai-compatible:${server.baseURL}#m`, {});
    const trace = createTraceWriter(file, { question: 'q', modelId: model.id });
    for await (const event of streamAgent({ model, question: 'q', tools: [calculator] })) trace.write(event);
    const read = readTrace(file);
    const written = read.events.filter((e) => e.type === 'model-retry');
    assert.deepEqual(
      written.map((e) => e.type === 'model-retry' && [e.step, e.retry, e.maxRetries, e.error]),
      [
        [1, 1, 2, 'HTTP 429'],
        [1, 2, 2, 'HTTP 429'],
      ],
    );
    assert.equal(read.result?.answer, '42');
    const replayed = await runAgent({ model: replayModel(read), question: 'q', tools: [calculator] });
    assert.equal(replayed.answer, '42');
  } finally {
    await server.close();
  }
});
