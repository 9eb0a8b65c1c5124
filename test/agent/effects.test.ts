import assert from 'node:assert/strict';
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
