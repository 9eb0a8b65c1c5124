/**
 * A model turn that floods one native step with tool calls (issue 27): at most `limits.maxToolCallsPerStep`
 * of them run or ask approval; every call past it is answered "not run" and counted on the step.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AgentConfigError } from '../../src/agent/errors.js';
import { runAgent } from '../../src/agent/loop.js';
import { DEFAULT_MAX_TOOL_CALLS_PER_STEP } from '../../src/agent/native-calls.js';
import { defineTool } from '../../src/tools/define.js';
import { appendTool, nativeReplyModel, TEST_SECRET, textToolCall } from '../helpers/agent-run.js';

const calls = (count: number, name: string) =>
  Array.from({ length: count }, (_, i) => textToolCall(`c${i}`, name, `line ${i}`));

test('1,000 calls of an allowed write tool in one step with maxSteps 1: only the default cap runs', async () => {
  const t = appendTool();
  const result = await runAgent({
    model: nativeReplyModel([calls(1000, 'append'), 'done']),
    question: 'Append.',
    tools: [t.tool],
    maxSteps: 1,
    limits: { allowTools: ['append'] },
    modelSettings: { mode: 'native' },
  });
  assert.equal(t.lines.length, DEFAULT_MAX_TOOL_CALLS_PER_STEP);
  const [step] = result.steps;
  assert.equal(step!.callsOverLimit, 1000 - DEFAULT_MAX_TOOL_CALLS_PER_STEP);
  // Every call is answered (a provider refuses a tool call left without a result).
  assert.equal(1 + (step!.otherCalls?.length ?? 0), 1000);
  const last = step!.otherCalls!.at(-1)!;
  assert.equal(last.observation.ok, false);
  assert.match(
    last.observation.text,
    /Not run: this step made 1000 tool calls and at most 16 run in one step/,
  );
});

test('10,000 read calls in one step run only up to the cap set in limits', async () => {
  let reads = 0;
  const look = defineTool({
    name: 'look',
    description: 'Looks.',
    input: 'text',
    run: () => `seen ${++reads}`,
  });
  const result = await runAgent({
    model: nativeReplyModel([calls(10_000, 'look'), 'done']),
    question: 'Look.',
    tools: [look],
    limits: { maxToolCallsPerStep: 3 },
    modelSettings: { mode: 'native' },
  });
  assert.equal(result.status, 'answered');
  assert.equal(reads, 3);
  assert.equal(result.steps[0]!.callsOverLimit, 9_997);
});

test('with pauseForApproval, a flooded step pauses with the cap of pending approvals, not 10,000', async () => {
  const t = appendTool();
  const result = await runAgent({
    model: nativeReplyModel([calls(10_000, 'append')]),
    question: 'Append.',
    tools: [t.tool],
    modelSettings: { mode: 'native' },
    durable: { pauseForApproval: true, secret: TEST_SECRET },
  });
  assert.equal(result.status, 'paused');
  assert.equal(result.pending!.length, DEFAULT_MAX_TOOL_CALLS_PER_STEP);
  assert.deepEqual(t.lines, []);
});

test('maxToolCallsPerStep that is not a whole number of at least 1 is a caller mistake', async () => {
  for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '3']) {
    await assert.rejects(
      runAgent({
        model: nativeReplyModel(['done']),
        question: 'q',
        tools: [],
        limits: { maxToolCallsPerStep: bad as number },
        modelSettings: { mode: 'native' },
      }),
      (error: unknown) =>
        error instanceof AgentConfigError &&
        error.message.includes(`not ${typeof bad === 'string' ? JSON.stringify(bad) : String(bad)}.`),
    );
  }
});
