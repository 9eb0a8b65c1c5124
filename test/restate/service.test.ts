import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as restate from '@restatedev/restate-sdk';
import { mismatch } from '../../src/restate/approvals.js';
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

test('approval answers must name their request (step, tool, input) and carry a known decision', () => {
  assert.deepEqual(
    parseApprovalAnswer({ step: 2, tool: 'write', input: 'a', decision: { type: 'edit', input: 'x' } }),
    { step: 2, tool: 'write', input: 'a', decision: { type: 'edit', input: 'x' } },
  );
  assert.deepEqual(
    parseApprovalAnswer({
      step: 1,
      tool: 'w',
      input: '',
      effects: 'write',
      decision: { type: 'reject', extra: 1 },
    }),
    { step: 1, tool: 'w', input: '', decision: { type: 'reject' } },
  );
  for (const bad of [
    { decision: { type: 'approve' } },
    { step: 1, decision: { type: 'approve' } },
    { step: 1, tool: 'w', decision: { type: 'approve' } },
    { step: 1, tool: 'w', input: 'a', decision: { type: 'maybe' } },
    { step: 1, tool: 'w', input: 'a' },
  ]) {
    assert.throws(() => parseApprovalAnswer(bad), restate.TerminalError, JSON.stringify(bad));
  }
});

test('an answer for another step, tool or input, or when nothing waits, is refused with what waits', () => {
  const pending = { step: 7, tool: 'write', input: 'gamma', effects: 'write' as const };
  const answer = { step: 7, tool: 'write', input: 'gamma', decision: { type: 'approve' as const } };
  assert.equal(mismatch(answer, pending), undefined);
  assert.match(mismatch(answer, null) ?? '', /no approval is waiting .*write\[gamma\] at step 7/);
  for (const wrong of [{ step: 6 }, { tool: 'delete' }, { input: 'gamma ' }]) {
    assert.match(
      mismatch({ ...answer, ...wrong }, pending) ?? '',
      /the run waits for the approval of write\[gamma\] at step 7, not .*nothing was approved/,
      JSON.stringify(wrong),
    );
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

test('a result over the entry limit is a terminal failure, so the effect is not made again', async () => {
  const ctx = {
    run: (_name: string, effect: () => Promise<unknown>) => effect(),
  } as unknown as restate.Context;
  const journal = restateJournal(ctx, {}, 1024 * 1024);
  assert.equal((await journal('step-1-tool', async () => 'x'.repeat(1000))).length, 1000);
  await assert.rejects(
    journal('step-2-tool', async () => 'x'.repeat(2 * 1024 * 1024)),
    (error) =>
      error instanceof restate.TerminalError &&
      /step-2-tool: the result is 2\.0 MiB, over the journal's limit of 1\.0 MiB per entry/.test(
        error.message,
      ),
  );
});
