/**
 * The edges of durable runs (issue 15): bounded journal entries, deterministic resume, call IDs that
 * survive a crash, and approvals that time out. One restate-server and one worker (restarted after each
 * kill, on the same port) for the whole file; the tests run one after another.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pendingApproval, registerDeployment, runResult, startDurableRun } from '../../src/restate/client.js';
import { freePort, type RestateHarness, startRestate, waitFor } from './harness.js';

let restate: RestateHarness;
let port: number;
let worker: ChildProcess;
const WORKER_ENV = { TAOLOOP_TEST_APPROVAL_TIMEOUT_MS: '500' };

before(async () => {
  restate = await startRestate();
  port = await freePort();
  worker = await restate.startWorker(port, WORKER_ENV);
  await registerDeployment(restate.adminUrl, `http://127.0.0.1:${port}`);
});
after(() => restate.close());

function lines(file: string): string[] {
  const path = join(restate.dir, file);
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

async function result(runId: string) {
  try {
    return await runResult(restate.ingressUrl, runId, { signal: AbortSignal.timeout(60_000) });
  } catch (error) {
    throw new Error(`no result for ${runId}: ${error}\n--- restate-server log ---\n${restate.log()}`);
  }
}

async function restartWorker(): Promise<void> {
  await restate.killWorker(worker);
  worker = await restate.startWorker(port, WORKER_ENV);
}

test('a 40 MB tool output and a 40 MB model reply: the run ends answered, each effect made once', {
  timeout: 120_000,
}, async () => {
  const runId = await startDurableRun(
    restate.ingressUrl,
    { question: 'Fetch everything.', metadata: { scenario: 'huge' } },
    { idempotencyKey: 'huge-run' },
  );
  const run = await result(runId);
  assert.equal(run.status, 'answered', run.error);
  assert.equal(lines('fetch-calls').length, 1, 'the external tool ran exactly once');
  assert.deepEqual(
    lines('model-calls').filter((line) => line.startsWith('huge:')),
    ['huge:1', 'huge:2', 'huge:3'],
  );
  const observation = run.steps[0]?.observation;
  assert.ok(observation && observation.text.length < 5000, 'the journal kept the truncated observation');
  assert.match(observation.text, /output truncated: \d+ more characters not shown/);
  assert.equal(observation.fullText, undefined, 'the full output is not journaled');
  // The 40 MB reply was cut on the client side to the default cap of a turn (1,000,000 characters).
  assert.equal(run.steps[1]?.modelText.length, 1_000_000);
  assert.equal(run.steps[1]?.finishReason, 'length');
  assert.match(run.answer ?? '', /characters seen$/);
});

test('a worker killed after a read tool ran resumes with the same prompt, and lookup still reads the page', {
  timeout: 90_000,
}, async () => {
  const runId = await startDurableRun(
    restate.ingressUrl,
    { question: 'Where is Paris?', metadata: { scenario: 'resume' } },
    { idempotencyKey: 'resume-run' },
  );
  await waitFor('step 2 model call to hang', () => existsSync(join(restate.dir, 'resume-blocked')), {
    timeoutMs: 30_000,
  });
  assert.equal(lines('search-calls').length, 1);
  await restartWorker();
  const run = await result(runId);
  assert.equal(run.status, 'answered', run.error);
  const prompts = lines('prompts');
  assert.equal(prompts.length, 2, 'step 2 was asked once before the kill and once after');
  assert.equal(prompts[1], prompts[0], 'the resumed prompt equals the one before the kill');
  assert.equal(lines('search-calls').length, 1, 'the read tool did not run again on resume');
  assert.equal(
    run.steps[1]?.observation?.text,
    'Paris lies on the river Seine.',
    'lookup read the restored page',
  );
});

test('a worker killed between an external effect and its journaling: the retry gets the same call ID', {
  timeout: 90_000,
}, async () => {
  const runId = await startDurableRun(
    restate.ingressUrl,
    { question: 'Pay 5.', metadata: { scenario: 'callid' } },
    { idempotencyKey: 'callid-run' },
  );
  await waitFor(
    'the charge to hang after its effect',
    () => existsSync(join(restate.dir, 'callid-blocked')),
    {
      timeoutMs: 30_000,
    },
  );
  await restartWorker();
  const run = await result(runId);
  assert.equal(run.status, 'answered', run.error);
  assert.deepEqual(lines('charge-calls'), ['callid-run:step-1', 'callid-run:step-1']);
  assert.equal(run.steps[0]?.observation?.text, 'charged 5 (idempotency key callid-run:step-1)');
});

test('an approval that times out is recorded as a rejection and the tool never runs', {
  timeout: 60_000,
}, async () => {
  const runId = await startDurableRun(
    restate.ingressUrl,
    { question: 'Write gamma.', metadata: { scenario: 'approval' } },
    { idempotencyKey: 'timeout-run' },
  );
  const run = await result(runId);
  assert.equal(run.status, 'answered', run.error);
  assert.deepEqual(run.steps[0]?.observation?.approval, {
    type: 'reject',
    reason: 'no decision within 500 ms',
  });
  assert.match(run.steps[0]?.observation?.text ?? '', /rejected this action \(no decision within 500 ms\)/);
  assert.deepEqual(lines('write-calls'), [], 'the tool never ran');
  assert.equal(await pendingApproval(restate.ingressUrl, runId), null);
});
