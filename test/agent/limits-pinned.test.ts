/**
 * Limits and counts that a mutation sample of the suite found unpinned (issue 28): the format-error count
 * is consecutive, unreported token counts are estimated against `maxTokens`, one call of unknown cost makes
 * the run's cost unknown, and a run never changes the caller's `messages`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runAgent } from '../../src/agent/loop.js';
import type { AgentMessage } from '../../src/agent/types.js';
import type { Model, ModelUsage } from '../../src/models/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';

const BAD = 'I am not sure what to do.';
const ACT = 'Thought: add.\nAction: calculator[1 + 1]';
const ANSWER = 'Thought: done.\nAnswer: 2';

/** A model answering each call with the next reply and the usage given for it. */
function usageModel(id: string, replies: { text: string; usage: ModelUsage }[]): Model {
  let call = 0;
  return {
    id,
    async generate() {
      const reply = replies[call++];
      if (!reply) throw new Error('called too often');
      return { text: reply.text, usage: reply.usage, finishReason: 'stop' };
    },
  };
}

test('maxConsecutiveFormatErrors counts format errors in a row: an action in between resets the count', async () => {
  const options = {
    question: 'What is 1 + 1?',
    tools: [calculator],
    limits: { maxConsecutiveFormatErrors: 2 },
  };
  const reset = await runAgent({ ...options, model: scriptedModel([BAD, ACT, BAD, ACT, BAD, ANSWER]) });
  assert.equal(reset.status, 'answered', 'never two in a row');
  assert.equal(reset.steps.length, 6);

  const inRow = await runAgent({ ...options, model: scriptedModel([BAD, BAD, ANSWER]) });
  assert.equal(inRow.status, 'format_errors');
  assert.equal(inRow.steps.length, 2, 'stopped at the second in a row');

  const three = await runAgent({
    ...options,
    limits: { maxConsecutiveFormatErrors: 3 },
    model: scriptedModel([BAD, BAD, BAD, ANSWER]),
  });
  assert.equal(three.status, 'format_errors');
  assert.equal(three.steps.length, 3, 'the limit is the count given, not the default 2');
});

test('output tokens a provider does not report are estimated against maxTokens', async () => {
  // The first call reports its input only, and writes about 1,000 tokens (4,000 characters).
  const long = `Thought: ${'x'.repeat(4000)}\nAction: calculator[1 + 1]`;
  const reported = (output?: number): ModelUsage =>
    output === undefined ? { inputTokens: 50 } : { inputTokens: 50, outputTokens: output };
  const run = (usage: ModelUsage) =>
    runAgent({
      model: usageModel('m', [
        { text: long, usage },
        { text: ANSWER, usage },
      ]),
      question: 'q',
      tools: [calculator],
      // Enough for a first call and a second small one, not for 1,000 unreported output tokens.
      limits: { maxTokens: 1800 },
    });
  const unreported = await run(reported());
  assert.equal(unreported.status, 'budget', 'the estimated output counts');
  assert.match(unreported.error ?? '', /token budget/);
  // The same turn reported as 10 output tokens leaves room for the second call.
  const small = await run(reported(10));
  assert.equal(small.status, 'answered', small.error);
});

test('one call of unknown cost makes the run cost unknown, not lower', async () => {
  const prices = { priced: { inputUsdPerMTok: 1, outputUsdPerMTok: 2 } };
  const known: ModelUsage = { inputTokens: 1000, outputTokens: 100 };
  const both = await runAgent({
    model: usageModel('priced', [
      { text: ACT, usage: known },
      { text: ANSWER, usage: known },
    ]),
    question: 'q',
    tools: [calculator],
    limits: { prices },
  });
  assert.equal(both.costUsd, (2 * (1000 * 1 + 100 * 2)) / 1e6);
  const oneUnknown = await runAgent({
    model: usageModel('priced', [
      { text: ACT, usage: known },
      { text: ANSWER, usage: {} },
    ]),
    question: 'q',
    tools: [calculator],
    limits: { prices },
  });
  assert.equal(oneUnknown.status, 'answered');
  assert.equal(oneUnknown.costUsd, undefined);
});

test("a run never changes the caller's messages array or its messages", async () => {
  const messages: AgentMessage[] = [
    { role: 'user', content: 'What is 1 + 1?' },
    { role: 'assistant', content: 'Let me see.' },
    { role: 'user', content: [{ type: 'text', text: 'Please compute it.' }] },
  ];
  const before = structuredClone(messages);
  const result = await runAgent({ model: scriptedModel([ACT, ANSWER]), messages, tools: [calculator] });
  assert.equal(result.status, 'answered');
  assert.deepEqual(messages, before);
  assert.notEqual(result.messages, messages, 'the result has its own array');
  assert.equal(result.messages.length, 4);
  // Frozen, the same: a write would throw.
  const frozen = Object.freeze(before.map((m) => Object.freeze({ ...m })));
  const again = await runAgent({
    model: scriptedModel([ACT, ANSWER]),
    messages: frozen,
    tools: [calculator],
  });
  assert.equal(again.status, 'answered', again.error);
});
