/**
 * Whole evaluations in-process: results appended per item, resume without redoing finished items, Ctrl-C
 * (an abort) keeping what finished, the concurrency limit, and the report built from the results.
 */
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EvalConfigError, loadDataset } from '../../src/eval/datasets.js';
import { createProgressBar, formatProgress } from '../../src/eval/progress.js';
import type { PromptSet } from '../../src/eval/prompts.js';
import { writeReport } from '../../src/eval/report-files.js';
import { openResultsFile, readResults } from '../../src/eval/results.js';
import { type EvalOptions, runEval } from '../../src/eval/runner.js';
import type { Model } from '../../src/models/types.js';
import { createWikipediaTools, wikipediaCorpus } from '../../src/tools/wikipedia.js';
import { tempDir } from '../helpers/temp.js';
import { oracleAnswers, oracleModel } from './helpers/oracle-model.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const datasetFile = fixture('eval-qa.jsonl');
const prompts = JSON.parse(readFileSync(fixture('eval-prompts.json'), 'utf8')) as PromptSet;
const backend = wikipediaCorpus(fixture('wiki-corpus.jsonl'));
const answers = oracleAnswers(datasetFile);

function options(resultsFile: string, model: Model, extra: Partial<EvalOptions> = {}): EvalOptions {
  return {
    model,
    dataset: loadDataset(datasetFile),
    strategies: ['react', 'cot'],
    prompts,
    createTools: () => createWikipediaTools({ backend }),
    resultsFile,
    samples: 3,
    ...extra,
  };
}
const tempFile = () => join(tempDir('taoloop-eval-'), 'results.jsonl');

describe('runEval', () => {
  test('scores every (item, strategy) and appends one line each', async () => {
    const file = tempFile();
    const run = await runEval(options(file, oracleModel(answers)));
    assert.equal(run.results.length, 16);
    assert.equal(run.ran, 16);
    assert.equal(run.interrupted, false);
    const lines = readResults(file);
    assert.equal(lines.length, 16);
    const react1 = lines.find((r) => r.strategy === 'react' && r.itemId === 'q1')!;
    assert.deepEqual(
      [react1.answer, react1.score, react1.f1, react1.steps, react1.status],
      ['London', 1, 1, 2, 'answered'],
    );
    const cot2 = lines.find((r) => r.strategy === 'cot' && r.itemId === 'q2')!;
    assert.deepEqual([cot2.answer, cot2.score, cot2.f1], ['Paris', 0, 0]);
    assert.deepEqual(cot2.usage, { inputTokens: 10, outputTokens: 2 });
  });

  test('a rerun resumes: finished items are not run again', async () => {
    const file = tempFile();
    await runEval(options(file, oracleModel(answers), { limit: 3 }));
    const model = oracleModel(answers);
    const run = await runEval(options(file, model, { limit: 5 }));
    assert.equal(run.resumed, 6);
    assert.equal(run.ran, 4);
    assert.equal(model.calls, 2 * 2 + 2); // react: 2 turns per item, cot: 1
    assert.equal(readResults(file).length, 10);
  });

  test('a line cut off by a kill is dropped and that item runs again', async () => {
    const file = tempFile();
    await runEval(options(file, oracleModel(answers), { limit: 1, strategies: ['cot'] }));
    appendFileSync(file, '{"strategy":"cot","itemId":"q2","answ');
    const run = await runEval(options(file, oracleModel(answers), { limit: 2, strategies: ['cot'] }));
    assert.deepEqual([run.resumed, run.ran], [1, 1]);
    const text = readFileSync(file, 'utf8');
    assert.equal(text.split('\n').filter(Boolean).length, 2);
    assert.ok(text.endsWith('\n'));
  });

  test('results of a model error are retried on the next run; the new line wins', async () => {
    const file = tempFile();
    const failing: Model = { id: 'oracle', generate: async () => Promise.reject(new Error('HTTP 503')) };
    const first = await runEval(options(file, failing, { limit: 1, strategies: ['cot'] }));
    assert.equal(first.results[0]!.status, 'error');
    const second = await runEval(options(file, oracleModel(answers), { limit: 1, strategies: ['cot'] }));
    assert.deepEqual([second.resumed, second.ran, second.results[0]!.status], [0, 1, 'answered']);
  });

  test('an abort keeps what finished and drops what was in flight', async () => {
    const file = tempFile();
    const controller = new AbortController();
    let inFlight = 0;
    let maxInFlight = 0;
    const inner = oracleModel(answers, 5);
    const model: Model = {
      id: 'oracle',
      async generate(request) {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        try {
          return await inner.generate(request);
        } finally {
          inFlight -= 1;
        }
      },
    };
    const run = await runEval(
      options(file, model, {
        strategies: ['cot'],
        concurrency: 3,
        signal: controller.signal,
        onProgress: (p) => {
          if (p.done === 4) controller.abort();
        },
      }),
    );
    assert.equal(run.interrupted, true);
    assert.equal(run.results.length, 4);
    assert.equal(readResults(file).length, 4);
    assert.ok(maxInFlight <= 3, `at most 3 calls at once, saw ${maxInFlight}`);
  });

  test('model errors in a row stop the run (an unreachable server does not fail every item)', async () => {
    const file = tempFile();
    const failing: Model = { id: 'oracle', generate: async () => Promise.reject(new Error('ECONNREFUSED')) };
    const run = await runEval(
      options(file, failing, { strategies: ['cot'], concurrency: 1, maxConsecutiveErrors: 3 }),
    );
    assert.equal(run.interrupted, true);
    assert.equal(run.results.length, 3);
    assert.match(
      run.stoppedBy ?? '',
      /3 results in a row ended with a model error; the last: .*ECONNREFUSED/,
    );
  });

  test('the results folder is made at the first result; a run with nothing to run writes nothing', async () => {
    const dir = tempDir('taoloop-eval-');
    const file = join(dir, 'nested', 'out', 'results.jsonl');
    const empty = await runEval(options(file, oracleModel(answers), { limit: 0 }));
    assert.equal(empty.ran, 0);
    assert.equal(existsSync(join(dir, 'nested')), false);
    await runEval(options(file, oracleModel(answers), { limit: 2, strategies: ['cot'] }));
    await runEval(options(file, oracleModel(answers), { limit: 3, strategies: ['cot'] }));
    assert.deepEqual(
      readResults(file).map((r) => r.itemId),
      ['q1', 'q2', 'q3'],
    );
  });

  test('a results file of another model is refused', async () => {
    const file = tempFile();
    await runEval(options(file, oracleModel(answers), { limit: 1, strategies: ['cot'] }));
    const other: Model = { ...oracleModel(answers), id: 'other' };
    await assert.rejects(runEval(options(file, other)), EvalConfigError);
  });
});

describe('the report', () => {
  test('table, Markdown and SVG chart from the results', async () => {
    const file = tempFile();
    const dataset = loadDataset(datasetFile);
    const run = await runEval(
      options(file, oracleModel(answers), { strategies: ['react', 'cot', 'cot-sc-react'] }),
    );
    const outDir = join(file, '..');
    const report = writeReport({
      run,
      dataset,
      strategies: ['react', 'cot', 'cot-sc-react'],
      modelId: 'oracle',
      outDir,
      resultsFile: file,
    });
    const lines = report.table.split('\n');
    assert.match(lines[0]!, /^strategy\s+items\s+EM\s+F1\s+mean steps/);
    // q1, q3, q5, q7 right: 50% EM. "Paris" shares no token with the gold answers: F1 50% too.
    assert.match(
      lines[2]!,
      /^react\s+8\s+50\.0%\s+50\.0%\s+2\.00\s+160\/32\s+unknown\s+answered 8\s+0\s+0\s+0\s+-$/,
    );
    assert.match(lines[3]!, /^cot\s+8\s+50\.0%\s+50\.0%\s+1\.00\s+80\/16/);
    // 3 unanimous samples: 3 < 1.5 is false, never switches.
    assert.match(lines[4]!, /^cot-sc-react\s+8\s+50\.0%\s+50\.0%\s+3\.00\s+.*\s0$/);
    const markdown = readFileSync(report.markdownFile, 'utf8');
    assert.match(markdown, /^# Evaluation: /);
    assert.match(markdown, /\| react \| 8 \| 50\.0% \| 50\.0% \| 2\.00 \|/);
    const svg = readFileSync(report.chartFile, 'utf8');
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.equal(svg.match(/<circle /g)?.length, 3);
    assert.match(svg, /tokens \(input \+ output\)/); // cost unknown for the oracle model
  });

  test('costs are summed when the model has a price', async () => {
    const file = tempFile();
    const model = { ...oracleModel(answers), id: 'openai:gpt-4o-mini' };
    const run = await runEval(options(file, model, { strategies: ['cot'], limit: 2 }));
    // 10 input tokens at $0.15/M + 2 output tokens at $0.60/M = $0.0000027 per call.
    assert.equal(run.results[0]!.costUsd, 0.0000027);
    const report = writeReport({
      run,
      dataset: loadDataset(datasetFile),
      strategies: ['cot'],
      modelId: model.id,
      outDir: join(file, '..'),
      resultsFile: file,
    });
    assert.match(report.table, /\$0\.0000/);
    assert.match(readFileSync(report.chartFile, 'utf8'), /cost \(USD\)/);
  });
});

describe('the progress bar', () => {
  const progress = { total: 8, done: 2, running: 2, correct: 1, tokens: 12345, costUsd: 0.0123 };
  test('items done, running score, tokens and cost', () => {
    assert.equal(
      formatProgress(progress, 'EM', 8),
      '[██░░░░░░] 2/8 · EM 50.0% · 12,345 tokens · $0.0123 · 2 running',
    );
  });
  test('drawn on a terminal only', () => {
    const written: string[] = [];
    const stream = (isTTY: boolean) =>
      ({ isTTY, columns: 200, write: (text: string) => written.push(text) }) as unknown as NodeJS.WriteStream;
    const quiet = createProgressBar('EM', stream(false));
    quiet.update(progress);
    quiet.stop();
    assert.deepEqual(written, []);
    const bar = createProgressBar('EM', stream(true));
    bar.update(progress);
    bar.stop();
    assert.equal(written.length, 2);
    assert.match(written[0]!, /^\r\x1b\[2K\[█+░+\] 2\/8 · EM 50\.0%/);
    assert.equal(written[1], '\n');
  });
});

describe('openResultsFile', () => {
  test('appends after close still land in the file, and leave no descriptor open', () => {
    const dir = tempDir('taoloop-results-');
    const file = join(dir, 'r.jsonl');
    const appender = openResultsFile(file);
    const result = (itemId: string) =>
      ({ strategy: 'cot', itemId, dataset: 'd', modelId: 'm', question: 'q', gold: 'g' }) as never;
    appender.append(result('a'));
    appender.close();
    appender.append(result('b'));
    assert.deepEqual(
      readResults(file).map((r) => r.itemId),
      ['a', 'b'],
    );
    const open = readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === file;
      } catch {
        return false;
      }
    });
    assert.equal(open.length, 0);
  });
});
