/**
 * Every model call a run makes counts (issues 15 and 19): `repairToolCall`'s calls through `generate`,
 * hooks' calls, nested agents' calls and fallback models' calls are all in `usage`, `usageByModel`,
 * `costUsd` and the budgets, and `usageByModel` sums to `usage`.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { z } from 'zod';
import { agentTool } from '../../src/agent/agent-tool.js';
import { addUsage } from '../../src/agent/budget.js';
import { runAgent, streamAgent } from '../../src/agent/loop.js';
import { resumeAgent } from '../../src/agent/resume.js';
import type { RepairToolCallFunction } from '../../src/agent/tool-repair.js';
import type { RunState, RunUsage } from '../../src/agent/types.js';
import type { Model, ModelResponse, ModelToolCall, ModelUsage } from '../../src/models/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import { defineTool } from '../../src/tools/define.js';
import { createTraceWriter, readTrace } from '../../src/trace/trace.js';
import { collectRun } from '../helpers/agent-run.js';

/** A native model that makes the given calls, one reply per call, then answers; each reply reports `usage`. */
function nativeModel(
  id: string,
  calls: ModelToolCall[][],
  usage: ModelUsage,
): Model & { calls: () => number } {
  let made = 0;
  return {
    id,
    supportsToolCalls: true,
    calls: () => made,
    async generate(): Promise<ModelResponse> {
      const toolCalls = calls[made++];
      if (toolCalls) return { text: '', toolCalls, usage: { ...usage }, finishReason: 'tool-calls' };
      return { text: 'Answer: done', usage: { ...usage }, finishReason: 'stop' };
    },
  };
}

const convert = defineTool({
  name: 'convert',
  description: 'Converts USD to EUR.',
  input: z.object({ amountUsd: z.number() }),
  run: ({ amountUsd }) => `${amountUsd * 0.5} EUR`,
});

/** The model's call, with arguments that do not fit the schema. */
const BAD_CALL: ModelToolCall = { id: 'c1', name: 'convert', input: '{"amount":"10 dollars"}' };

/** A repair that asks `fixer` (through `generate`, so the call counts) for arguments that fit. */
const askFixer =
  (fixer: Model): RepairToolCallFunction =>
  async ({ toolCall, generate }) => {
    const reply = await generate(fixer, { messages: [{ role: 'user', content: `Fix: ${toolCall.input}` }] });
    return { ...toolCall, input: reply.text };
  };

/** `usageByModel` summed the way `usage` is. */
function sumByModel(byModel: Record<string, RunUsage> | undefined): RunUsage {
  return Object.values(byModel ?? {}).reduce(addUsage, {});
}

const PRICES = {
  native: { inputUsdPerMTok: 1, outputUsdPerMTok: 1 },
  fixer: { inputUsdPerMTok: 10, outputUsdPerMTok: 10 },
};

test("repairToolCall's model calls count in usage, usageByModel, cost, the events and the trace", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'taoloop-counts-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const model = nativeModel('native', [[BAD_CALL]], { inputTokens: 100, outputTokens: 10 });
  const fixer = scriptedModel(['{"amountUsd":10}'], {
    id: 'fixer',
    usage: { inputTokens: 50, outputTokens: 5 },
  });
  const file = join(dir, 'run.jsonl');
  const writer = createTraceWriter(file, { question: '10 USD in EUR?', modelId: 'native' });
  const { events, result } = await collectRun(
    streamAgent({
      model,
      question: '10 USD in EUR?',
      tools: [convert],
      modelSettings: { mode: 'native' },
      limits: { prices: PRICES },
      hooks: { repairToolCall: askFixer(fixer) },
    }),
  );
  for (const event of events) writer.write(event);
  fixer.assertAllUsed();
  assert.equal(result.status, 'answered');
  assert.equal(result.steps[0]!.observation?.text, '5 EUR');
  assert.equal(result.usage.inputTokens, 250, 'two calls of the run and one of the repair');
  assert.equal(result.usage.outputTokens, 25);
  assert.deepEqual(Object.keys(result.usageByModel ?? {}).sort(), ['fixer', 'native']);
  assert.equal(result.usageByModel!.fixer!.inputTokens, 50);
  assert.equal(result.usageByModel!.native!.inputTokens, 200);
  assert.deepEqual(sumByModel(result.usageByModel), result.usage);
  // 220 tokens at $1 per million and 55 at $10 per million.
  assert.equal(result.costUsd, (220 + 550) / 1e6);

  const repairEvents = events.filter((e) => e.type === 'hook-model-end');
  assert.deepEqual(repairEvents, [
    {
      type: 'hook-model-end',
      step: 1,
      modelId: 'fixer',
      text: '{"amountUsd":10}',
      usage: { inputTokens: 50, outputTokens: 5 },
      purpose: 'repairToolCall',
      costUsd: 550 / 1e6,
    },
  ]);
  const kept = readTrace(file).events.find((e) => e.type === 'hook-model-end');
  assert.equal(kept?.type === 'hook-model-end' && kept.usage.inputTokens, 50, 'the trace keeps the call');
});

test('a repair call that uses up the token budget stops the run with budget before the next model call', async () => {
  const model = nativeModel('native', [[BAD_CALL]], { inputTokens: 100, outputTokens: 0 });
  const fixer = scriptedModel(['{"amountUsd":10}'], {
    id: 'fixer',
    usage: { inputTokens: 1000, outputTokens: 0 },
  });
  const result = await runAgent({
    model,
    question: '10 USD in EUR?',
    tools: [convert],
    modelSettings: { mode: 'native' },
    limits: { maxTokens: 600 },
    hooks: { repairToolCall: askFixer(fixer) },
  });
  fixer.assertAllUsed();
  assert.equal(result.steps[0]!.observation?.text, '5 EUR', 'the repaired call ran');
  assert.equal(model.calls(), 1, 'no second call of the run: the repair used the budget');
  assert.equal(result.status, 'budget');
  assert.match(result.error ?? '', /^token budget: 1100 of 600 tokens used/);
});

test("a repair's model call is not made when the budget has no room for it", async () => {
  const model = nativeModel('native', [[BAD_CALL]], { inputTokens: 100, outputTokens: 0 });
  const fixer = scriptedModel(['{"amount":10}', '{"amountUsd":10}'], {
    id: 'fixer',
    usage: { inputTokens: 1000, outputTokens: 0 },
  });
  const result = await runAgent({
    model,
    question: '10 USD in EUR?',
    tools: [convert],
    modelSettings: { mode: 'native' },
    limits: { maxTokens: 600 },
    hooks: {
      repairToolCall: async ({ toolCall, generate }) => {
        const ask = { messages: [{ role: 'user' as const, content: `Fix: ${toolCall.input}` }] };
        await generate(fixer, ask); // 1,000 tokens: the budget is spent
        const reply = await generate(fixer, ask);
        return { ...toolCall, input: reply.text };
      },
    },
  });
  assert.equal(fixer.requests.length, 1, 'the second repair call was refused before it started');
  const [repair] = result.steps[0]!.toolCallRepairs!;
  assert.match(repair!.repairError ?? '', /^token budget: 1100 of 600/);
  assert.equal(result.status, 'budget');
  assert.equal(result.usage.inputTokens, 1100);
});

test('a resumed run does not call the repair again and still counts its model calls', async () => {
  const send = defineTool({
    name: 'send',
    description: 'Sends an amount.',
    input: z.object({ amountUsd: z.number() }),
    effects: 'external',
    run: ({ amountUsd }) => `sent ${amountUsd}`,
  });
  const model = nativeModel('native', [[{ ...BAD_CALL, name: 'send' }]], {
    inputTokens: 100,
    outputTokens: 10,
  });
  const fixer = scriptedModel(['{"amountUsd":10}'], {
    id: 'fixer',
    usage: { inputTokens: 50, outputTokens: 5 },
  });
  const options = {
    model,
    question: 'Send 10 USD.',
    tools: [send],
    modelSettings: { mode: 'native' as const },
    durable: { pauseForApproval: true },
    hooks: { repairToolCall: askFixer(fixer) },
  };
  const paused = await runAgent(options);
  assert.equal(paused.status, 'paused');
  assert.equal(paused.usageByModel?.fixer?.inputTokens, 50);
  const state = JSON.parse(JSON.stringify(paused.state)) as RunState;
  const resumed = await resumeAgent({
    ...options,
    state,
    decisions: { [paused.pending![0]!.id]: { type: 'approve' } },
  });
  assert.equal(resumed.status, 'answered');
  assert.equal(resumed.steps[0]!.observation?.text, 'sent 10');
  fixer.assertAllUsed(); // called once over both runs
  assert.equal(model.calls(), 2);
  // The resumed run counts the whole run: its replayed step, the repair's call and its new step.
  assert.deepEqual(resumed.usageByModel, {
    native: { inputTokens: 200, outputTokens: 20, cachedInputTokens: undefined },
    fixer: { inputTokens: 50, outputTokens: 5, cachedInputTokens: undefined },
  });
  assert.deepEqual(sumByModel(resumed.usageByModel), resumed.usage);
});

const ASK = 'Thought: ask the helper.\nAction: helper[what is 2 + 2?]';
const NESTED_ACT = 'Thought: add.\nAction: calculator[2 + 2]';
const NESTED_ANSWER = 'Thought: done.\nAnswer: 4';
const PARENT_ANSWER = 'Thought: the helper says 4.\nAnswer: 4';

test("a nested agent's calls are in the parent's usageByModel under its own models, fallbacks included", async () => {
  const helper = agentTool({
    name: 'helper',
    description: 'Adds.',
    // The nested model fails its first call; its fallback answers it.
    model: scriptedModel([new Error('HTTP 500'), NESTED_ANSWER], {
      id: 'inner',
      usage: { inputTokens: 50, outputTokens: 5 },
    }),
    tools: [calculator],
    modelSettings: {
      fallbackModels: [
        scriptedModel([NESTED_ACT], { id: 'inner-backup', usage: { inputTokens: 30, outputTokens: 3 } }),
      ],
    },
  });
  const result = await runAgent({
    model: scriptedModel([ASK, PARENT_ANSWER], {
      id: 'outer',
      usage: { inputTokens: 100, outputTokens: 10 },
    }),
    question: '2 + 2?',
    tools: [helper],
  });
  assert.equal(result.status, 'answered');
  assert.deepEqual(Object.keys(result.usageByModel ?? {}).sort(), ['inner', 'inner-backup', 'outer']);
  assert.equal(result.usageByModel!.outer!.inputTokens, 200);
  assert.equal(result.usageByModel!.inner!.inputTokens, 50, 'the failed attempt reported nothing');
  assert.equal(result.usageByModel!['inner-backup']!.inputTokens, 30);
  assert.equal(result.usage.inputTokens, 280);
  assert.deepEqual(sumByModel(result.usageByModel), result.usage);
});

test("a step the fallback answered and a hook's model call are each under their own model", async () => {
  const summarizer = scriptedModel(['a note'], {
    id: 'summarizer',
    usage: { inputTokens: 7, outputTokens: 1 },
  });
  const result = await runAgent({
    model: scriptedModel([new Error('overloaded'), new Error('overloaded')], { id: 'primary' }),
    question: '2 + 2?',
    tools: [calculator],
    modelSettings: {
      fallbackModels: [
        scriptedModel(['Thought: add.\nAction: calculator[2 + 2]', NESTED_ANSWER], {
          id: 'backup',
          usage: { inputTokens: 20, outputTokens: 2 },
        }),
      ],
    },
    hooks: {
      prepareStep: async ({ step, generate }) => {
        if (step === 1) await generate(summarizer, { messages: [{ role: 'user', content: 'note' }] }, 'note');
        return undefined;
      },
    },
  });
  assert.equal(result.status, 'answered');
  assert.deepEqual(result.usageByModel, {
    backup: { inputTokens: 40, outputTokens: 4, cachedInputTokens: undefined },
    summarizer: { inputTokens: 7, outputTokens: 1, cachedInputTokens: undefined },
  });
  assert.deepEqual(sumByModel(result.usageByModel), result.usage);
});
