import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cleanEnv, runCli } from '../helpers/cli.js';

test('taoloop models shows the chain and why the first available model is chosen', async () => {
  const { code, stdout } = await runCli(['models'], { env: cleanEnv({ ANTHROPIC_API_KEY: 'test-key' }) });
  assert.equal(code, 0);
  assert.match(stdout, /TAOLOOP_MODEL\s+-\s+no/);
  assert.match(stdout, /^\*\s+API key\s+anthropic:claude-3-5-haiku-latest\s+yes/m);
  assert.match(stdout, /Chosen: anthropic:claude-3-5-haiku-latest/);
});

test('taoloop models --json with TAOLOOP_MODEL set', async () => {
  const { code, stdout } = await runCli(['models', '--json'], {
    env: cleanEnv({ TAOLOOP_MODEL: 'ollama:qwen2.5' }),
  });
  assert.equal(code, 0);
  const description = JSON.parse(stdout);
  assert.equal(description.chosen.spec, 'ollama:qwen2.5');
  assert.equal(description.chosen.source, 'env');
});
