/**
 * The cases format and scoring: every expectation passing and failing, scorers failing closed, and parse
 * errors that name the line, the field and the fix.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type AgentCase,
  CaseFormatError,
  type CaseRunFacts,
  type CaseScorer,
  parseCases,
  scoreCase,
} from '../../src/eval/cases.js';

const run = (facts: Partial<CaseRunFacts> = {}): CaseRunFacts => ({
  status: 'answered',
  answer: 'Paris',
  toolCalls: [],
  steps: 1,
  ...facts,
});
const one = (expect: AgentCase['expect']): AgentCase => ({ id: 'c', question: 'q', expect });

/** Scores a case and returns the check of `name` (asserting it exists) and whether the try passed. */
async function check(
  expect: AgentCase['expect'],
  facts: Partial<CaseRunFacts>,
  name: string,
  scorers?: Record<string, CaseScorer>,
) {
  const scored = await scoreCase(one(expect), run(facts), scorers);
  const found = scored.checks.find((c) => c.name === name);
  assert.ok(found, `no ${name} check in ${JSON.stringify(scored.checks)}`);
  assert.equal(
    scored.passed,
    scored.checks.every((c) => c.passed),
  );
  return { ...found, all: scored };
}

describe('scoreCase: each expectation', () => {
  const table: [string, AgentCase['expect'], Partial<CaseRunFacts>, Partial<CaseRunFacts>][] = [
    ['answer', { answer: 'Paris' }, { answer: '  Paris\n' }, { answer: 'paris' }],
    ['em', { em: 'The Paris!' }, { answer: 'paris' }, { answer: 'Lyon' }],
    ['em', { em: ['Lyon', 'Paris'] }, { answer: 'the paris' }, { answer: 'Marseille' }],
    [
      'f1',
      { f1: { gold: 'the city of Paris', min: 0.5 } },
      { answer: 'Paris city' },
      { answer: 'Paris, Texas' },
    ],
    ['regex', { regex: '^Par' }, { answer: 'Paris' }, { answer: 'paris' }],
    ['regex', { regex: { pattern: '^par', flags: 'i' } }, { answer: 'PARIS' }, { answer: 'Lyon' }],
    ['includes', { includes: ['PARIS', 'france'] }, { answer: 'Paris, France' }, { answer: 'Paris, Texas' }],
    ['includes', { includes: 'paris' }, { answer: 'In Paris.' }, { answer: 'Lyon' }],
    [
      'schema',
      { schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } },
      { answer: '{"n": 3}' },
      { answer: '{"n": "3"}' },
    ],
    [
      'toolsCalled',
      { toolsCalled: ['search', 'lookup'] },
      { toolCalls: ['search', 'lookup', 'search'] },
      { toolCalls: ['search'] },
    ],
    [
      'toolsNotCalled',
      { toolsNotCalled: ['delete'] },
      { toolCalls: ['search'] },
      { toolCalls: ['search', 'delete'] },
    ],
    ['maxSteps', { maxSteps: 3 }, { steps: 3 }, { steps: 4 }],
    ['maxCostUsd', { maxCostUsd: 0.01 }, { costUsd: 0.01 }, { costUsd: 0.0101 }],
    ['status', { status: 'max_steps' }, { status: 'max_steps', answer: null }, { status: 'answered' }],
  ];
  for (const [name, expect, good, bad] of table) {
    test(`${name} ${JSON.stringify(expect)}`, async () => {
      const pass = await check(expect, good, name);
      assert.equal(pass.passed, true, pass.detail);
      assert.equal(pass.all.passed, true);
      const fail = await check(expect, bad, name);
      assert.equal(fail.passed, false, fail.detail);
      assert.equal(fail.all.passed, false);
      assert.notEqual(fail.detail, '');
    });
  }

  test('f1 passes at exactly its minimum', async () => {
    // "Paris" against "the city of Paris": precision 1, recall 1/3, F1 0.5.
    const { passed, detail } = await check(
      { f1: { gold: 'the city of Paris', min: 0.5 } },
      { answer: 'Paris' },
      'f1',
    );
    assert.equal(passed, true, detail);
    assert.match(detail, /F1 0\.500/);
  });

  test('the answer check names both answers', async () => {
    const { detail } = await check({ answer: 'Paris' }, { answer: 'Lyon' }, 'answer');
    assert.equal(detail, 'expected "Paris", got "Lyon"');
  });

  test('the typed output is checked before the answer text', async () => {
    const schema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
    assert.equal((await check({ schema }, { output: { n: 1 }, answer: 'not json' }, 'schema')).passed, true);
    assert.equal(
      (await check({ schema }, { output: { n: 'x' }, answer: '{"n":1}' }, 'schema')).passed,
      false,
    );
    const notJson = await check({ schema }, { answer: 'n is 3' }, 'schema');
    assert.equal(notJson.passed, false);
    assert.match(notJson.detail, /not JSON/);
  });

  test('an unknown cost fails maxCostUsd, saying no price is known', async () => {
    const { passed, detail } = await check({ maxCostUsd: 1 }, {}, 'maxCostUsd');
    assert.equal(passed, false);
    assert.match(detail, /no price known/);
  });

  test('{} checks only that the run answered; status comes first', async () => {
    const ok = await scoreCase(one({}), run());
    assert.deepEqual(ok, { passed: true, checks: [{ name: 'status', passed: true, detail: 'answered' }] });
    const stopped = await scoreCase(
      one({ maxSteps: 5 }),
      run({ status: 'error', answer: null, error: 'boom' }),
    );
    assert.equal(stopped.passed, false);
    assert.deepEqual(
      stopped.checks.map((c) => c.name),
      ['status', 'maxSteps'],
    );
    assert.match(stopped.checks[0]!.detail, /expected answered, got error \(boom\)/);
  });

  test('answer checks fail on a missing answer with "no answer (status X)"', async () => {
    const expect = {
      answer: 'a',
      em: 'a',
      f1: { gold: 'a', min: 0 },
      regex: '.*',
      includes: 'a',
      schema: {},
    };
    const scored = await scoreCase(
      one({ ...expect, status: 'max_steps' }),
      run({ status: 'max_steps', answer: null }),
    );
    assert.equal(scored.passed, false);
    for (const name of ['answer', 'em', 'f1', 'regex', 'includes', 'schema']) {
      const c = scored.checks.find((x) => x.name === name);
      assert.deepEqual(c, { name, passed: false, detail: 'no answer (status max_steps)' });
    }
  });
});

describe('scoreCase: scorers fail closed', () => {
  const score = (result: unknown) => check({ scorer: 's' }, {}, 'scorer', { s: () => result as boolean });

  test('true, 1 and { passed: true } pass', async () => {
    for (const result of [true, 1, { passed: true }, Promise.resolve(true)])
      assert.equal((await score(result)).passed, true, String(result));
  });

  test('anything else fails', async () => {
    const inherited = Object.create({ passed: true });
    for (const result of [
      'yes',
      'true',
      { passed: 'true' },
      { passed: 1 },
      inherited,
      0.99,
      0,
      Number.NaN,
      null,
      undefined,
      [],
      {},
      false,
    ])
      assert.equal((await score(result)).passed, false, JSON.stringify(result));
  });

  test('a detail is passed on; a throwing or rejecting scorer fails with its message', async () => {
    assert.match((await score({ passed: false, detail: 'too rude' })).detail, /too rude/);
    const thrown = await check({ scorer: 's' }, {}, 'scorer', {
      s: () => {
        throw new Error('judge down');
      },
    });
    assert.equal(thrown.passed, false);
    assert.match(thrown.detail, /judge down/);
    const rejected = await check({ scorer: 's' }, {}, 'scorer', {
      s: () => Promise.reject(new Error('timeout')),
    });
    assert.equal(rejected.passed, false);
    assert.match(rejected.detail, /timeout/);
  });

  test('an unknown or inherited scorer name fails and lists the scorers', async () => {
    const missing = await check({ scorer: 'nope' }, {}, 'scorer', { polite: () => true });
    assert.equal(missing.passed, false);
    assert.match(missing.detail, /no scorer named "nope"; the scorers are polite/);
    assert.equal((await check({ scorer: 'toString' }, {}, 'scorer', {})).passed, false);
    assert.match((await check({ scorer: 'x' }, {}, 'scorer')).detail, /none were passed in/);
    const inherited = Object.create({ s: () => true }) as Record<string, CaseScorer>;
    assert.equal(
      (await check({ scorer: 's' }, {}, 'scorer', inherited)).passed,
      false,
      'an inherited scorer never runs',
    );
  });

  test('the scorer sees the case and the run', async () => {
    let seen: unknown;
    await check({ scorer: 's' }, { answer: 'Rome' }, 'scorer', {
      s: (input) => {
        seen = [input.testCase.id, input.run.answer];
        return true;
      },
    });
    assert.deepEqual(seen, ['c', 'Rome']);
  });
});

describe('parseCases', () => {
  test('reads JSONL: blank lines skipped, ids defaulted, fields kept', () => {
    const text = [
      '{"id":"capital","question":"Capital of France?","expect":{"answer":"Paris","maxSteps":3},"tags":["geo"]}',
      '',
      '   ',
      '{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},{"role":"user","content":"2+2?"}],"expect":{}}',
      '{"question":"q"}\r',
    ].join('\n');
    assert.deepEqual(parseCases(text), [
      {
        id: 'capital',
        question: 'Capital of France?',
        expect: { answer: 'Paris', maxSteps: 3 },
        tags: ['geo'],
      },
      {
        id: 'line-4',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
          { role: 'user', content: '2+2?' },
        ],
        expect: {},
      },
      { id: 'line-5', question: 'q', expect: {} },
    ]);
  });

  const errors: [string, string, RegExp][] = [
    ['bad JSON', '{question: 1}', /^cases\.jsonl:2: not valid JSON .*write one JSON object per line/],
    ['not an object', '[1]', /^cases\.jsonl:2: expected a JSON object/],
    [
      'misspelt top key',
      '{"question":"q","expects":{}}',
      /^cases\.jsonl:2: expects: unknown key; did you mean "expect"\?/,
    ],
    [
      'misspelt expect key',
      '{"question":"q","expect":{"toolCalled":["a"]}}',
      /^cases\.jsonl:2: expect\.toolCalled: unknown key; did you mean "toolsCalled"\?/,
    ],
    [
      'unknown key',
      '{"question":"q","expect":{"zzzzzz":1}}',
      /expect\.zzzzzz: unknown key; the keys are answer, em, f1/,
    ],
    [
      'bad maxSteps',
      '{"question":"q","expect":{"maxSteps":0}}',
      /^cases\.jsonl:2: expect\.maxSteps: expected a whole number ≥ 1$/,
    ],
    [
      'fractional maxSteps',
      '{"question":"q","expect":{"maxSteps":1.5}}',
      /expect\.maxSteps: expected a whole number ≥ 1/,
    ],
    [
      'both question and messages',
      '{"question":"q","messages":[{"role":"user","content":"x"}]}',
      /^cases\.jsonl:2: messages: write "question" or "messages", not both/,
    ],
    ['neither', '{"expect":{}}', /^cases\.jsonl:2: each case needs "question"/],
    [
      'last message not user',
      '{"messages":[{"role":"assistant","content":"x"}]}',
      /messages: the last message must be from the user/,
    ],
    [
      'part content',
      '{"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}]}',
      /messages\[0\]\.content: expected a string/,
    ],
    [
      'invalid regex',
      '{"question":"q","expect":{"regex":"(a"}}',
      /^cases\.jsonl:2: expect\.regex: Invalid regular expression.*write a JavaScript RegExp/,
    ],
    [
      'invalid flags',
      '{"question":"q","expect":{"regex":{"pattern":"a","flags":"qq"}}}',
      /expect\.regex: Invalid flags/,
    ],
    [
      'unreadable schema',
      '{"question":"q","expect":{"schema":{"type":"bogus"}}}',
      /expect\.schema: zod cannot read this JSON Schema/,
    ],
    [
      'bad status',
      '{"question":"q","expect":{"status":"done"}}',
      /expect\.status: expected one of answered, max_steps/,
    ],
    [
      'f1 out of range',
      '{"question":"q","expect":{"f1":{"gold":"x","min":2}}}',
      /expect\.f1\.min: expected a number from 0 to 1/,
    ],
    [
      'empty em list',
      '{"question":"q","expect":{"em":[]}}',
      /expect\.em: expected a string or a non-empty list/,
    ],
    [
      'duplicate id',
      '{"id":"first","question":"again"}',
      /^cases\.jsonl:2: id: "first" is already used on line 1; give each case its own id/,
    ],
  ];
  for (const [what, line, message] of errors) {
    test(`error: ${what}`, () => {
      const text = `{"id":"first","question":"ok"}\n${line}\n`;
      assert.throws(
        () => parseCases(text, 'cases.jsonl'),
        (error: unknown) => {
          assert.ok(error instanceof CaseFormatError);
          assert.equal(error.name, 'CaseFormatError');
          assert.equal(error.line, 2);
          assert.equal(error.source, 'cases.jsonl');
          assert.match(error.message, message);
          return true;
        },
      );
    });
  }

  test('a default id that collides with an explicit one is a duplicate', () => {
    assert.throws(
      () => parseCases('{"question":"a"}\n{"id":"line-1","question":"b"}'),
      /cases:2: id: "line-1" is already used/,
    );
  });
});
