import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as restate from '@restatedev/restate-sdk';
import { parseApprovalAnswer, parseRunRequest, restateJournal } from '../../src/restate/service.js';

test('run requests are checked before a run starts', () => {
  assert.deepEqual(parseRunRequest({ question: 'q', maxSteps: 3, metadata: { itemId: '7' } }), {
    question: 'q',
    maxSteps: 3,
    metadata: { itemId: '7' },
  });
  for (const bad of [
    null,
    'q',
    { question: '' },
    { question: 'q', maxSteps: 0 },
    { question: 'q', metadata: { n: 1 } },
  ]) {
    assert.throws(() => parseRunRequest(bad), restate.TerminalError, JSON.stringify(bad));
  }
});

test('approval answers must carry a step and a known decision', () => {
  assert.deepEqual(parseApprovalAnswer({ step: 2, decision: { type: 'edit', input: 'x' } }), {
    step: 2,
    decision: { type: 'edit', input: 'x' },
  });
  assert.deepEqual(parseApprovalAnswer({ step: 1, decision: { type: 'reject', extra: 1 } }), {
    step: 1,
    decision: { type: 'reject' },
  });
  for (const bad of [
    { decision: { type: 'approve' } },
    { step: 1, decision: { type: 'maybe' } },
    { step: 1 },
  ]) {
    assert.throws(() => parseApprovalAnswer(bad), restate.TerminalError, JSON.stringify(bad));
  }
});

test('the journal records model and tool calls with ctx.run and leaves approvals to durable promises', async () => {
  const runs: string[] = [];
  const ctx = {
    run: (name: string, effect: () => Promise<unknown>, options: unknown) => {
      runs.push(`${name} ${JSON.stringify(options)}`);
      return effect();
    },
  } as unknown as restate.Context;
  const journal = restateJournal(ctx, { maxRetryAttempts: 2 });
  assert.equal(await journal('step-1-model', async () => 'turn'), 'turn');
  assert.equal(await journal('step-1-approval', async () => 'decision'), 'decision');
  assert.equal(await journal('step-1-tool', async () => 'observation'), 'observation');
  assert.deepEqual(runs, ['step-1-model {"maxRetryAttempts":2}', 'step-1-tool {"maxRetryAttempts":2}']);
});
