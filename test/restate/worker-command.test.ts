import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { registerWorkerCommand } from '../../src/cli/commands/worker.js';
import { UsageError } from '../../src/cli/errors.js';
import { startDurableRun, submitRun } from '../../src/restate/client.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { freePort, startRestate, waitFor } from './harness.js';

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

/** A model server that takes requests and never answers them; `open` counts those still connected. */
async function startHungServer() {
  const requests: IncomingMessage[] = [];
  const server = createServer((request) => {
    requests.push(request);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    open: () => requests.filter((request) => !request.socket.destroyed).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

test('taoloop worker: TAOLOOP_MODEL_TIMEOUT ends a hung call with what happened; SIGTERM exits at once, cancelling calls', {
  timeout: 120_000,
}, async (t) => {
  const hung = await startHungServer();
  t.after(() => hung.close());
  const restate = await startRestate();
  t.after(() => restate.close());
  const port = await freePort();
  const args = (extra: string[]) => [
    CLI_WORKER,
    'worker',
    '--restate',
    '--port',
    String(port),
    '--model',
    `openai-compatible:${hung.baseURL}#hung`,
    ...extra,
  ];

  // The environment variable sets the limit of each attempt; after Restate's retries the run ends.
  const first = await restate.spawnNode(
    args(['--register', restate.adminUrl]),
    { TAOLOOP_MODEL_TIMEOUT: '1s' },
    'registered',
  );
  const run = await submitRun(
    restate.ingressUrl,
    { question: 'Anything?' },
    { signal: AbortSignal.timeout(60_000) },
  );
  assert.equal(run.status, 'error');
  assert.match(run.error ?? '', /no response headers within 1\.0 s/);
  assert.doesNotMatch(run.error ?? '', /cannot connect/i);
  assert.equal(hung.requests.length, 3, 'three attempts (the default retry), each cut after 1 s');
  const firstExit = once(first, 'exit');
  first.kill('SIGTERM');
  await firstExit;

  // A worker whose call hangs (a 10-minute limit) exits within seconds of SIGTERM and closes the request.
  const second = await restate.spawnNode(args(['--model-timeout', '10m']), {}, 'serving');
  const before = hung.requests.length;
  await startDurableRun(restate.ingressUrl, { question: 'Still there?' }, { idempotencyKey: 'sigterm-run' });
  await waitFor('the model call to hang', () => hung.requests.length > before, { timeoutMs: 30_000 });
  const exited = once(second, 'exit');
  const stopped = Date.now();
  second.kill('SIGTERM');
  const [code, signal] = await exited;
  const tookMs = Date.now() - stopped;
  t.diagnostic(`the worker exited ${tookMs} ms after SIGTERM`);
  assert.deepEqual([code, signal], [0, null]);
  // Far under the call's 10-minute limit, with room for a busy machine.
  assert.ok(tookMs < 60_000, `the worker took ${tookMs} ms to exit`);
  await waitFor('the hung request to be closed', () => hung.open() === 0, { timeoutMs: 5000 });
});
