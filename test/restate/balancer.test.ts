import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startBalancer } from '../../src/restate/balancer.js';
import { registerDeployment, submitRun } from '../../src/restate/client.js';
import { freePort, startRestate } from './harness.js';

test('two workers behind one balancer share the runs, and one survives the other', {
  timeout: 60_000,
}, async (t) => {
  const restate = await startRestate();
  t.after(() => restate.close());
  const ports = [await freePort(), await freePort()];
  const workers = await Promise.all(ports.map((port) => restate.startWorker(port)));
  const balancer = await startBalancer({
    port: 0,
    backends: ports.map((port) => `http://127.0.0.1:${port}`),
  });
  t.after(() => balancer.close());
  await registerDeployment(restate.adminUrl, balancer.url);

  const signal = AbortSignal.timeout(30_000);
  const ask = (n: number) =>
    Promise.all(
      Array.from({ length: n }, () =>
        submitRun(restate.ingressUrl, { question: 'Who?', metadata: { scenario: 'whoami' } }, { signal }),
      ),
    );
  const answers = (await ask(8)).map((run) => run.answer);
  assert.deepEqual(
    new Set(answers),
    new Set(workers.map((worker) => String(worker.pid))),
    'both workers answered some runs',
  );

  await restate.killWorker(workers[0]!);
  const after = await ask(4);
  assert.deepEqual(new Set(after.map((run) => run.answer)), new Set([String(workers[1]!.pid)]));
});
