/**
 * restate-eval: throughput of `taoloop eval --restate` with one worker and with two, against the 200 ms
 * local model server (issue 10), as items per second and the ratio two workers / one.
 *
 * Set-up, all on 127.0.0.1: `restate-server` 1.7.12 with a temp data folder on free ports (the tests'
 * harness, `test/restate/harness.ts`); the model server of `eval-throughput` in a child process (every call
 * answered after 200 ms, 2 calls per item: `search` on the local Wikipedia corpus, then `finish`); the
 * workers as `taoloop worker --restate --replicas N --port P --model ... --wiki-corpus ... --register ...`
 * (N = 1: one worker process; N = 2: two worker processes behind the HTTP/2 balancer on P, the documented
 * local set-up); the eval in this process as `taoloop eval --restate` runs it (`runEval` with
 * `restateEvalRunner`), strategy `react`, concurrency 32. Each configuration first runs 32 items that are
 * not counted (JIT, connections), then the measured items.
 *
 * Items: 500 per configuration (about 8 s each here; the whole script about 25 s). Ideal at concurrency 32:
 * 32 / (2 x 0.2 s) = 80 items/s whatever the number of workers: the model server, not the workers, sets
 * the pace unless a worker runs out of CPU. So the ratio shows whether one worker is the bottleneck. On a
 * machine with 2 cores the Restate server, the workers, this client and the model server share them, and
 * a second worker process cannot add CPU: expect a ratio near 1 here, and more where cores are free.
 *
 * Run: `npm run bench -- restate-eval` (or `node --import tsx bench/restate-eval/index.ts`).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PromptSet } from '../../src/eval/prompts.js';
import { runEval } from '../../src/eval/runner.js';
import { restateEvalRunner } from '../../src/restate/eval.js';
import { freePort, type RestateHarness, startRestate } from '../../test/restate/harness.js';
import { CALLS_PER_ITEM, DELAY_MS, startModelServer, syntheticDataset } from '../eval-throughput/workload.js';
import { emitFigure, ratioOf } from '../lib/protocol.js';

const COMMAND = 'npm run bench -- restate-eval';
const ITEMS = 500;
const CONCURRENCY = 32;
const WARMUP = 32;
/** Items per second with no overhead at all: every slot always waiting on the model server. */
const IDEAL = CONCURRENCY / (CALLS_PER_ITEM * (DELAY_MS / 1000));
/** Give up (and clean up) before bench/run.ts's 60 s limit kills the process group. */
const DEADLINE_MS = 55_000;

const log = (line = '') => process.stderr.write(`${line}\n`);
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
const fixture = (name: string) => fileURLToPath(new URL(`../../test/fixtures/${name}`, import.meta.url));
const CLI_WORKER = fileURLToPath(new URL('../../test/restate/fixtures/cli-worker.ts', import.meta.url));

interface Measured {
  workers: number;
  seconds: number;
  itemsPerSecond: number;
}

async function startWorkers(
  restate: RestateHarness,
  replicas: number,
  port: number,
  modelSpec: string,
): Promise<ChildProcess> {
  return restate.spawnNode(
    [
      CLI_WORKER,
      'worker',
      '--restate',
      '--replicas',
      String(replicas),
      '--port',
      String(port),
      '--model',
      modelSpec,
      '--wiki-corpus',
      fixture('wiki-corpus.jsonl'),
      '--register',
      restate.adminUrl,
    ],
    {},
    'registered',
  );
}

async function evalOnce(ingressUrl: string, dir: string, name: string, offset: number, items: number) {
  const prompts = JSON.parse(readFileSync(fixture('eval-prompts.json'), 'utf8')) as PromptSet;
  const dataset = syntheticDataset(offset + items);
  dataset.items = dataset.items.slice(offset);
  const resultsFile = join(dir, `${name}.jsonl`);
  const started = performance.now();
  const run = await runEval({
    runPair: restateEvalRunner(ingressUrl, { resultsFile }),
    dataset,
    strategies: ['react'],
    prompts,
    resultsFile,
    concurrency: CONCURRENCY,
  });
  const seconds = (performance.now() - started) / 1000;
  const right = run.results.filter((r) => r.score === 1 && r.steps === CALLS_PER_ITEM).length;
  if (run.ran !== items || right !== items) {
    const bad = run.results.find((r) => r.score !== 1 || r.steps !== CALLS_PER_ITEM);
    throw new Error(
      `${name}: ${run.ran} of ${items} ran, ${right} right in ${CALLS_PER_ITEM} calls; e.g. ${JSON.stringify(bad ?? run.stoppedBy)}`,
    );
  }
  return seconds;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'taoloop-bench-restate-eval-'));
  const server = await startModelServer();
  const restate = await startRestate();
  const deadline = setTimeout(() => {
    log(`restate-eval: not done after ${DEADLINE_MS / 1000} s; stopping`);
    void restate.close().finally(() => process.exit(1));
  }, DEADLINE_MS);
  try {
    const port = await freePort();
    const modelSpec = `openai-compatible:${server.baseURL}#bench`;
    const measured: Measured[] = [];
    log(
      `restate eval: react, ${CALLS_PER_ITEM} calls per item, ${DELAY_MS} ms per call, concurrency ${CONCURRENCY}, ${ITEMS} items`,
    );
    for (const workers of [1, 2]) {
      const started = performance.now();
      const primary = await startWorkers(restate, workers, port, modelSpec);
      log(`  ${workers} worker(s) started in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      await evalOnce(restate.ingressUrl, dir, `warmup-${workers}`, 100_000 * workers, WARMUP);
      const seconds = await evalOnce(restate.ingressUrl, dir, `workers-${workers}`, 0, ITEMS);
      const itemsPerSecond = ITEMS / seconds;
      measured.push({ workers, seconds, itemsPerSecond });
      log(
        `  ${workers} worker(s): ${ITEMS} items in ${seconds.toFixed(2)} s = ${itemsPerSecond.toFixed(1)} items/s, ${((itemsPerSecond / IDEAL) * 100).toFixed(0)}% of the ideal ${IDEAL}`,
      );
      await restate.killWorker(primary);
    }
    const [one, two] = measured as [Measured, Measured];
    emitFigure({
      figure: `restate eval throughput, 2 workers, ${ITEMS} items, concurrency ${CONCURRENCY}, 200 ms model (taoloop)`,
      value: round(two.itemsPerSecond),
      unit: 'items/s',
      against: 'self',
      baseline: `1 worker, same items (ideal for either: ${IDEAL} items/s)`,
      baselineValue: round(one.itemsPerSecond),
      ratio: ratioOf(round(two.itemsPerSecond), round(one.itemsPerSecond)),
      command: COMMAND,
    });
  } finally {
    clearTimeout(deadline);
    await restate.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
