/**
 * `taoloop eval` from the command line: a whole run against a local OpenAI-compatible server on 127.0.0.1
 * with the local Wikipedia corpus, the replay of recorded runs, and usage errors (exit 2) that say what to
 * change.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cleanEnv } from '../helpers/cli.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { tempDir } from '../helpers/temp.js';
import { oracleAnswers } from './helpers/oracle-model.js';

const child = fileURLToPath(new URL('./helpers/cli-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

function taoloop(args: string[], env: NodeJS.ProcessEnv = cleanEnv()) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', child, 'eval', ...args], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d) => (stdout += d));
    proc.stderr.on('data', (d) => (stderr += d));
    proc.on('error', reject);
    proc.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('taoloop eval', () => {
  test('when every item fails on the model, it says why and exits 1', async () => {
    const server = await startFakeOpenAI({
      replies: [],
      failWhen: () => ({ status: 400, message: 'model not found' }),
    });
    try {
      const out = tempDir('taoloop-eval-fail-');
      const result = await taoloop([
        ...[
          '--dataset',
          fixture('eval-qa.jsonl'),
          '--strategy',
          'cot',
          '--prompts',
          fixture('eval-prompts.json'),
        ],
        ...['--model', `openai-compatible:${server.baseURL}#missing`, '--limit', '2', '--out', out],
      ]);
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /2 of 2 results ended in a model error, e\.g\.: .*model not found/);
    } finally {
      await server.close();
    }
  });

  test('--model-timeout (and TAOLOOP_MODEL_TIMEOUT) bounds each model call and says what happened', async () => {
    const server = await startFakeOpenAI({ replies: ['Answer: x', 'Answer: x'], responseDelayMs: 20_000 });
    try {
      for (const how of ['flag', 'env'] as const) {
        const out = tempDir('taoloop-eval-timeout-');
        const args = [
          ...['--dataset', fixture('eval-qa.jsonl'), '--strategy', 'cot'],
          ...['--prompts', fixture('eval-prompts.json'), '--limit', '1', '--out', out],
          ...['--model', `openai-compatible:${server.baseURL}#slow`],
        ];
        const started = performance.now();
        const result =
          how === 'flag'
            ? await taoloop([...args, '--model-timeout', '300ms'])
            : await taoloop(args, { ...cleanEnv(), TAOLOOP_MODEL_TIMEOUT: '300ms' });
        assert.ok(performance.now() - started < 15_000, "not the HTTP client's 300 s");
        assert.equal(result.code, 1, result.stderr);
        assert.match(
          result.stderr,
          /1 of 1 results ended in a model error, e\.g\.: Model call to \S+ timed out: no (response headers|complete answer) within \d+\.\d s \(model timeout: 0\.3 s\)/,
          how,
        );
        assert.doesNotMatch(result.stderr, /Cannot connect/i);
      }
    } finally {
      await server.close();
    }
  });

  test('runs strategies against a local server and writes results, report and chart', async () => {
    const answers = oracleAnswers(fixture('eval-qa.jsonl'));
    const server = await startFakeOpenAI({
      replies: (request) => {
        const question = (request.messages[1]?.content ?? '').replace(/^Question: /, '');
        const answer = answers.get(question) ?? 'unknown';
        if (!request.messages[0]?.content.includes('Tools:')) return `Thought: easy.\nAnswer: ${answer}`;
        return request.messages.some((m) => m.role === 'assistant')
          ? `Thought: found it.\nAction: finish[${answer}]`
          : 'Thought: search.\nAction: search[London]';
      },
      usage: { promptTokens: 50, completionTokens: 5 },
    });
    try {
      const out = tempDir('taoloop-eval-cli-');
      const args = [
        '--dataset',
        fixture('eval-qa.jsonl'),
        '--strategy',
        'cot,react',
        '--model',
        `openai-compatible:${server.baseURL}#tiny`,
        '--prompts',
        fixture('eval-prompts.json'),
        '--wiki-corpus',
        fixture('wiki-corpus.jsonl'),
        '--limit',
        '4',
        '--concurrency',
        '2',
        '--out',
        out,
      ];
      const result = await taoloop(args);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^strategy\s+items\s+EM\s+F1/m);
      assert.match(result.stdout, /^cot\s+4\s+50\.0%\s+50\.0%\s+1\.00\s+200\/20/m);
      assert.match(result.stdout, /^react\s+4\s+50\.0%\s+50\.0%\s+2\.00\s+400\/40/m);
      assert.equal(result.stderr, ''); // no progress bar when stderr is not a terminal
      assert.equal(readFileSync(join(out, 'results.jsonl'), 'utf8').split('\n').filter(Boolean).length, 8);
      assert.ok(existsSync(join(out, 'report.md')) && existsSync(join(out, 'chart.svg')));
      const calls = server.requests.length;
      const again = await taoloop(args);
      assert.equal(again.code, 0);
      assert.equal(server.requests.length, calls, 'the rerun made no model call');
    } finally {
      await server.close();
    }
  });

  // SIGTERM (`kill`, `timeout`, `docker stop`) and SIGHUP (the terminal closed) stop an eval as Ctrl-C does.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    test(`${signal} keeps the finished results, exits 1, and a rerun finishes the rest`, async () => {
      const server = await startFakeOpenAI({ replies: () => 'Answer: London', responseDelayMs: 150 });
      try {
        const out = tempDir('taoloop-sigint-');
        const results = join(out, 'results.jsonl');
        const args = [
          ...['--dataset', fixture('eval-qa.jsonl'), '--strategy', 'standard', '--concurrency', '1'],
          ...[
            '--model',
            `openai-compatible:${server.baseURL}#tiny`,
            '--prompts',
            fixture('eval-prompts.json'),
          ],
          ...['--out', out],
        ];
        const proc = spawn(process.execPath, ['--import', 'tsx', child, 'eval', ...args], {
          cwd: ROOT,
          env: cleanEnv(),
        });
        let stderr = '';
        proc.stderr.on('data', (d) => (stderr += d));
        const closed = new Promise<number | null>((resolve) => proc.on('close', resolve));
        const lines = () =>
          existsSync(results) ? readFileSync(results, 'utf8').split('\n').filter(Boolean).length : 0;
        while (lines() < 2) await new Promise((resolve) => setTimeout(resolve, 20));
        proc.kill(signal);
        assert.equal(await closed, 1, stderr);
        assert.match(
          stderr,
          /not finished; \d results are kept in .*results\.jsonl\. Run the same command again/,
        );
        const kept = lines();
        assert.ok(kept >= 2 && kept < 8, `kept ${kept}`);
        const rerun = await taoloop(args);
        assert.equal(rerun.code, 0, rerun.stderr);
        assert.equal(lines(), 8);
      } finally {
        await server.close();
      }
    });
  }

  test('--replay-trajectories prints both scores and the runs that changed', async () => {
    const out = tempDir('taoloop-replay-cli-');
    const result = await taoloop([
      '--replay-trajectories',
      fixture('eval-fever-replay-sample.jsonl'),
      '--out',
      out,
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Paper environment \(strict action matching\): \*\*4 \/ 9\*\*/);
    assert.match(result.stdout, /taoloop parser and loop: \*\*5 \/ 9\*\*/);
    assert.match(
      result.stdout,
      /\| 3522 \| NOT ENOUGH INFO \| "", reward 0, forced-finish after 7\/7 turns \| "NOT ENOUGH INFO", reward 1, answered after 3\/7 turns \|/,
    );
    assert.ok(existsSync(join(out, 'replay.md')));
  });

  test('a JSONL file of your own needs only the file and the model: zero-shot, no data folder, said so', async () => {
    const answers = oracleAnswers(fixture('eval-qa.jsonl'));
    const server = await startFakeOpenAI({
      replies: (request) => {
        const question = (request.messages[1]?.content ?? '').replace(/^Question: /, '');
        return `Thought: easy.\nAnswer: ${answers.get(question) ?? 'unknown'}`;
      },
    });
    try {
      const out = tempDir('taoloop-eval-own-');
      const args = ['--dataset', fixture('eval-qa.jsonl'), '--strategy', 'standard,cot,react'];
      const model = ['--model', `openai-compatible:${server.baseURL}#tiny`];
      // No data folder anywhere: a named one that does not exist would be an error, so none is named.
      const result = await taoloop(
        [...args, ...model, '--wiki-corpus', fixture('wiki-corpus.jsonl'), '--limit', '2', '--out', out],
        cleanEnv(),
      );
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^cot\s+2\s+\d/m);
      assert.match(result.stdout, /^Prompts: zero-shot, no examples \(--prompts FILE\.json, or --data-dir/m);
      const systems = server.requests.map((r) => r.messages[0]?.content ?? '');
      assert.equal(systems.length, 6);
      for (const system of systems) assert.doesNotMatch(system, /Examples|Question: /, system);
      // The paper's prompts when the data folder is named: a missing one is an error, not a silent zero-shot.
      const named = await taoloop([...args, ...model, '--data-dir', '/nonexistent/react-data', '--out', out]);
      assert.equal(named.code, 2);
      assert.match(named.stderr, /ReAct data folder .* was not found/);
    } finally {
      await server.close();
    }
  });

  test('usage errors exit 2 and say what to change', async () => {
    const out = tempDir('taoloop-usage-');
    const model = ['--model', 'openai-compatible:http://127.0.0.1:9/v1#x', '--out', out];
    const noDataset = await taoloop([...model]);
    assert.equal(noDataset.code, 2);
    assert.match(noDataset.stderr, /--dataset is required/);
    const badStrategy = await taoloop(['--dataset', 'fever', '--strategy', 'react,tot', ...model]);
    assert.equal(badStrategy.code, 2);
    assert.match(badStrategy.stderr, /unknown strategy "tot"; choose from standard, cot, cot-sc, act, react/);
    if (!existsSync(join(ROOT, '..', 'shared', 'react-data'))) {
      const noData = await taoloop(
        ['--dataset', 'hotpotqa', '--out', tempDir('taoloop-x-'), ...model],
        cleanEnv({ TAOLOOP_REACT_DATA: '/nonexistent/react-data' }),
      );
      assert.equal(noData.code, 2);
      assert.match(noData.stderr, /ReAct data folder .* was not found[\s\S]*TAOLOOP_REACT_DATA/);
    }
    const badDir = await taoloop([
      '--dataset',
      'hotpotqa',
      '--data-dir',
      '/nonexistent/react-data',
      ...model,
    ]);
    assert.equal(badDir.code, 2);
    assert.match(badDir.stderr, /was not found; looked in:\n {2}\/nonexistent\/react-data/);
    const noPrompt = await taoloop([
      '--dataset',
      fixture('eval-qa.jsonl'),
      '--prompts',
      fixture('wiki-corpus.jsonl'),
      ...model,
    ]);
    assert.equal(noPrompt.code, 2);
    assert.match(noPrompt.stderr, /is not valid JSON/);
  });
});
