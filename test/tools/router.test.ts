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

test('a circular object is JSON with its back-reference marked, and ok', async () => {
  const node: Record<string, unknown> = { name: 'root', child: { name: 'leaf' } };
  (node.child as Record<string, unknown>).parent = node;
  const shared = { x: 1 };
  const tool: Tool = { name: 'tree', description: 'Tree.', run: () => ({ node, a: shared, b: shared }) };
  const outcome = await createToolRouter([tool]).call('tree', '');
  assert.equal(outcome.ok, true);
  assert.equal(
    outcome.observation,
    '{"node":{"name":"root","child":{"name":"leaf","parent":"[Circular]"}},"a":{"x":1},"b":{"x":1}}',
  );
});

test('bigints, maps and sets are written out; a function is an error observation, not ok', async () => {
  const values: Tool = {
    name: 'values',
    description: 'Values.',
    run: () => ({ big: 12n, map: new Map([['k', 1]]), set: new Set([1, 2]) }),
  };
  const fn: Tool = { name: 'fn', description: 'Returns a function.', run: () => () => 1 };
  const throwsJson: Tool = {
    name: 'bad_json',
    description: 'toJSON throws.',
    run: () => ({
      toJSON() {
        throw new Error('no JSON here');
      },
    }),
  };
  const router = createToolRouter([values, fn, throwsJson]);
  assert.equal((await router.call('values', '')).observation, '{"big":"12","map":{"k":1},"set":[1,2]}');
  const fnOutcome = await router.call('fn', '');
  assert.equal(fnOutcome.ok, false);
  assert.equal(fnOutcome.observation, 'Error: the tool returned a function, which has no text form.');
  const bad = await router.call('bad_json', '');
  assert.equal(bad.ok, false);
  assert.match(bad.observation, /^Error: the tool's output could not be turned into JSON \(no JSON here\)/);
});

test('a thrown non-Error is described readably, never [object Object]', async () => {
  const thrower = (value: unknown): Tool => ({
    name: 'thrower',
    description: 'Throws.',
    run: () => {
      throw value;
    },
  });
  const cases: [unknown, string][] = [
    [{ code: 42 }, 'Error: a non-Error value: {"code":42}'],
    [{ message: 'quota exceeded' }, 'Error: quota exceeded'],
    ['plain text', 'Error: plain text'],
    [7, 'Error: a non-Error value: 7'],
    [null, 'Error: a non-Error value: null'],
  ];
  for (const [value, expected] of cases) {
    const outcome = await createToolRouter([thrower(value)]).call('thrower', '');
    assert.equal(outcome.ok, false);
    assert.equal(outcome.observation, expected);
  }
  const rejecting: Tool = {
    name: 'rejects',
    description: 'Rejects.',
    run: () => Promise.reject({ status: 503 }),
  };
  const outcome = await createToolRouter([rejecting]).call('rejects', '');
  assert.equal(outcome.observation, 'Error: a non-Error value: {"status":503}');
});

test('a call cancelled while the tool ran its synchronous part ends at once and says cancelled', async () => {
  const controller = new AbortController();
  const tool: Tool = {
    name: 'slow',
    description: 'Cancels, then waits on its signal.',
    run: (_input, context) => {
      controller.abort();
      // Listening on an already-aborted signal never fires: only the router's own check ends the call.
      return new Promise((resolve) => context.signal.addEventListener('abort', () => resolve('late')));
    },
  };
  const started = performance.now();
  const outcome = await createToolRouter([tool]).call('slow', '', { signal: controller.signal });
  assert.ok(performance.now() - started < 1000, 'ended well before the 30 s tool timeout');
  assert.equal(outcome.ok, false);
  assert.equal(outcome.observation, 'Error: slow was cancelled.');
});
