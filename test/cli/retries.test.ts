import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readTrace } from '../../src/trace/trace.js';
import { runCli } from '../helpers/cli.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { cliEnv } from './support.js';

test('a 503 then an answer: the retry is in the trace file and in taoloop trace, in its place', async () => {
  const server = await startFakeOpenAI({
    replies: ['Thought: Easy.\nAnswer: 42'],
    failFirst: { count: 1, status: 503, message: 'overloaded', headers: { 'retry-after-ms': '300' } },
  });
  try {
    const { env } = cliEnv();
    const model = `openai-compatible:${server.baseURL}#m`;
    const run = await runCli(['run', 'What is 6 * 7?', '--model', model, '--json'], {
      env,
      timeoutMs: 90_000,
    });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout) as { status: string; trace: string };
    assert.equal(result.status, 'answered');
    assert.equal(server.received, 2);

    const retries = readTrace(result.trace).events.filter((e) => e.type === 'model-retry');
    assert.equal(retries.length, 1);
    const [retry] = retries;
    assert.ok(retry?.type === 'model-retry');
    assert.deepEqual([retry.step, retry.retry, retry.maxRetries, retry.error], [1, 1, 2, 'HTTP 503']);
    assert.ok(retry.delayMs >= 250, `waited ${retry.delayMs} ms`);

    const printed = await runCli(['trace', result.trace], { env });
    assert.equal(printed.code, 0, printed.stderr);
    const lines = printed.stdout.split('\n');
    const at = lines.findIndex((line) => /^retry 1 of 2 after HTTP 503 \(waited \d+\.\d s\)$/.test(line));
    assert.ok(at > 0, printed.stdout);
    // Between the question and the step's thought.
    assert.ok(lines.findIndex((line) => line.startsWith('Question:')) < at, printed.stdout);
    assert.ok(lines.findIndex((line) => line.startsWith('Thought: Easy.')) > at, printed.stdout);
  } finally {
    await server.close();
  }
});
