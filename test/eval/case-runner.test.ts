/**
 * `runCases` on the trial engine: every case k times per configuration, scored; stored tries resumed,
 * model errors run again, a stop keeps what finished, a scorer of one's own, and a trace per try.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCases, trialKey } from '../../src/eval/case-runner.js';
import { type AgentCase, type CaseTrial, parseCases } from '../../src/eval/cases.js';
import { summarizeTrials } from '../../src/eval/pass-k.js';
import type { Model } from '../../src/models/types.js';
import { calculator } from '../../src/tools/calculator.js';

const cases: AgentCase[] = parseCases(
  [
    '{"id": "sum", "question": "What is 2 + 3?", "expect": {"answer": "5", "toolsCalled": ["calculator"]}}',
    '{"id": "capital", "question": "Capital of France?", "expect": {"scorer": "isParis"}}',
  ].join('\n'),
  'cases.jsonl',
);

/** A model that answers each question; `wrongEvery` makes every n-th answer of a question wrong. */
function oracle(id = 'oracle', wrongEvery = 0): Model & { calls: number } {
  const asked = new Map<string, number>();
  const model = {
    id,
    calls: 0,
    async generate(request: Parameters<Model['generate']>[0]) {
      model.calls += 1;
      const text = request.messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
      const observed = /Observation: 5/.test(text);
      const key = text.includes('2 + 3') ? 'sum' : 'capital';
      const n = (asked.get(key) ?? 0) + (observed || key === 'capital' ? 1 : 0);
      asked.set(key, n);
      const wrong = wrongEvery > 0 && n > 0 && n % wrongEvery === 0;
      const reply =
        key === 'sum'
          ? observed
            ? `Thought: done.\nAnswer: ${wrong ? '6' : '5'}`
            : 'Thought: add.\nAction: calculator[2 + 3]'
          : `Thought: known.\nAnswer: ${wrong ? 'Lyon' : 'Paris'}`;
      return { text: reply, usage: { inputTokens: 10, outputTokens: 5 }, finishReason: 'stop' as const };
    },
  };
  return model;
}

const scorers = { isParis: ({ run }: { run: { answer: string | null } }) => run.answer === 'Paris' };

test('every case runs k times per configuration and is scored; the summary counts them', async () => {
  const run = await runCases({
    cases,
    configs: [{ label: 'a', agent: { model: oracle('a', 2), tools: [calculator] } }],
    repeats: 4,
    scorers,
    concurrency: 1,
  });
  assert.equal(run.trials.length, 8);
  assert.equal(run.ran, 8);
  const sum = run.trials.filter((t) => t.caseId === 'sum');
  assert.deepEqual(
    sum.map((t) => t.passed),
    [true, false, true, false],
  );
  assert.deepEqual(sum[0]?.toolCalls, ['calculator']);
  assert.deepEqual(
    sum[1]?.checks.filter((c) => !c.passed).map((c) => c.detail),
    ['expected "5", got "6"'],
  );
  const summary = summarizeTrials(run.trials, { k: 4 });
  assert.equal(summary.passRate, 0.5);
  assert.equal(summary.passK.find((p) => p.k === 4)?.value, 0);
});

test('stored tries are not run again, model errors are; a stop keeps the finished tries', async () => {
  const stored: CaseTrial[] = [];
  const store = { results: stored, append: (t: CaseTrial) => stored.push(t) };
  const failing: Model = { id: 'm', generate: () => Promise.reject(new Error('ECONNREFUSED')) };
  const first = await runCases({
    cases,
    configs: [{ label: 'm', agent: { model: failing, tools: [calculator] } }],
    repeats: 2,
    scorers,
    store,
    concurrency: 1,
  });
  assert.deepEqual(
    first.trials.map((t) => [t.status, t.passed]),
    Array(4).fill(['error', false]),
  );
  const model = oracle('m');
  const second = await runCases({
    cases,
    configs: [{ label: 'm', agent: { model, tools: [calculator] } }],
    repeats: 2,
    scorers,
    store: { results: [...stored], append: (t) => stored.push(t) },
  });
  assert.deepEqual([second.resumed, second.ran], [0, 4], 'the failed tries ran again');
  const third = await runCases({
    cases,
    configs: [{ label: 'm', agent: { model, tools: [calculator] } }],
    repeats: 2,
    scorers,
    store: { results: [...stored], append: (t) => stored.push(t) },
  });
  assert.deepEqual([third.resumed, third.ran], [4, 0]);
  assert.ok(third.trials.every((t) => t.passed));

  const stop = new AbortController();
  stop.abort();
  const stopped = await runCases({
    cases,
    configs: [{ label: 'x', agent: { model: oracle('x'), tools: [calculator] } }],
    repeats: 2,
    scorers,
    signal: stop.signal,
  });
  assert.deepEqual([stopped.ran, stopped.interrupted], [0, true]);
});

test('model errors in a row stop the run, saying why', async () => {
  const failing: Model = { id: 'm', generate: () => Promise.reject(new Error('ECONNREFUSED')) };
  const run = await runCases({
    cases,
    configs: [{ label: 'm', agent: { model: failing, tools: [calculator] } }],
    repeats: 5,
    scorers,
    concurrency: 1,
    maxConsecutiveErrors: 3,
  });
  assert.equal(run.ran, 3);
  assert.equal(run.interrupted, true);
  assert.match(run.stoppedBy ?? '', /3 results in a row ended with a model error; the last: .*ECONNREFUSED/);
});

test('each try gets its own trace, and the try records the file', async () => {
  const written = new Map<string, string[]>();
  const run = await runCases({
    cases: cases.slice(0, 1),
    configs: [{ label: 'a', agent: { model: oracle('a'), tools: [calculator] } }],
    repeats: 2,
    trace: (trial) => {
      const file = `${trial.config}/${trial.caseId}-${trial.trial}.jsonl`;
      written.set(file, []);
      return { file, write: (event) => written.get(file)?.push(event.type) };
    },
  });
  assert.deepEqual(
    run.trials.map((t) => t.trace),
    ['a/sum-0.jsonl', 'a/sum-1.jsonl'],
  );
  for (const types of written.values()) assert.deepEqual([types[0], types.at(-1)], ['run-start', 'run-end']);
});

test('bad repeats and two configurations with one label are refused before anything runs', async () => {
  const model = oracle();
  await assert.rejects(
    runCases({ cases, configs: [{ label: 'a', agent: { model, tools: [] } }], repeats: 0 }),
    RangeError,
  );
  await assert.rejects(
    runCases({
      cases,
      configs: [
        { label: 'a', agent: { model, tools: [] } },
        { label: 'a', agent: { model, tools: [] } },
      ],
      repeats: 1,
    }),
    /two configurations are labelled "a"/,
  );
  assert.equal(model.calls, 0);
  assert.equal(trialKey({ config: 'a', caseId: 'b', trial: 1, fingerprint: 'f' }), 'a\u0000b\u00001\u0000f');
});

test('a case naming a scorer that was not given, or a tool the agent lacks, is refused before any model call', async () => {
  const model = oracle();
  await assert.rejects(
    runCases({ cases, configs: [{ label: 'a', agent: { model, tools: [calculator] } }], repeats: 1 }),
    /case "capital" names the scorer "isParis", but no scorers were given/,
  );
  const typo = parseCases(
    '{"id": "t", "question": "2 + 3?", "expect": {"toolsNotCalled": ["calculater"]}}',
    'c',
  );
  await assert.rejects(
    runCases({ cases: typo, configs: [{ label: 'a', agent: { model, tools: [calculator] } }], repeats: 1 }),
    /case "t" expects calls of "calculater", which is not a tool of a \(its tools: calculator\)/,
  );
  assert.equal(model.calls, 0);
});

test('a stored try of another prompt or another case text is run again, not reused', async () => {
  const stored: CaseTrial[] = [];
  const store = () => ({ results: [...stored], append: (t: CaseTrial) => stored.push(t) });
  const agent = { model: oracle('m'), tools: [calculator] };
  const first = await runCases({
    cases,
    configs: [{ label: 'm', agent }],
    repeats: 1,
    scorers,
    store: store(),
  });
  assert.equal(first.ran, 2);
  const same = await runCases({
    cases,
    configs: [{ label: 'm', agent }],
    repeats: 1,
    scorers,
    store: store(),
  });
  assert.deepEqual([same.resumed, same.ran], [2, 0]);
  const prompt = await runCases({
    cases,
    configs: [{ label: 'm', agent: { ...agent, instructions: 'Be brief.' } }],
    repeats: 1,
    scorers,
    store: store(),
  });
  assert.deepEqual([prompt.resumed, prompt.ran], [0, 2], 'another system prompt');
  const edited = parseCases(
    [
      '{"id": "sum", "question": "What is 2 + 3?", "expect": {"answer": "5"}}',
      '{"id": "capital", "question": "Capital of France?", "expect": {"scorer": "isParis"}}',
    ].join('\n'),
  );
  const again = await runCases({
    cases: edited,
    configs: [{ label: 'm', agent: { ...agent, instructions: 'Be brief.' } }],
    repeats: 1,
    scorers,
    store: store(),
  });
  assert.deepEqual([again.resumed, again.ran], [1, 1], 'only the edited case runs again');
});
