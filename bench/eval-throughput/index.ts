/**
 * eval-throughput: batch throughput of `taoloop eval` (`runEval`, in process, as the CLI calls it) against
 * a local OpenAI-compatible server on 127.0.0.1 that answers every call after 200 ms, at concurrency 1, 8
 * and 64, as items per second and as a share of the ideal.
 *
 * One item is one ReAct episode of exactly 2 model calls: `search[Ada Lovelace]` on the local Wikipedia
 * corpus (`test/fixtures/wiki-corpus.jsonl`, answered in well under a millisecond), then `finish[London]`.
 * The model is the real `openai-compatible` provider (AI SDK over Node's fetch, as `taoloop eval --model
 * openai-compatible:...` builds it; eval turns are not streamed), so the HTTP client, the loop, the tools,
 * the scoring and the results file are all measured; only the model's thinking is replaced by the fixed
 * 200 ms wait. The model server (`model-server.ts`, the tests' fake OpenAI server) runs in a child process,
 * as a real one would, so its own CPU time is not charged to the eval.
 *
 * Ideal: `concurrency / (2 calls x 0.2 s)` items per second (160 at concurrency 64): every slot always has
 * a call waiting on the server, and everything else takes no time. Share = measured / ideal. (500 items at
 * 64 slots are 7.8 rounds, so the last round runs part-full: even with no overhead at all the share is at
 * most 500 / (8 x 64) = 0.977.)
 *
 * Items: 500 at concurrency 64 (ideal 3.1 s); concurrency 8 and 1 run the first 100 and 25 items (ideal
 * 5 s each; all 500 would take 25 s and 200 s), named so in the figures. Goal (issue 9): share >= 0.9 at
 * concurrency 64.
 *
 * Run: `npm run bench -- eval-throughput` (or `node --import tsx bench/eval-throughput/index.ts`).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PromptSet } from '../../src/eval/prompts.js';
import { runEval } from '../../src/eval/runner.js';
import { resolveModelSpec } from '../../src/models/spec.js';
import { createWikipediaTools, wikipediaCorpus } from '../../src/tools/wikipedia.js';
import { emitFigure, ratioOf } from '../lib/protocol.js';
import {
  CALLS_PER_ITEM,
  DELAY_MS,
  type ModelServer,
  startModelServer,
  syntheticDataset,
} from './workload.js';

const COMMAND = 'npm run bench -- eval-throughput';
const ITEMS = 500;
const GOAL_SHARE = 0.9;
/** Concurrency and the items it runs (fewer at low concurrency, to stay well under 60 s). */
const RUNS: readonly { concurrency: number; items: number }[] = [
  { concurrency: 64, items: ITEMS },
  { concurrency: 8, items: 100 },
  { concurrency: 1, items: 25 },
];

const log = (line = '') => process.stderr.write(`${line}\n`);
const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;
const fixture = (name: string) => fileURLToPath(new URL(`../../test/fixtures/${name}`, import.meta.url));

interface Measured {
  concurrency: number;
  items: number;
  seconds: number;
  itemsPerSecond: number;
  ideal: number;
  share: number;
}

async function measure(
  server: ModelServer,
  concurrency: number,
  items: number,
  dir: string,
): Promise<Measured> {
  const model = await resolveModelSpec(`openai-compatible:${server.baseURL}#bench`, {});
  const prompts = JSON.parse(readFileSync(fixture('eval-prompts.json'), 'utf8')) as PromptSet;
  const backend = wikipediaCorpus(fixture('wiki-corpus.jsonl'));
  await backend.getPage('Ada Lovelace', AbortSignal.timeout(5000)); // read and index the corpus first
  const started = performance.now();
  const run = await runEval({
    model,
    dataset: syntheticDataset(items),
    strategies: ['react'],
    prompts,
    createTools: () => createWikipediaTools({ backend }),
    resultsFile: join(dir, `results-c${concurrency}-n${items}.jsonl`),
    concurrency,
  });
  const seconds = (performance.now() - started) / 1000;
  const right = run.results.filter((r) => r.score === 1 && r.steps === CALLS_PER_ITEM).length;
  if (run.ran !== items || right !== items) {
    const bad = run.results.find((r) => r.score !== 1 || r.steps !== CALLS_PER_ITEM);
    throw new Error(
      `concurrency ${concurrency}: ${run.ran} of ${items} ran, ${right} answered right in ${CALLS_PER_ITEM} model calls; e.g. ${JSON.stringify(bad)}`,
    );
  }
  const itemsPerSecond = items / seconds;
  const ideal = concurrency / (CALLS_PER_ITEM * (DELAY_MS / 1000));
  return { concurrency, items, seconds, itemsPerSecond, ideal, share: itemsPerSecond / ideal };
}

async function main(): Promise<void> {
  const server = await startModelServer();
  const dir = mkdtempSync(join(tmpdir(), 'taoloop-bench-eval-'));
  try {
    // Warm-up (module loading, JIT, 64 pooled connections): 64 items at concurrency 64, not counted.
    await measure(server, 64, 64, dir);
    log(
      `eval throughput: react, ${CALLS_PER_ITEM} model calls per item, server delay ${DELAY_MS} ms per call`,
    );
    log('concurrency  items  seconds  items/s  ideal  share');
    const measured: Measured[] = [];
    for (const { concurrency, items } of RUNS) {
      const m = await measure(server, concurrency, items, dir);
      measured.push(m);
      log(
        `${String(m.concurrency).padStart(11)}  ${String(m.items).padStart(5)}  ${m.seconds.toFixed(2).padStart(7)}  ${m.itemsPerSecond.toFixed(1).padStart(7)}  ${m.ideal.toFixed(1).padStart(5)}  ${m.share.toFixed(3)}`,
      );
    }
    for (const m of measured) {
      const subset = m.items === ITEMS ? `${ITEMS} items` : `first ${m.items} of ${ITEMS} items`;
      const withGoal = m.concurrency === 64;
      emitFigure({
        figure: `eval throughput, concurrency ${m.concurrency}, ${subset}, 200 ms model (taoloop)`,
        value: round(m.itemsPerSecond, 2),
        unit: 'items/s',
        baseline: `ideal: ${m.concurrency} / (${CALLS_PER_ITEM} calls x 0.2 s)`,
        baselineValue: round(m.ideal, 2),
        ratio: ratioOf(round(m.itemsPerSecond, 2), round(m.ideal, 2)),
        command: COMMAND,
        ...(withGoal && { goal: `>= ${GOAL_SHARE}x ideal (issue 9)`, met: m.share >= GOAL_SHARE }),
      });
    }
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
