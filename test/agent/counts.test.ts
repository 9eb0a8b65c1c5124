/**
 * Every model call a run makes counts (issues 15 and 19): hooks' calls, nested agents' calls and fallback
 * models' calls are all in `usage` and `usageByModel`, and `usageByModel` sums to `usage`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentTool } from '../../src/agent/agent-tool.js';
import { runAgent } from '../../src/agent/loop.js';
import { addUsage } from '../../src/agent/model-call.js';
import type { RunUsage } from '../../src/agent/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';

/** `usageByModel` summed the way `usage` is. */
function sumByModel(byModel: Record<string, RunUsage> | undefined): RunUsage {
  return Object.values(byModel ?? {}).reduce(addUsage, {});
}

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
    fallbackModels: [
      scriptedModel([NESTED_ACT], { id: 'inner-backup', usage: { inputTokens: 30, outputTokens: 3 } }),
    ],
    tools: [calculator],
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
    fallbackModels: [
      scriptedModel(['Thought: add.\nAction: calculator[2 + 2]', NESTED_ANSWER], {
        id: 'backup',
        usage: { inputTokens: 20, outputTokens: 2 },
      }),
    ],
    question: '2 + 2?',
    tools: [calculator],
    prepareStep: async ({ step, generate }) => {
      if (step === 1) await generate(summarizer, { messages: [{ role: 'user', content: 'note' }] }, 'note');
      return undefined;
    },
  });
  assert.equal(result.status, 'answered');
  assert.deepEqual(result.usageByModel, {
    backup: { inputTokens: 40, outputTokens: 4, cachedInputTokens: undefined },
    summarizer: { inputTokens: 7, outputTokens: 1, cachedInputTokens: undefined },
  });
  assert.deepEqual(sumByModel(result.usageByModel), result.usage);
});
