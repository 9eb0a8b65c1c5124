/**
 * Each strategy with a scripted model: what it sends, how it reads the answer, and that each hybrid switches
 * exactly at its condition (the scripted model fails when called more often than scripted, and
 * `assertAllUsed` fails when called less, so the number of calls proves whether a fallback ran).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { PromptSet } from '../../src/eval/prompts.js';
import { extractAnswer, majorityVote } from '../../src/eval/single-call.js';
import { runStrategy, type StrategyContext } from '../../src/eval/strategies.js';
import type { StrategyName } from '../../src/eval/types.js';
import { type ScriptedTurn, scriptedModel } from '../../src/testing/scripted-model.js';
import { createWikipediaTools, wikipediaCorpus } from '../../src/tools/wikipedia.js';

const fixture = (name: string) => new URL(`../fixtures/${name}`, import.meta.url);
const prompts = JSON.parse(readFileSync(fixture('eval-prompts.json'), 'utf8')) as PromptSet;
const backend = wikipediaCorpus(fixture('wiki-corpus.jsonl').pathname);
const item = { id: 'q1', question: 'In which city was Ada Lovelace born?', answer: 'London' };

function run(strategy: StrategyName, turns: ScriptedTurn[], extra: Partial<StrategyContext> = {}) {
  const model = scriptedModel(turns, { usage: { inputTokens: 100, outputTokens: 10 } });
  const outcome = runStrategy(strategy, {
    model,
    item,
    kind: 'qa',
    prompts,
    createTools: () => createWikipediaTools({ backend }),
    samples: 5,
    maxSteps: 4,
    hybridReactSteps: 2,
    ...extra,
  });
  return { model, outcome };
}

const cot = (answer: string) =>
  `Thought: Let's think step by step. So the answer is ${answer}.\nAnswer: ${answer}`;
const reactTurns = [
  'Thought: I need to search Ada Lovelace.\nAction: search[Ada Lovelace]',
  'Thought: She was born in London.\nAction: finish[London]',
];

describe('Standard and CoT', () => {
  test('standard: one call at temperature 0 with the examples, the answer read from `Answer:`', async () => {
    const { model, outcome } = run('standard', ['Answer: London']);
    const result = await outcome;
    model.assertAllUsed();
    const request = model.requests[0]!;
    assert.equal(request.temperature, 0);
    assert.match(
      request.messages[0]!.content,
      /Question: Who was the father of Ada Lovelace\?\nAnswer: Lord Byron/,
    );
    assert.equal(request.messages[1]!.content, 'Question: In which city was Ada Lovelace born?');
    assert.deepEqual(request.stopSequences, ['\nQuestion:']);
    assert.equal(result.answer, 'London');
    assert.equal(result.status, 'answered');
    assert.deepEqual(result.usage, { inputTokens: 100, outputTokens: 10 });
  });

  test('cot reads `Finish[...]`, and a reply without an answer is a format error', async () => {
    assert.equal(
      (await run('cot', ['Thought: She was born in London.\nFinish[London]']).outcome).answer,
      'London',
    );
    const none = await run('cot', ['She was probably born in London.']).outcome;
    assert.equal(none.answer, null);
    assert.equal(none.status, 'format_errors');
    assert.equal(none.formatErrors, 1);
  });

  test('an invented observation after the answer is dropped and counted', () => {
    assert.deepEqual(extractAnswer('Answer: London\nObservation: correct!'), {
      answer: 'London',
      inventedObservation: true,
    });
  });

  test('a model error is an `error` outcome, not a throw', async () => {
    const result = await run('standard', [new Error('HTTP 500')]).outcome;
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /HTTP 500/);
  });
});

describe('CoT-SC', () => {
  test('n samples at temperature 0.7, majority answer after normalisation', async () => {
    const { model, outcome } = run('cot-sc', [
      cot('Paris'),
      cot('London'),
      cot('london.'),
      'no answer',
      cot('the London'),
    ]);
    const result = await outcome;
    model.assertAllUsed();
    assert.deepEqual(
      model.requests.map((r) => r.temperature),
      [0.7, 0.7, 0.7, 0.7, 0.7],
    );
    assert.equal(result.answer, 'London');
    assert.deepEqual(result.vote, { answer: 'London', votes: 3, samples: 5 });
    assert.equal(result.steps, 5);
    assert.equal(result.formatErrors, 1);
    assert.deepEqual(result.usage, { inputTokens: 500, outputTokens: 50, cachedInputTokens: undefined });
  });

  test('ties go to the answer that reached the top count first; no answers vote nothing', () => {
    assert.deepEqual(majorityVote(['A', 'B', 'B', 'A']), { answer: 'B', votes: 2, samples: 4 });
    assert.deepEqual(majorityVote([null, null]), { answer: null, votes: 0, samples: 2 });
  });
});

describe('Act and ReAct', () => {
  test('react runs the Wikipedia tools through the loop', async () => {
    const { model, outcome } = run('react', reactTurns);
    const result = await outcome;
    model.assertAllUsed();
    assert.equal(result.answer, 'London');
    assert.equal(result.steps, 2);
    assert.equal(result.toolErrors, 0);
    assert.match(model.requests[1]!.messages.at(-1)!.content, /^Observation: Ada Lovelace was an English/);
    assert.match(model.requests[0]!.messages[0]!.content, /Action: lookup\[father\]/);
  });

  test('act asks for no thoughts and counts tool errors and format errors', async () => {
    const { model, outcome } = run('act', ['Action: lookup[born]', 'Search Ada', 'Action: finish[London]']);
    const result = await outcome;
    model.assertAllUsed();
    assert.match(model.requests[0]!.messages[0]!.content, /write no Thought/);
    assert.equal(result.toolErrors, 1);
    assert.equal(result.formatErrors, 1);
    assert.equal(result.answer, 'London');
  });
});

describe('ReAct → CoT-SC switches only when ReAct gives no answer', () => {
  test('ReAct answers: no CoT-SC call', async () => {
    const { model, outcome } = run('react-cot-sc', reactTurns);
    const result = await outcome;
    model.assertAllUsed();
    assert.equal(result.switched, false);
    assert.equal(result.answer, 'London');
  });

  test('ReAct runs out of its steps: CoT-SC decides', async () => {
    const searching = 'Thought: search more.\nAction: search[London]';
    const turns = [searching, 'Thought: again.\nAction: search[Engine]', ...Array(5).fill(cot('Paris'))];
    const { model, outcome } = run('react-cot-sc', turns);
    const result = await outcome;
    model.assertAllUsed();
    assert.equal(result.switched, true);
    assert.equal(result.answer, 'Paris');
    assert.equal(result.steps, 7);
    assert.deepEqual(result.vote, { answer: 'Paris', votes: 5, samples: 5 });
  });

  test('ReAct stops on format errors: CoT-SC decides', async () => {
    const turns = ['no labels', 'still none', ...Array(5).fill(cot('London'))];
    const result = await run('react-cot-sc', turns).outcome;
    assert.equal(result.switched, true);
    assert.equal(result.answer, 'London');
    assert.equal(result.formatErrors, 2);
  });
});

describe('CoT-SC → ReAct switches exactly when the majority holds fewer than n/2 votes', () => {
  const cases: { n: number; answers: (string | null)[]; switches: boolean }[] = [
    { n: 4, answers: ['A', 'A', 'B', 'C'], switches: false }, // 2 < 2 is false
    { n: 4, answers: ['A', 'A', null, null], switches: false }, // n counts samples without an answer
    { n: 4, answers: ['A', 'B', 'C', 'D'], switches: true }, // 1 < 2
    { n: 5, answers: ['A', 'A', 'B', 'C', 'D'], switches: true }, // 2 < 2.5
    { n: 5, answers: ['A', 'A', 'A', 'B', 'C'], switches: false }, // 3 < 2.5 is false
    { n: 1, answers: [null], switches: true }, // 0 < 0.5
  ];
  for (const { n, answers, switches } of cases) {
    test(`n=${n}, samples ${JSON.stringify(answers)}: ${switches ? 'switch' : 'no switch'}`, async () => {
      const samples = answers.map((a) => (a === null ? 'I cannot tell.' : cot(a)));
      const { model, outcome } = run('cot-sc-react', switches ? [...samples, ...reactTurns] : samples, {
        samples: n,
      });
      const result = await outcome;
      model.assertAllUsed();
      assert.equal(result.switched, switches);
      assert.equal(result.vote?.samples, n);
      if (switches) {
        assert.equal(result.answer, 'London');
        assert.equal(result.steps, n + 2);
        assert.equal(model.requests[n]!.temperature, 0);
      } else {
        assert.equal(result.answer, 'A');
        assert.equal(result.steps, n);
      }
    });
  }
});
