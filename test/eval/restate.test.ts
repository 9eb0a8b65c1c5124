/**
 * `taoloop eval --restate`: the ReAct and Act episodes run as Restate runs on a `taoloop worker --restate`
 * process (restate-server 1.7.12 on 127.0.0.1, test/restate/harness.ts), and the results file is the one a
 * local `taoloop eval` writes for the same model, prompts, dataset and Wikipedia corpus.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ItemResult } from '../../src/eval/types.js';
import { cleanEnv } from '../helpers/cli.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { tempDir } from '../helpers/temp.js';
import { freePort, startRestate } from '../restate/harness.js';
import { oracleAnswers } from './helpers/oracle-model.js';

const CLI_CHILD = fileURLToPath(new URL('./helpers/cli-child.ts', import.meta.url));
const CLI_WORKER = fileURLToPath(new URL('../restate/fixtures/cli-worker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

function taoloopEval(args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', CLI_CHILD, 'eval', ...args], {
      cwd: ROOT,
      env: cleanEnv(),
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d) => (stdout += d));
    proc.stderr.on('data', (d) => (stderr += d));
    proc.on('error', reject);
    proc.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The results file's lines, in item then strategy order (runs finish in any order). */
function results(dir: string): ItemResult[] {
  return readFileSync(join(dir, 'results.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ItemResult)
    .sort((a, b) => `${a.itemId} ${a.strategy}`.localeCompare(`${b.itemId} ${b.strategy}`));
}

test('eval --restate runs the episodes on a worker and writes the results a local eval writes', {
  timeout: 90_000,
}, async (t) => {
  const answers = oracleAnswers(fixture('eval-qa.jsonl'));
  // Deterministic per request: ReAct searches the corpus, then finishes; Act's instructions say "no
  // Thought", so it acts at once; the observation decides the answer (the search really ran).
  const server = await startFakeOpenAI({
    replies: (request) => {
      const question = (request.messages[1]?.content ?? '').replace(/^Question: /, '');
      const act = request.messages[0]?.content.includes('write no Thought') === true;
      const observation = request.messages.find((m) => m.content.startsWith('Observation:'));
      if (observation === undefined) {
        return act ? 'Action: search[Ada Lovelace]' : 'Thought: search.\nAction: search[Ada Lovelace]';
      }
      const answer = observation.content.includes('London') ? (answers.get(question) ?? '?') : 'nothing';
      return act ? `Action: finish[${answer}]` : `Thought: found it.\nAction: finish[${answer}]`;
    },
    usage: { promptTokens: 50, completionTokens: 5 },
  });
  t.after(() => server.close());
  const restate = await startRestate();
  t.after(() => restate.close());
  const model = `openai-compatible:${server.baseURL}#tiny`;
  const common = [
    '--dataset',
    fixture('eval-qa.jsonl'),
    '--strategy',
    'react,act',
    '--prompts',
    fixture('eval-prompts.json'),
    '--limit',
    '5',
    '--concurrency',
    '3',
  ];

  const localDir = tempDir('taoloop-eval-local-');
  const local = await taoloopEval([
    ...common,
    '--model',
    model,
    '--wiki-corpus',
    fixture('wiki-corpus.jsonl'),
    '--out',
    localDir,
  ]);
  assert.equal(local.code, 0, local.stderr);
  const localCalls = server.requests.length;
  assert.equal(localCalls, 20, '5 items x 2 strategies x 2 calls');

  const port = await freePort();
  await restate.spawnNode(
    [
      CLI_WORKER,
      'worker',
      '--restate',
      '--port',
      String(port),
      '--model',
      model,
      '--wiki-corpus',
      fixture('wiki-corpus.jsonl'),
      '--register',
      restate.adminUrl,
    ],
    {},
    'registered',
  );
  const remoteDir = tempDir('taoloop-eval-restate-');
  const remoteArgs = [...common, '--restate', restate.ingressUrl, '--out', remoteDir];
  const remote = await taoloopEval(remoteArgs);
  assert.equal(remote.code, 0, `${remote.stderr}\n${restate.log()}`);
  assert.equal(server.requests.length - localCalls, 20, 'the same model calls, each once');

  const expected = results(localDir);
  assert.equal(expected.length, 10);
  assert.ok(expected.some((r) => r.score === 1) && expected.some((r) => r.score === 0));
  assert.deepEqual(results(remoteDir), expected);
  const table = (stdout: string) => stdout.slice(0, stdout.indexOf('\n\nResults:'));
  assert.equal(table(remote.stdout), table(local.stdout));

  // A rerun finds every result in the file: no run is submitted, no model call made.
  const again = await taoloopEval(remoteArgs);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(server.requests.length - localCalls, 20);
});

test('eval --restate refuses what only a local eval does, and options that belong to the workers', async () => {
  const base = ['--dataset', fixture('eval-qa.jsonl'), '--prompts', fixture('eval-prompts.json')];
  const cot = await taoloopEval([...base, '--strategy', 'react,cot', '--restate', 'http://127.0.0.1:9']);
  assert.equal(cot.code, 2);
  assert.match(cot.stderr, /--restate runs only react and act .*run cot without --restate/);
  const withModel = await taoloopEval([
    ...base,
    '--restate',
    'http://127.0.0.1:9',
    '--model',
    'openai-compatible:http://127.0.0.1:9/v1#x',
  ]);
  assert.equal(withModel.code, 2);
  assert.match(withModel.stderr, /--model belongs to the workers/);
});

test('runEval with runPair records the model the runner reports, and stops at a result of another model', async () => {
  const { runEval } = await import('../../src/eval/runner.js');
  const { loadDataset } = await import('../../src/eval/datasets.js');
  const dataset = loadDataset(fixture('eval-qa.jsonl'));
  const resultsFile = join(tempDir('taoloop-eval-pairs-'), 'results.jsonl');
  const outcome = (answer: string) => ({
    answer,
    status: 'answered' as const,
    steps: 2,
    usage: {},
    formatErrors: 0,
    inventedObservations: 0,
    toolErrors: 0,
  });
  const seen: number[] = [];
  const first = await runEval({
    dataset,
    strategies: ['react'],
    prompts: {},
    resultsFile,
    limit: 3,
    runPair: async (_strategy, context) => {
      seen.push(context.attempt);
      return { ...outcome(context.item.answer), modelId: 'worker-model' };
    },
  });
  assert.deepEqual(
    first.results.map((r) => [r.modelId, r.score]),
    [
      ['worker-model', 1],
      ['worker-model', 1],
      ['worker-model', 1],
    ],
  );
  assert.deepEqual(seen, [0, 0, 0]);
  const second = await runEval({
    dataset,
    strategies: ['react'],
    prompts: {},
    resultsFile,
    limit: 5,
    concurrency: 1,
    runPair: async () => ({ ...outcome('x'), modelId: 'other-model' }),
  });
  assert.equal(second.interrupted, true);
  assert.match(second.stoppedBy ?? '', /other-model answered react on q4, but worker-model answered/);
  assert.equal(results(join(resultsFile, '..')).length, 3, 'the other model’s result was not recorded');
});
