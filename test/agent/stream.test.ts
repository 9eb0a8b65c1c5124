import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import { runAgent, streamAgent } from '../../src/agent/loop.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import type { Tool } from '../../src/tools/types.js';

test('runAgent and streamAgent give the same result for the same script', async () => {
  const turns = [
    'Thought: one\nAction: echo[a]',
    'Thought: two\nAction: echo[b]',
    'Thought: done\nAnswer: ab',
  ];
  const echo: Tool = { name: 'echo', description: 'Echoes.', run: async (input: string) => input };
  const viaRun = await runAgent({ model: scriptedModel(turns), question: 'q', tools: [echo] });
  const events: string[] = [];
  const stream = streamAgent({ model: scriptedModel(turns), question: 'q', tools: [echo] });
  let next = await stream.next();
  for (; !next.done; next = await stream.next()) events.push(next.value.type);
  const viaStream = next.value;
  const strip = (r: typeof viaRun) => ({
    ...r,
    durationMs: 0,
    steps: r.steps.map((s) => ({
      ...s,
      modelDurationMs: 0,
      ...(s.observation && { observation: { ...s.observation, durationMs: 0 } }),
    })),
  });
  assert.deepEqual(strip(viaStream), strip(viaRun));
  assert.equal(viaRun.answer, 'ab');
  assert.deepEqual(events, [
    'run-start',
    ...['model-start', 'model-end', 'tool-start', 'tool-end', 'step-end'],
    ...['model-start', 'model-end', 'tool-start', 'tool-end', 'step-end'],
    ...['model-start', 'model-end', 'step-end'],
    'run-end',
  ]);
});

test('a streamAgent consumer that stops during a streamed model call ends cleanly, the stream closed', async () => {
  let closed = 0;
  const streaming = () => {
    const model = scriptedModel(['Thought: t\nAnswer: 42'], { streamChunkChars: 4 });
    const stream = model.stream?.bind(model);
    if (!stream) throw new Error('scriptedModel did not offer stream()');
    model.stream = (request) => {
      const inner = stream(request)[Symbol.asyncIterator]();
      return {
        [Symbol.asyncIterator]: () => ({
          next: () => inner.next(),
          return: async () => {
            closed += 1;
            return (await inner.return?.()) ?? { done: true, value: undefined };
          },
        }),
      };
    };
    return model;
  };
  for await (const event of streamAgent({ model: streaming(), question: 'q', tools: [] })) {
    if (event.type === 'model-delta') break;
  }
  const returned = streamAgent({ model: streaming(), question: 'q', tools: [] });
  for (let e = await returned.next(); !e.done && e.value.type !== 'model-delta'; e = await returned.next());
  assert.deepEqual(await returned.return(undefined as never), { done: true, value: undefined });
  const thrown = streamAgent({ model: streaming(), question: 'q', tools: [] });
  for (let e = await thrown.next(); !e.done && e.value.type !== 'model-delta'; e = await thrown.next());
  await assert.rejects(thrown.throw(new Error('the consumer failed')), /the consumer failed/);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(closed, 3, 'every stream was closed');
});

test('a journal that retries a failed model call gets a fresh call each time', async () => {
  const retrying = async <T>(_name: string, effect: () => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await effect();
      } catch (error) {
        if (attempt >= 3) throw error;
      }
    }
  };
  const model = scriptedModel([new Error('transient 503'), 'Thought: ok\nAnswer: 42']);
  const result = await runAgent({ model, question: 'q?', tools: [], durable: { journal: retrying } });
  assert.equal(result.status, 'answered');
  assert.equal(result.answer, '42');
  assert.equal(model.requests.length, 2);
});

test('a model whose stream() throws at once leaves no listener on the caller signal', async () => {
  const controller = new AbortController();
  const model = scriptedModel(['Thought: t\nAnswer: 1'], { streamChunkChars: 4 });
  model.stream = () => {
    throw new Error('no stream today');
  };
  const result = await runAgent({ model, question: 'q', tools: [], signal: controller.signal });
  assert.equal(result.status, 'error');
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
});
