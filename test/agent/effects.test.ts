import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import { awaited, type Effects, runToEnd, streamEvents } from '../../src/agent/effects.js';
import { runAgent, streamAgent } from '../../src/agent/loop.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import type { Tool } from '../../src/tools/types.js';

/** A body that logs what happens to it: waits, emits, and cleans up (waiting again) in `finally`. */
function* body(log: string[]): Effects<string, number> {
  try {
    const a = yield* awaited(Promise.resolve(2));
    yield `event a=${a}`;
    const b = yield* awaited(3); // not a promise: no trip through the driver
    log.push(`b=${b}`);
    try {
      yield* awaited(Promise.reject(new Error('boom')));
    } catch (error) {
      log.push(`caught ${(error as Error).message}`);
    }
    yield 'event 2';
    return a * b;
  } finally {
    yield* awaited(new Promise((resolve) => setTimeout(resolve, 5)));
    log.push('cleaned up');
  }
}

test('runToEnd awaits the promises, sends back values and errors, skips the events', async () => {
  const log: string[] = [];
  assert.equal(await runToEnd(body(log)), 6);
  assert.deepEqual(log, ['b=3', 'caught boom', 'cleaned up']);
});

test('runToEnd rejects with what the body throws', async () => {
  function* failing(): Effects<never, number> {
    yield* awaited(Promise.resolve());
    throw new Error('broken body');
  }
  await assert.rejects(runToEnd(failing()), /broken body/);
});

test('streamEvents yields the events in order and returns the result', async () => {
  const log: string[] = [];
  const events: string[] = [];
  const stream = streamEvents(body(log));
  let next = await stream.next();
  for (; !next.done; next = await stream.next()) events.push(next.value);
  assert.deepEqual(events, ['event a=2', 'event 2']);
  assert.equal(next.value, 6);
  assert.deepEqual(log, ['b=3', 'caught boom', 'cleaned up']);
});

test('a consumer that stops early closes the body, and its waiting cleanup finishes first', async () => {
  const log: string[] = [];
  for await (const event of streamEvents(body(log))) {
    assert.equal(event, 'event a=2');
    break;
  }
  // The break resolved only after the body's finally block (which waits 5 ms) ran.
  assert.deepEqual(log, ['cleaned up']);
});

test('the body is paused while the consumer handles an event (backpressure)', async () => {
  let resumed = 0;
  function* counting(): Effects<number, void> {
    for (let i = 0; i < 3; i++) {
      yield i;
      resumed++;
    }
  }
  const stream = streamEvents(counting());
  await stream.next();
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(resumed, 0, 'nothing ran ahead of the consumer');
  await stream.next();
  assert.equal(resumed, 1);
  await stream.return(undefined);
});

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

// Regressions found in review: a `yield*` chain closed with `return()` while an inner generator waits in
// its `finally` resumes the outer generator with `undefined`; a journal may run an effect more than once.

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
  const result = await runAgent({ model, question: 'q?', tools: [], journal: retrying });
  assert.equal(result.status, 'answered');
  assert.equal(result.answer, '42');
  assert.equal(model.requests.length, 2);
});

test('runToEnd rejects, never throws, when the body fails before its first wait', async () => {
  function* failing(failAtOnce: boolean): Effects<never, number> {
    if (failAtOnce) throw new Error('at once');
    return yield* awaited(Promise.resolve(1));
  }
  const pending = runToEnd(failing(true));
  assert.ok(pending instanceof Promise);
  await assert.rejects(pending, /at once/);
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
