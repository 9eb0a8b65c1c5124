import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { cliEnv } from './support.js';

const ANSWER = 'Thought: Easy.\nAnswer: 42';

test('taoloop run --fallback: a failing model hands its calls to the fallback, and says so', async () => {
  const broken = await startFakeOpenAI({
    replies: [ANSWER],
    failWhen: () => ({ status: 503, message: 'overloaded' }),
  });
  const backup = await startFakeOpenAI({ replies: [ANSWER, ANSWER] });
  try {
    const args = ['run', 'What is 6 * 7?', '--model', `openai-compatible:${broken.baseURL}#primary`];
    const fallback = `openai-compatible:${backup.baseURL}#backup`;
    const { code, stdout, stderr } = await runCli([...args, '--fallback', fallback, '--json'], {
      env: cliEnv().env,
      timeoutMs: 90_000,
    });
    assert.equal(code, 0, stderr);
    const result = JSON.parse(stdout) as {
      status: string;
      answer: string;
      steps: { model?: string }[];
      usageByModel: Record<string, unknown>;
    };
    assert.equal(result.status, 'answered');
    assert.equal(result.answer, '42');
    assert.equal(result.steps[0]?.model, fallback, 'each step says which model answered when a fallback did');
    assert.deepEqual(Object.keys(result.usageByModel), [fallback]);

    const shown = await runCli([...args, '--fallback', fallback, '--no-stream'], {
      env: cliEnv().env,
      timeoutMs: 90_000,
    });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(
      shown.stdout + shown.stderr,
      /#primary failed: HTTP 503: overloaded .*; trying openai-compatible:.*#backup\)/,
    );
  } finally {
    await Promise.all([broken.close(), backup.close()]);
  }
});

test('taoloop.config.json fallbackModels is the same list; --fallback human is refused', async () => {
  const broken = await startFakeOpenAI({ replies: [ANSWER], failWhen: () => ({ status: 500 }) });
  const backup = await startFakeOpenAI({ replies: [ANSWER] });
  const dir = mkdtempSync(join(tmpdir(), 'taoloop-fallback-'));
  try {
    const config = join(dir, 'taoloop.config.json');
    writeFileSync(config, JSON.stringify({ fallbackModels: [`openai-compatible:${backup.baseURL}#backup`] }));
    const model = `openai-compatible:${broken.baseURL}#primary`;
    const { code, stdout, stderr } = await runCli(
      ['run', 'q', '--model', model, '--config', config, '--json'],
      { env: cliEnv().env, timeoutMs: 90_000 },
    );
    assert.equal(code, 0, stderr);
    assert.equal(JSON.parse(stdout).status, 'answered');
    assert.equal(backup.requests.length, 1);

    const human = await runCli(['run', 'q', '--model', model, '--fallback', 'human'], {
      env: cliEnv().env,
      timeoutMs: 90_000,
    });
    assert.equal(human.code, 2);
    assert.match(human.stderr, /--fallback human is not possible/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await Promise.all([broken.close(), backup.close()]);
  }
});
