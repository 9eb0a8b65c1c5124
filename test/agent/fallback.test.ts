import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runAgent, streamAgent } from '../../src/agent/loop.js';
import type { AgentEvent } from '../../src/agent/types.js';
import { resolveModelSpec } from '../../src/models/spec.js';
import { calculator } from '../../src/tools/calculator.js';
import { type FakeOpenAIOptions, startFakeOpenAI } from '../helpers/fake-openai-server.js';

const ACTION = 'Thought: I need the total.\nAction: calculator[20 * 12 * 7]';
const ANSWER = 'Thought: Done.\nAnswer: $1,680';
const PRICES = {
  'primary-model': { inputUsdPerMTok: 1, outputUsdPerMTok: 1 },
  'backup-model': { inputUsdPerMTok: 10, outputUsdPerMTok: 10 },
};

async function withServers(
  primary: FakeOpenAIOptions,
  backup: FakeOpenAIOptions,
  body: (specs: { primary: string; backup: string }, counts: () => [number, number]) => Promise<void>,
) {
  const a = await startFakeOpenAI({ keepRequests: true, ...primary });
  const b = await startFakeOpenAI({ keepRequests: true, ...backup });
  try {
    await body(
      {
        primary: `openai-compatible:${a.baseURL}#primary-model`,
        backup: `openai-compatible:${b.baseURL}#backup-model`,
      },
      () => [a.requests.length, b.requests.length],
    );
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
}

const model = (spec: string) => resolveModelSpec(spec, {}, { maxRetries: 1 });

test('a model that answers HTTP 500 after its retries hands the call to the fallback; usage and cost are per model', () =>
  withServers(
    { replies: [ANSWER], failWhen: () => ({ status: 500, message: 'upstream broke' }) },
    { replies: [ACTION, ANSWER], usage: { promptTokens: 100, completionTokens: 10 } },
    async (specs, counts) => {
      const events: AgentEvent[] = [];
      const run = streamAgent({
        model: await model(specs.primary),
        question: 'What is 20 * 12 * 7?',
        tools: [calculator],
        modelSettings: { fallbackModels: [await model(specs.backup)] },
        limits: { prices: PRICES },
      });
      let next = await run.next();
      while (!next.done) {
        events.push(next.value);
        next = await run.next();
      }
      const result = next.value;
      assert.equal(result.status, 'answered');
      assert.equal(result.answer, '$1,680');
      const switches = events.filter((e) => e.type === 'model-fallback');
      assert.equal(switches.length, 2, 'each step starts with the first model again');
      assert.match(
        JSON.stringify(switches[0]),
        /"fromModelId":"[^"]*#primary-model","toModelId":"[^"]*#backup-model"/,
      );
      assert.match((switches[0] as { error: string }).error, /^Model call to .*#primary-model failed: /);
      assert.deepEqual(
        result.steps.map((s) => s.modelId),
        [specs.backup, specs.backup],
      );
      assert.deepEqual(result.usageByModel, {
        [specs.backup]: { inputTokens: 200, outputTokens: 20, cachedInputTokens: undefined },
      });
      // The backup's price: 110 tokens at $10/M per step.
      assert.equal(result.costUsd, 0.0022);
      const [primaryCalls, backupCalls] = counts();
      assert.ok(primaryCalls >= 2, 'every step tried the primary first');
      assert.equal(backupCalls, 2, 'one call at the backup per step');
    },
  ));

test('a context-length error goes to the fallback at once', () =>
  withServers(
    {
      replies: [ANSWER],
      failWhen: () => ({
        status: 400,
        message: "This model's maximum context length is 4096 tokens (context_length_exceeded)",
      }),
    },
    { replies: [ANSWER] },
    async (specs, counts) => {
      const result = await runAgent({
        model: await model(specs.primary),
        question: 'q',
        tools: [calculator],
        modelSettings: { fallbackModels: [await model(specs.backup)] },
      });
      assert.equal(result.status, 'answered');
      assert.equal(result.steps[0]?.modelId, specs.backup);
      assert.deepEqual(counts(), [1, 1], 'a 400 is not retried');
    },
  ));

test('a model that hangs past modelTimeoutMs hands the call to the fallback', () =>
  withServers({ replies: [ANSWER], responseDelayMs: 20_000 }, { replies: [ANSWER] }, async (specs) => {
    const started = Date.now();
    const result = await runAgent({
      model: await resolveModelSpec(specs.primary, {}, { maxRetries: 0 }),
      question: 'q',
      tools: [calculator],
      modelSettings: { fallbackModels: [await model(specs.backup)] },
      limits: { modelTimeoutMs: 3000 },
    });
    assert.equal(result.status, 'answered');
    assert.equal(result.steps[0]?.modelId, specs.backup);
    assert.ok(Date.now() - started < 15_000, 'the primary was left at its timeout, not awaited');
  }));

test('when every model fails, the run ends with the last error; an aborted run does not fall back', () =>
  withServers(
    { replies: [ANSWER], failWhen: () => ({ status: 500, message: 'primary down' }) },
    { replies: [ANSWER], failWhen: () => ({ status: 503, message: 'backup down' }) },
    async (specs, counts) => {
      const result = await runAgent({
        model: await model(specs.primary),
        question: 'q',
        tools: [calculator],
        modelSettings: { fallbackModels: [await model(specs.backup)] },
      });
      assert.equal(result.status, 'error');
      assert.match(result.error ?? '', /backup down/);
      const before = counts();
      const aborted = await runAgent({
        model: await model(specs.primary),
        question: 'q',
        tools: [calculator],
        signal: AbortSignal.abort(),
        modelSettings: { fallbackModels: [await model(specs.backup)] },
      });
      assert.equal(aborted.status, 'aborted');
      assert.deepEqual(counts(), before);
    },
  ));
