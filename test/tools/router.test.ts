import assert from 'node:assert/strict';
import { test } from 'node:test';
import { calculator } from '../../src/tools/calculator.js';
import { createToolRouter, ToolConfigError } from '../../src/tools/router.js';
import type { Tool } from '../../src/tools/types.js';

const search: Tool = { name: 'search', description: 'Searches.', run: () => 'found' };

test('an unknown tool gets an observation naming the tools to use', async () => {
  const router = createToolRouter([calculator, search]);
  const outcome = await router.call('send_email', 'boss@example.com');
  assert.equal(outcome.ok, false);
  assert.equal(outcome.observation, 'Error: unknown tool "send_email". Use: calculator, search');
});

test('prototype names are not tools', async () => {
  const router = createToolRouter([calculator]);
  for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    const outcome = await router.call(name, '1');
    assert.match(outcome.observation, /^Error: unknown tool/, name);
  }
});

test('the calculator refuses a shell command with its own error and runs nothing', async () => {
  const router = createToolRouter([calculator, search]);
  const outcome = await router.call('calculator', 'rm -rf /');
  assert.equal(outcome.ok, false);
  assert.match(outcome.observation, /^Error: /);
  assert.doesNotMatch(outcome.observation, /unknown tool/);
});

test('an input over the tool limit is refused before the tool runs', async () => {
  let ran = false;
  const tool: Tool = {
    name: 'echo',
    description: 'Echo.',
    maxInputChars: 10,
    run: (s) => {
      ran = true;
      return s;
    },
  };
  const router = createToolRouter([tool]);
  const outcome = await router.call('echo', 'x'.repeat(11));
  assert.equal(ran, false);
  assert.equal(
    outcome.observation,
    'Error: the input to echo is 11 characters; the limit is 10. Shorten it.',
  );
  assert.equal((await router.call('echo', 'x'.repeat(10))).observation, 'x'.repeat(10));
});

test('the default input limit is 200 characters', async () => {
  const router = createToolRouter([{ name: 'echo', description: 'Echo.', run: (s) => s }]);
  assert.equal((await router.call('echo', 'a'.repeat(200))).ok, true);
  assert.equal((await router.call('echo', 'a'.repeat(201))).ok, false);
});

test('a thrown error becomes the observation and the router goes on', async () => {
  const tool: Tool = {
    name: 'boom',
    description: 'Fails.',
    run: () => {
      throw new Error('disk on fire');
    },
  };
  const router = createToolRouter([tool]);
  assert.deepEqual(
    { ...(await router.call('boom', '')), durationMs: 0 },
    { ok: false, observation: 'Error: disk on fire', durationMs: 0 },
  );
});

test('a tool that ignores its signal is abandoned at the timeout', async () => {
  const hang: Tool = {
    name: 'hang',
    description: 'Never returns.',
    run: () => new Promise<string>(() => {}),
  };
  const router = createToolRouter([hang]);
  const outcome = await router.call('hang', '', { timeoutMs: 50 });
  assert.equal(outcome.observation, 'Error: hang timed out after 50 ms.');
});

test('invalid and duplicate tool names are caller errors', () => {
  assert.throws(() => createToolRouter([{ ...search, name: 'bad name' }]), ToolConfigError);
  assert.throws(() => createToolRouter([search, search]), /Two tools are named "search"/);
});

test('a tool that first reads its signal after its timeout sees it aborted', async () => {
  let lateRead: boolean | undefined;
  const slow: Tool = {
    name: 'slow',
    description: 'Reads its signal late.',
    timeoutMs: 20,
    run: async (_input, context) => {
      await new Promise((resolve) => setTimeout(resolve, 60));
      lateRead = context.signal.aborted;
      return 'late';
    },
  };
  const outcome = await createToolRouter([slow]).call('slow', 'x');
  assert.equal(outcome.ok, false);
  assert.match(outcome.observation, /timed out after 20 ms/);
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(lateRead, true);
});

test('a synchronous tool answers through runPrepared without a promise', () => {
  const router = createToolRouter([search]);
  const prepared = router.prepare('search', 'x');
  assert.ok(prepared.ok);
  const outcome = router.runPrepared(prepared);
  assert.ok(!(outcome instanceof Promise));
  assert.equal(outcome.observation, 'found');
});
