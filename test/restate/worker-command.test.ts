import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { registerWorkerCommand } from '../../src/cli/commands/worker.js';
import { UsageError } from '../../src/cli/errors.js';
import { submitRun } from '../../src/restate/client.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { freePort, startRestate } from './harness.js';

const CLI_WORKER = fileURLToPath(new URL('./fixtures/cli-worker.ts', import.meta.url));

test('taoloop worker without --restate is a usage error', async () => {
  const program = new Command('taoloop').exitOverride();
  registerWorkerCommand(program, () => {});
  await assert.rejects(program.parseAsync(['node', 'taoloop', 'worker']), UsageError);
});

test('taoloop worker --restate serves runs for the configured model and tools', {
  timeout: 60_000,
}, async (t) => {
  const server = await startFakeOpenAI({
    replies: ['Thought: Multiply.\nAction: calculator[6 * 7]', 'Thought: Got it.\nAnswer: 42'],
  });
  t.after(() => server.close());
  const restate = await startRestate();
  t.after(() => restate.close());
  const port = await freePort();
  const worker = await restate.spawnNode(
    [
      CLI_WORKER,
      'worker',
      '--restate',
      '--port',
      String(port),
      '--model',
      `openai-compatible:${server.baseURL}#fake`,
      '--register',
      restate.adminUrl,
    ],
    {},
    'registered',
  );
  const result = await submitRun(
    restate.ingressUrl,
    { question: 'What is 6 * 7?' },
    { signal: AbortSignal.timeout(30_000) },
  );
  assert.equal(result.status, 'answered');
  assert.equal(result.answer, '42');
  assert.equal(result.steps[0]?.observation?.text, '42');
  assert.equal(server.requests.length, 2);
  assert.notEqual(server.requests[0]?.stream, true, 'journaled model calls are not streamed');

  const exited = once(worker, 'exit');
  worker.kill('SIGTERM');
  assert.deepEqual(await exited, [0, null]);
});

test('taoloop worker --restate --replicas 2 serves runs from two processes behind one port', {
  timeout: 60_000,
}, async (t) => {
  const server = await startFakeOpenAI({
    replies: (request) =>
      request.messages.some((message) => message.content.startsWith('Observation:'))
        ? 'Thought: Got it.\nAnswer: 42'
        : 'Thought: Multiply.\nAction: calculator[6 * 7]',
  });
  t.after(() => server.close());
  const restate = await startRestate();
  t.after(() => restate.close());
  const port = await freePort();
  const args = [
    'worker',
    '--restate',
    '--replicas',
    '2',
    '--port',
    String(port),
    '--register',
    restate.adminUrl,
  ];
  const primary = await restate.spawnNode(
    [CLI_WORKER, ...args, '--model', `openai-compatible:${server.baseURL}#fake`],
    {},
    'registered',
  );
  const results = await Promise.all(
    Array.from({ length: 4 }, (_, i) =>
      submitRun(
        restate.ingressUrl,
        { question: `What is 6 * 7? (${i})` },
        { signal: AbortSignal.timeout(30_000) },
      ),
    ),
  );
  assert.deepEqual(
    results.map((result) => result.answer),
    ['42', '42', '42', '42'],
  );

  const exited = once(primary, 'exit');
  primary.kill('SIGTERM');
  assert.deepEqual(await exited, [0, null]);
});
