import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readTrace } from '../../src/trace/trace.js';
import { runCli } from '../helpers/cli.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { cliEnv } from './support.js';

test('run --continue last asks a follow-up: the recorded question and answer go to the model', async (t) => {
  const { env } = cliEnv();
  const server = await startFakeOpenAI({
    replies: ['Thought: multiply\nAction: calculator[20 * 12]', 'Thought: done\nAnswer: 240', 'Answer: 1680'],
  });
  t.after(() => server.close());
  const model = `openai-compatible:${server.baseURL}#m`;
  const first = await runCli(
    ['run', 'Per seat per year?', '--tools', 'calculator', '--json', '--model', model],
    { env },
  );
  assert.equal(first.code, 0, first.stderr);
  const firstTrace = JSON.parse(first.stdout).trace as string;

  const second = await runCli(
    ['run', 'For 7 seats?', '--continue', 'last', '--tools', 'calculator', '--json', '--model', model],
    { env },
  );
  assert.equal(second.code, 0, second.stderr);
  assert.equal(JSON.parse(second.stdout).answer, '1680');
  assert.deepEqual(
    server.requests[2]!.messages.slice(1).map((m) => m.content),
    ['Question: Per seat per year?', 'Answer: 240', 'Question: For 7 seats?'],
  );
  // The follow-up's trace joins the first run's conversation.
  const followUp = readTrace(JSON.parse(second.stdout).trace as string);
  assert.equal(followUp.header.conversationId, firstTrace.split('/').at(-1)!.replace('.jsonl', ''));
  assert.equal(followUp.result?.messages.length, 4);

  const missing = await runCli(['run', 'x', '--continue', 'nope', '--model', model], { env });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /no recorded run "nope"/);
});
