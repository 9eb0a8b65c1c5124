import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  answerApproval,
  pendingApproval,
  RestateClientError,
  registerDeployment,
  runResult,
  startDurableRun,
  submitRun,
} from '../../src/restate/client.js';
import { freePort, invocationStatus, type RestateHarness, startRestate, waitFor } from './harness.js';

/** Lines of a counter file the workers append to. */
function lines(restate: RestateHarness, file: string): string[] {
  const path = join(restate.dir, file);
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

/** Waits for a run's result, failing the test (with the server log) rather than hanging. */
async function result(restate: RestateHarness, runId: string) {
  try {
    return await runResult(restate.ingressUrl, runId, { signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    throw new Error(`no result for ${runId}: ${error}\n--- restate-server log ---\n${restate.log()}`);
  }
}

test('a worker killed mid-run is resumed from the journal: no model call or write repeated', {
  timeout: 60_000,
}, async (t) => {
  const restate = await startRestate();
  t.after(() => restate.close());
  const port = await freePort();
  const first = await restate.startWorker(port, { TAOLOOP_TEST_BLOCK_READ: '1' });
  await registerDeployment(restate.adminUrl, `http://127.0.0.1:${port}`);

  const runId = await startDurableRun(
    restate.ingressUrl,
    { question: 'What do the notes say?', metadata: { scenario: 'crash' } },
    { idempotencyKey: 'crash-run' },
  );
  // Step 2's read tool hangs in the first worker: steps 1 and 2's model calls and step 1's write are journaled.
  await waitFor('the read tool of step 2 to start', () => existsSync(join(restate.dir, 'read-blocked')));
  assert.deepEqual(lines(restate, 'model-calls'), ['crash:1', 'crash:2']);
  await restate.killWorker(first);
  await restate.startWorker(port);

  const run = await result(restate, runId);
  assert.equal(run.status, 'answered');
  assert.equal(run.answer, 'wrote alpha (write #1) | notes: alpha | wrote beta (write #2)');
  assert.equal(run.steps.length, 4);
  assert.deepEqual(
    lines(restate, 'model-calls'),
    ['crash:1', 'crash:2', 'crash:3', 'crash:4'],
    'the model was called exactly once per step across both workers',
  );
  assert.deepEqual(lines(restate, 'write-calls'), ['alpha', 'beta'], 'each write ran exactly once');
  // The read call was in flight when the worker died, so it ran again on the new worker (at least once).
  assert.equal(new Set(lines(restate, 'read-calls')).size, 2);

  // Submitting the same run ID again returns the recorded result and runs nothing.
  await startDurableRun(
    restate.ingressUrl,
    { question: 'again', metadata: { scenario: 'crash' } },
    { idempotencyKey: runId },
  );
  assert.equal((await result(restate, runId)).answer, run.answer);
  assert.equal(lines(restate, 'model-calls').length, 4);
});

test('an approval answered through the ingress after the run suspended and the worker restarted runs the tool once', {
  timeout: 60_000,
}, async (t) => {
  // A short inactivity timeout makes Restate suspend the waiting run, as it would after a minute.
  const restate = await startRestate({ RESTATE_WORKER__INVOKER__INACTIVITY_TIMEOUT: '300ms' });
  t.after(() => restate.close());
  const port = await freePort();
  const first = await restate.startWorker(port);
  await registerDeployment(restate.adminUrl, `http://127.0.0.1:${port}`);

  const runId = await startDurableRun(
    restate.ingressUrl,
    { question: 'Write gamma.', metadata: { scenario: 'approval' } },
    { idempotencyKey: 'approval-run' },
  );
  const pending = await waitFor(
    'the pending approval',
    async () => (await pendingApproval(restate.ingressUrl, runId)) ?? undefined,
  );
  assert.deepEqual(pending, { step: 1, tool: 'write', input: 'gamma', effects: 'write' });
  assert.deepEqual(lines(restate, 'write-calls'), [], 'nothing was written before the approval');
  await waitFor(
    'the run to suspend',
    async () => (await invocationStatus(restate.adminUrl, `taoloopAgent/${runId}/run`)) === 'suspended',
  );
  assert.deepEqual(lines(restate, 'model-calls'), ['approval:1']);

  await restate.killWorker(first);
  await restate.startWorker(port);
  // An answer must name the waiting request: another input, another step, or an answer sent before the
  // run asked (for a step that is not waiting) is refused, and approves nothing.
  for (const wrong of [{ input: 'delta' }, { step: 2 }, { tool: 'read' }]) {
    await assert.rejects(
      answerApproval(restate.ingressUrl, runId, { ...pending, ...wrong, decision: { type: 'approve' } }),
      (error) =>
        error instanceof RestateClientError &&
        error.status === 409 &&
        /waits for the approval of write\[gamma\] at step 1, not .*nothing was approved/.test(error.message),
      JSON.stringify(wrong),
    );
  }
  await assert.rejects(
    answerApproval(restate.ingressUrl, runId, { step: 1, decision: { type: 'approve' } } as never),
    (error) =>
      error instanceof RestateClientError && error.status === 400 && /name the request/.test(error.message),
  );
  await answerApproval(restate.ingressUrl, runId, { ...pending, decision: { type: 'approve' } });

  const run = await result(restate, runId);
  assert.equal(run.status, 'answered');
  assert.equal(run.answer, 'wrote gamma (write #1)');
  assert.deepEqual(run.steps[0]?.observation?.approval, { type: 'approve' });
  assert.deepEqual(lines(restate, 'write-calls'), ['gamma'], 'the approved write ran exactly once');
  assert.deepEqual(lines(restate, 'model-calls'), ['approval:1', 'approval:2']);
  assert.equal(await pendingApproval(restate.ingressUrl, runId), null);
  // A second (late) answer is refused: nothing waits any more.
  await assert.rejects(
    answerApproval(restate.ingressUrl, runId, { ...pending, decision: { type: 'approve' } }),
    (error) =>
      error instanceof RestateClientError &&
      error.status === 409 &&
      /no approval is waiting/.test(error.message),
  );
  assert.deepEqual(lines(restate, 'write-calls'), ['gamma']);
});

test('failures end the run instead of retrying forever', { timeout: 60_000 }, async (t) => {
  const restate = await startRestate();
  t.after(() => restate.close());
  const port = await freePort();
  await restate.startWorker(port);
  await registerDeployment(restate.adminUrl, `http://127.0.0.1:${port}`);
  const signal = AbortSignal.timeout(30_000);

  // A model call that keeps failing is retried (here twice in all), then journaled as failed: status `error`.
  const run = await submitRun(
    restate.ingressUrl,
    { question: 'Anything?', metadata: { scenario: 'failing' } },
    { signal },
  );
  assert.equal(run.status, 'error');
  assert.match(run.error ?? '', /provider is down/);
  assert.deepEqual(lines(restate, 'model-calls'), ['failing:1', 'failing:1']);

  // A malformed request fails terminally, with the reason.
  await assert.rejects(
    submitRun(restate.ingressUrl, { question: ' ' }, { signal }),
    (error) => error instanceof RestateClientError && /non-empty "question"/.test(error.message),
  );
});
