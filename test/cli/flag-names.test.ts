import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inFlagNames } from '../../src/cli/flag-names.js';
import { runCli } from '../helpers/cli.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { cliEnv } from './support.js';

test('messages name the flag a CLI user can pass, never the library option', () => {
  assert.equal(
    inFlagNames('The model call failed: no answer within 2000 ms (modelTimeoutMs: 2000 ms).'),
    'The model call failed: no answer within 2000 ms (--model-timeout 2s).',
  );
  assert.equal(
    inFlagNames('maxSteps must be a whole number of at least 1, got 0.'),
    '--max-steps must be a whole number of at least 1, got 0.',
  );
  assert.equal(inFlagNames('(timeoutMs: 1500 ms)'), '(--timeout 1.5s)');
  assert.equal(inFlagNames('no option here'), 'no option here');
});

test('the CLI shows flags, not library options, in --json errors and the footer', async () => {
  const server = await startFakeOpenAI({
    replies: () => 'Thought: easy.\nAnswer: 4',
    responseDelayMs: 2_000,
  });
  try {
    const model = `openai-compatible:${server.baseURL}#m`;
    const { env } = cliEnv();
    const args = ['run', 'What is 2 + 2?', '--model', model, '--model-timeout', '200ms'];
    const json = await runCli([...args, '--json'], { env });
    assert.equal(json.code, 1, json.stderr);
    const { status, error } = JSON.parse(json.stdout);
    assert.equal(status, 'error');
    assert.match(error, /\(--model-timeout 0\.2s\)/);
    assert.doesNotMatch(error, /modelTimeoutMs/);
    const text = await runCli(args, { env });
    assert.match(text.stdout, /\(--model-timeout 0\.2s\)/);
    assert.doesNotMatch(text.stdout + text.stderr, /modelTimeoutMs/);
  } finally {
    await server.close();
  }
});
