import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AgentConfigError } from '../../src/agent/errors.js';
import { runAgent } from '../../src/agent/loop.js';
import { costUsd, findPrice } from '../../src/models/pricing.js';
import type { Model } from '../../src/models/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import type { Tool } from '../../src/tools/types.js';

const act = 'Thought: t\nAction: calculator[1 + 1]';

test('maxTokens stops the run before a call that would start over the limit', async () => {
  const model = scriptedModel([act, act, act, act], { usage: { inputTokens: 500, outputTokens: 50 } });
  const result = await runAgent({ model, question: 'q', tools: [calculator], limits: { maxTokens: 1200 } });
  assert.equal(result.status, 'budget');
  assert.match(result.error ?? '', /^token budget: 1100 of 1200 tokens used/);
  assert.equal(model.requests.length, 2, 'the third call never started');
  assert.equal(result.steps.length, 2);
});

test('format retries count against the token budget', async () => {
  const model = scriptedModel(['prose', act, 'prose', act], {
    usage: { inputTokens: 300, outputTokens: 10 },
  });
  const result = await runAgent({ model, question: 'q', tools: [calculator], limits: { maxTokens: 700 } });
  assert.equal(result.status, 'budget');
  assert.equal(model.requests.length, 2);
});

test('cost per step and per run from the price table, exact to the cent fraction', async () => {
  const model = scriptedModel([act, 'Thought: t\nAnswer: 2'], {
    id: 'openai:gpt-4o-mini',
    usage: { inputTokens: 1_000_000, outputTokens: 100_000, cachedInputTokens: 200_000 },
  });
  const result = await runAgent({ model, question: 'q', tools: [calculator] });
  // 800k * 0.15 + 200k * 0.075 + 100k * 0.60, per million: 0.12 + 0.015 + 0.06
  assert.equal(result.steps[0]!.costUsd, 0.195);
  assert.equal(result.costUsd, 0.39);
});

test('cache reads and cache writes are billed at their own prices, not again as input', async () => {
  const model = scriptedModel([act, 'Thought: t\nAnswer: 2'], {
    id: 'anthropic:claude-sonnet-4-20250514',
    usage: {
      inputTokens: 1_000_000,
      outputTokens: 10_000,
      cachedInputTokens: 600_000,
      cacheWriteInputTokens: 300_000,
    },
  });
  const result = await runAgent({ model, question: 'q', tools: [calculator] });
  // 100k * $3 + 600k * $0.30 + 300k * $3.75 + 10k * $15, per million: 0.3 + 0.18 + 1.125 + 0.15
  assert.equal(result.steps[0]!.costUsd, 1.755);
  assert.equal(result.costUsd, 3.51);
  assert.deepEqual(result.usage, {
    inputTokens: 2_000_000,
    outputTokens: 20_000,
    cachedInputTokens: 1_200_000,
    cacheWriteInputTokens: 600_000,
  });
  assert.equal(
    costUsd(
      { inputTokens: 100, outputTokens: 0, cacheWriteInputTokens: 100 },
      { inputUsdPerMTok: 1, outputUsdPerMTok: 1 },
    ),
    0.0001,
    'a write price defaults to the input price',
  );
});

test('maxCostUsd stops before a call whose input would go over', async () => {
  const model = scriptedModel([act, act, act], {
    id: 'openai:gpt-4o',
    usage: { inputTokens: 1000, outputTokens: 100 },
  });
  // Each call costs 1000 * 2.5e-6 + 100 * 10e-6 = $0.0035.
  const result = await runAgent({ model, question: 'q', tools: [calculator], limits: { maxCostUsd: 0.007 } });
  assert.equal(result.status, 'budget');
  assert.match(result.error ?? '', /^cost budget: \$0\.007000 of \$0\.007 spent/);
  assert.equal(model.requests.length, 2);
});

test('maxCostUsd with no known price is a caller error; prices can be added', async () => {
  const model = scriptedModel(['Thought: t\nAnswer: 2'], { id: 'openai-compatible:http://x/v1#mystery' });
  await assert.rejects(
    runAgent({ model, question: 'q', tools: [], limits: { maxCostUsd: 1 } }),
    AgentConfigError,
  );
  const priced = scriptedModel(['Thought: t\nAnswer: 2'], {
    id: 'openai-compatible:http://x/v1#mystery',
    usage: { inputTokens: 10, outputTokens: 10 },
  });
  const result = await runAgent({
    model: priced,
    question: 'q',
    tools: [],
    limits: { maxCostUsd: 1, prices: { mystery: { inputUsdPerMTok: 1, outputUsdPerMTok: 2 } } },
  });
  assert.equal(result.costUsd, 0.00003);
});

test('unknown usage stays undefined, never a fake 0', async () => {
  const result = await runAgent({
    model: scriptedModel(['Thought: t\nAnswer: 2']),
    question: 'q',
    tools: [],
  });
  assert.deepEqual(result.usage, {
    inputTokens: undefined,
    outputTokens: undefined,
    cachedInputTokens: undefined,
  });
  assert.equal(result.costUsd, undefined);
});

test('timeoutMs bounds the whole run and ends it with budget', async () => {
  const slow: Tool = {
    name: 'slow',
    description: 'Waits until cancelled.',
    run: (_, { signal }) =>
      new Promise((resolve) => signal.addEventListener('abort', () => resolve('cancelled'))),
  };
  const model = scriptedModel(['Thought: t\nAction: slow[]']);
  const result = await runAgent({ model, question: 'q', tools: [slow], limits: { timeoutMs: 100 } });
  assert.equal(result.status, 'budget');
  assert.match(result.error ?? '', /time budget: the run took longer than 100 ms/);
  assert.equal(result.steps.length, 1);
});

test('modelTimeoutMs fails a call that takes too long, keeping the trace', async () => {
  const hanging: Model = {
    id: 'hanging',
    generate: (request) =>
      new Promise((_, reject) =>
        request.signal?.addEventListener('abort', () => reject(request.signal?.reason)),
      ),
  };
  const result = await runAgent({ model: hanging, question: 'q', tools: [], limits: { modelTimeoutMs: 50 } });
  assert.equal(result.status, 'error');
  assert.match(result.error ?? '', /no answer within 50 ms/);
});

test('prices match by the longest model name prefix', () => {
  assert.equal(findPrice('openai:gpt-4o-mini-2024-07-18')?.inputUsdPerMTok, 0.15);
  assert.equal(findPrice('openai:gpt-4o')?.inputUsdPerMTok, 2.5);
  assert.equal(findPrice('local:/models/qwen.gguf')?.inputUsdPerMTok, 0);
  assert.equal(findPrice('openai-compatible:http://127.0.0.1:8080/v1#my-model'), undefined);
  assert.equal(costUsd({ inputTokens: 10 }, findPrice('openai:gpt-4o')), undefined);
});

test('a consumer that stops reading early does not keep the process alive until timeoutMs', async () => {
  const { spawnSync } = await import('node:child_process');
  const script = `
    const { streamAgent } = await import('./src/agent/loop.ts');
    const { scriptedModel } = await import('./src/testing/scripted-model.ts');
    const run = streamAgent({ model: scriptedModel(['Thought: t\\nAnswer: 1']), question: 'q', tools: [], limits: { timeoutMs: 60000 } });
    for await (const event of run) if (event.type === 'run-start') break;
    console.log('done');`;
  const started = performance.now();
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: new URL('../../', import.meta.url),
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(child.stdout.trim(), 'done', child.stderr);
  assert.ok(performance.now() - started < 20_000, 'exited long before the 60 s run timeout');
});
