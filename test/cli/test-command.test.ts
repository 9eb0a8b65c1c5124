/**
 * `taoloop test`, as a user runs it, against local fake model servers on 127.0.0.1:
 * - a run recorded by `taoloop run` is a regression test: changing a tool's output, a tool's name and the
 *   system prompt each make it fail with the matching diff, and `--update` then makes it pass;
 * - a cases file run k times against a server scripted to fail a known share of tries gives the pass^k the
 *   tau-bench formula predicts for k = 1, 2, 4, and JUnit XML that a real JUnit parser (junit2json) reads.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse as parseJUnit } from 'junit2json';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { tempDir } from '../helpers/temp.js';

const work = tempDir('taoloop-test-command-');
const docs = join(work, 'docs');
mkdirSync(docs);
const env = cleanEnv({ TAOLOOP_CACHE_DIR: join(work, 'cache') });

/** Records one `taoloop run` against a fake server and copies its trace into `fixtures/`. */
async function recordFixture(): Promise<string> {
  writeFileSync(join(docs, 'eiffel.md'), 'The Eiffel Tower is 330 metres tall.\n');
  const server = await startFakeOpenAI({
    replies: [
      'Thought: I should look it up.\nAction: search[Eiffel Tower height]',
      'Thought: The documents say so.\nAnswer: 330 metres',
    ],
  });
  try {
    const model = `openai-compatible:${server.baseURL}#m`;
    const run = await runCli(
      [
        'run',
        'How tall is the Eiffel Tower?',
        '--model',
        model,
        '--tools',
        'search',
        '--docs',
        docs,
        '--no-stream',
      ],
      { env, cwd: work },
    );
    assert.equal(run.code, 0, run.stderr);
  } finally {
    await server.close();
  }
  const runs = join(work, 'cache', 'runs');
  const [recorded] = readdirSync(runs).filter((f) => f.endsWith('.jsonl'));
  assert.ok(recorded, 'taoloop run kept a trace');
  mkdirSync(join(work, 'fixtures'), { recursive: true });
  const fixture = join(work, 'fixtures', 'eiffel.jsonl');
  copyFileSync(join(runs, recorded), fixture);
  return fixture;
}

const testCli = (args: string[]) => runCli(['test', ...args], { env, cwd: work });

test('a recorded run as a regression test: each change fails with its diff, and --update accepts it', async () => {
  const fixture = await recordFixture();
  const fixtures = join(work, 'fixtures');

  const same = await testCli([fixtures, '--docs', docs]);
  assert.equal(same.code, 0, same.stdout + same.stderr);
  assert.match(same.stdout, /ok {2}.*eiffel\.jsonl {2}\(answered in 2 steps, as recorded\)/);
  assert.match(same.stdout, /1 recorded run: 1 passed/);

  // 1. A tool's output: the document the search tool reads changed.
  writeFileSync(join(docs, 'eiffel.md'), 'The Eiffel Tower is 300 metres tall.\n');
  const output = await testCli([fixtures, '--docs', docs]);
  assert.equal(output.code, 1);
  assert.match(output.stdout, /step 1: search\[Eiffel Tower height\] now observes otherwise/);
  assert.match(
    output.stdout,
    / {4}- The Eiffel Tower is 330 metres tall\.\n {4}\+ The Eiffel Tower is 300 metres tall\./,
  );
  assert.match(output.stdout, /stale recording/);
  const updated = await testCli([fixtures, '--docs', docs, '--update']);
  assert.equal(updated.code, 0, updated.stdout);
  assert.match(updated.stdout, /1 updated/);
  const afterUpdate = await testCli([fixtures, '--docs', docs]);
  assert.equal(afterUpdate.code, 0, afterUpdate.stdout);

  // 2. A tool's name: today's agent (an --agent module) calls the search tool `lookup`.
  const agentModule = join(work, 'agent.mjs');
  writeFileSync(
    agentModule,
    `export default { tools: [{ name: 'lookup', description: 'Looks things up.', effects: 'read', run: async () => 'The Eiffel Tower is 300 metres tall.' }] };\n`,
  );
  const renamed = await testCli([fixture, '--agent', agentModule]);
  assert.equal(renamed.code, 1);
  assert.match(renamed.stdout, /the tool list changed \(removed search; added lookup\)/);
  assert.match(renamed.stdout, / {4}- search\n {4}\+ lookup/);
  const renamedUpdate = await testCli([fixture, '--agent', agentModule, '--update']);
  assert.equal(renamedUpdate.code, 0, renamedUpdate.stdout);
  const renamedAgain = await testCli([fixture, '--agent', agentModule]);
  assert.equal(renamedAgain.code, 0, renamedAgain.stdout);

  // 3. The system prompt: back to the built-in tools (as --tools), with an instruction added.
  copyFileSync(join(work, 'fixtures', 'eiffel.jsonl'), join(work, 'prompt.jsonl'));
  await recordFixture();
  writeFileSync(join(docs, 'eiffel.md'), 'The Eiffel Tower is 330 metres tall.\n');
  const prompt = await testCli([fixture, '--docs', docs, '--system', 'Answer in French.']);
  assert.equal(prompt.code, 1);
  assert.match(prompt.stdout, /the system prompt changed/);
  assert.match(prompt.stdout, / {4}\+ Answer in French\./);
  assert.doesNotMatch(prompt.stdout, /now observes otherwise/, 'only the prompt changed');
  const promptUpdate = await testCli([fixture, '--docs', docs, '--system', 'Answer in French.', '--update']);
  assert.equal(promptUpdate.code, 0);
  const promptAgain = await testCli([fixture, '--docs', docs, '--system', 'Answer in French.', '--json']);
  assert.equal(promptAgain.code, 0, promptAgain.stdout);
  assert.deepEqual(JSON.parse(promptAgain.stdout).recordedRuns.passed, 1);
});

/** C(n, k): tries' subsets, for the formula. */
function choose(n: number, k: number): number {
  if (k > n) return 0;
  let out = 1;
  for (let i = 0; i < k; i += 1) out = (out * (n - i)) / (i + 1);
  return out;
}

test('cases k times against a server that fails a known share: pass^k as the formula predicts, JUnit XML a parser reads', async () => {
  // Each case's question names how many of its 4 tries the server answers right.
  const rightOf: Record<string, number> = { always: 4, mostly: 3, half: 2, never: 0 };
  const seen = new Map<string, number>();
  const server = await startFakeOpenAI({
    replies: (request) => {
      const text = request.messages.map((m) => m.content).join('\n');
      const name = Object.keys(rightOf).find((key) => text.includes(`case ${key}`)) ?? 'never';
      const n = seen.get(name) ?? 0;
      seen.set(name, n + 1);
      return `Thought: I know this.\nAnswer: ${n < (rightOf[name] ?? 0) ? 'Paris' : 'Lyon'}`;
    },
  });
  try {
    const cases = join(work, 'cases.jsonl');
    writeFileSync(
      cases,
      `${Object.keys(rightOf)
        .map((key) =>
          JSON.stringify({
            id: key,
            question: `What is the capital of France? (case ${key})`,
            expect: { answer: 'Paris' },
          }),
        )
        .join('\n')}\n`,
    );
    const out = join(work, 'cases-out');
    const args = [
      cases,
      '--model',
      `openai-compatible:${server.baseURL}#m`,
      '--repeats',
      '4',
      '--out',
      out,
      '--tools',
      'calculator',
      '--no-stream',
    ];
    const run = await testCli([...args, '--min-pass', '0.25']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    const passK = Object.fromEntries(
      (report.summaries[0].passK as { k: number; value: number }[]).map((p) => [p.k, p.value]),
    );
    for (const k of [1, 2, 4]) {
      const predicted =
        Object.values(rightOf).reduce((sum, c) => sum + choose(c, k) / choose(4, k), 0) /
        Object.keys(rightOf).length;
      assert.ok(
        Math.abs((passK[k] ?? Number.NaN) - predicted) < 1e-12,
        `pass^${k}: ${passK[k]} vs ${predicted}`,
      );
    }
    assert.deepEqual([passK[1], passK[4]], [9 / 16, 1 / 4]);

    const junit = await parseJUnit(readFileSync(join(out, 'junit.xml'), 'utf8'));
    const suites =
      (
        junit as {
          testsuite?: {
            tests?: number;
            failures?: number;
            testcase?: { name?: string; failure?: { message?: string }[] }[];
          }[];
        }
      ).testsuite ?? [];
    assert.equal(suites.length, 1);
    assert.deepEqual([suites[0]?.tests, suites[0]?.failures], [4, 3]);
    const failed = (suites[0]?.testcase ?? [])
      .filter((c) => c.failure !== undefined)
      .map((c) => [c.name, c.failure?.[0]?.message]);
    assert.deepEqual(failed, [
      ['mostly', 'passed 3 of 4 tries'],
      ['half', 'passed 2 of 4 tries'],
      ['never', 'passed 0 of 4 tries'],
    ]);

    // The gate, and the resume: every try is stored, so a second run asks the server nothing.
    const before = server.received;
    const gate = await testCli([...args, '--min-pass', '0.3']);
    assert.equal(gate.code, 1);
    assert.match(gate.stderr, /pass\^4 of openai-compatible:\S+#m is 0\.250, below --min-pass 0\.3/);
    assert.equal(server.received, before, 'the stored tries were not run again');
    assert.match(readFileSync(join(out, 'report.md'), 'utf8'), /never/);
    const traces = readdirSync(join(out, 'traces'), { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.jsonl'),
    );
    assert.equal(traces.length, 16, 'a trace per try');
  } finally {
    await server.close();
  }
});

test('two models side by side: paired per case, with a bootstrap interval', async () => {
  const weak = await startFakeOpenAI({ replies: () => 'Thought: guess.\nAnswer: Lyon' });
  const strong = await startFakeOpenAI({ replies: () => 'Thought: known.\nAnswer: Paris' });
  try {
    const cases = join(work, 'pair.jsonl');
    writeFileSync(
      cases,
      `${Array.from({ length: 6 }, (_, i) => JSON.stringify({ id: `c${i}`, question: `Capital of France, ${i}?`, expect: { includes: 'paris' } })).join('\n')}\n`,
    );
    const out = join(work, 'pair-out');
    const run = await testCli([
      cases,
      '--model',
      `openai-compatible:${weak.baseURL}#weak`,
      '--compare-model',
      `openai-compatible:${strong.baseURL}#strong`,
      '--repeats',
      '2',
      '--out',
      out,
      '--tools',
      'calculator',
      '--no-stream',
    ]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    assert.equal(report.comparison.better, 'b');
    assert.deepEqual([report.comparison.passRate.meanA, report.comparison.passRate.meanB], [0, 1]);
    assert.equal(report.summaries.length, 2);
  } finally {
    await Promise.all([weak.close(), strong.close()]);
  }
});

test('one report for replays and cases: --junit holds both; a model error fails the run; bad inputs are caught before any call', async () => {
  const dead = 'openai-compatible:http://127.0.0.1:9/v1#dead';
  const cases = join(work, 'one.jsonl');
  writeFileSync(
    cases,
    '{"id": "a/b", "question": "2 + 2?", "expect": {"answer": "4"}}\n{"id": "a_b", "question": "3 + 3?", "expect": {"answer": "6"}}\n',
  );
  const fixtures = join(work, 'mixed');
  mkdirSync(fixtures, { recursive: true });
  // A trace that never finished (cut off after its header and first event) next to a good one (the fixture
  // as the first test left it: accepted with --system 'Answer in French.').
  const good = readdirSync(join(work, 'fixtures')).map((f) => join(work, 'fixtures', f))[0];
  assert.ok(good);
  copyFileSync(good, join(fixtures, 'good.jsonl'));
  writeFileSync(join(fixtures, 'cut.jsonl'), readFileSync(good, 'utf8').split('\n').slice(0, 2).join('\n'));
  const junit = join(work, 'reports', 'nested', 'junit.xml');
  const out = join(work, 'dead-out');
  const run = await testCli([
    fixtures,
    cases,
    '--docs',
    docs,
    '--system',
    'Answer in French.',
    '--model',
    dead,
    '--out',
    out,
    '--junit',
    junit,
    '--json',
  ]);
  assert.equal(run.code, 1, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.deepEqual([report.recordedRuns.passed, report.recordedRuns.failed], [1, 1]);
  assert.match(JSON.stringify(report.recordedRuns.traces), /cut\.jsonl.*the recording did not finish/);
  assert.match(run.stderr, /2 tries ended with a model error/);
  const parsed = (await parseJUnit(readFileSync(junit, 'utf8'))) as {
    testsuite?: { name?: string; tests?: number; failures?: number; errors?: number }[];
  };
  assert.deepEqual(
    (parsed.testsuite ?? []).map((s) => [s.name, s.tests, s.failures, s.errors]),
    [
      ['openai-compatible:http://127.0.0.1:9/v1#dead', 2, 0, 2],
      ['recorded runs', 2, 1, 0],
    ],
  );
  const traces = readdirSync(join(out, 'traces'), { recursive: true, encoding: 'utf8' }).filter((f) =>
    f.endsWith('.jsonl'),
  );
  assert.equal(traces.length, 2, `ids that share a file name keep a trace each: ${traces.join(', ')}`);

  const empty = join(work, 'empty.jsonl');
  writeFileSync(empty, '\n');
  const none = await testCli([empty, '--model', dead]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /holds no cases/);
  const compare = await testCli([cases, '--model', dead, '--compare', join(work, 'nowhere')]);
  assert.equal(compare.code, 2);
  assert.match(compare.stderr, /--compare .*nowhere has no results\.jsonl/);
  writeFileSync(join(work, 'typo.jsonl'), '{"question": "2 + 2?", "expect": {"maxSteps": "3"}}\n');
  const typo = await testCli([join(work, 'typo.jsonl'), '--model', dead]);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /typo\.jsonl:1: expect\.maxSteps/);
  assert.doesNotMatch(typo.stderr, /--max-steps/);
});
