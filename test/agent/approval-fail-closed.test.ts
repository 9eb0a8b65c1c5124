/**
 * Approval fails closed (issue 14, item 1): whatever an `approve` function returns, throws or rejects
 * with in plain JavaScript, a tool with side effects runs only after an exact approval or a valid edit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { toApprovalDecision } from '../../src/agent/approval.js';
import { runAgent } from '../../src/agent/loop.js';
import type { AgentConfig } from '../../src/agent/options.js';
import type { ApproveFn, Journal } from '../../src/agent/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import type { Tool } from '../../src/tools/types.js';

const TURNS = ['Thought: save it\nAction: save[note]', 'Thought: ok\nAnswer: finished'];

/** A text tool with side effects that records every run. */
function saveTool(overrides: Partial<Tool> = {}) {
  const runs: unknown[] = [];
  const tool: Tool = {
    name: 'save',
    description: 'Saves a note.',
    effects: 'write',
    run: (input) => {
      runs.push(input);
      return 'saved';
    },
    ...overrides,
  };
  return { tool, runs };
}

/** Runs one save action with `approve` (plain JavaScript: any value) and reports what happened. */
async function runWith(approve: unknown, extra: Partial<AgentConfig> = {}) {
  const { tool, runs } = saveTool();
  const result = await runAgent({
    model: scriptedModel(TURNS),
    question: 'q',
    tools: [tool],
    ...(approve !== undefined && { approve: approve as ApproveFn }),
    ...extra,
  });
  return { runs, result, observation: result.steps[0]?.observation };
}

function assertRefused(outcome: Awaited<ReturnType<typeof runWith>>, label: string) {
  assert.deepEqual(outcome.runs, [], `${label}: the tool ran`);
  assert.match(outcome.observation?.text ?? '', /It did not run\./, `${label}: observation`);
  assert.equal(outcome.observation?.ok, false, label);
  assert.equal(outcome.observation?.approval?.type, 'reject', label);
  // The run goes on: the model's next turn is read and answers.
  assert.equal(outcome.result.status, 'answered', `${label}: the run did not go on`);
}

/** Values an approver written in plain JavaScript can return that are not an approval. */
const NOT_APPROVALS: ReadonlyArray<[string, unknown]> = [
  ['false', false],
  ['true', true],
  ["'no'", 'no'],
  ["'approve' (a bare string)", 'approve'],
  ["'yes'", 'yes'],
  ['{}', {}],
  ['undefined', undefined],
  ['null', null],
  ['0', 0],
  ['1', 1],
  ['[]', []],
  ["[{ type: 'approve' }]", [{ type: 'approve' }]],
  ['a function', () => ({ type: 'approve' })],
  ['a symbol', Symbol('approve')],
  ["{ type: 'Approve' }", { type: 'Approve' }],
  ["{ type: 'APPROVE' }", { type: 'APPROVE' }],
  ["{ type: 'approve ' }", { type: 'approve ' }],
  ["{ type: 'approved' }", { type: 'approved' }],
  ["{ type: 'allow' }", { type: 'allow' }],
  ['{ type: true }', { type: true }],
  ["{ type: ['approve'] }", { type: ['approve'] }],
  ['{ approve: true }', { approve: true }],
  ["{ type: 'edit' } without input", { type: 'edit' }],
  ["{ type: 'edit', input: 5 }", { type: 'edit', input: 5 }],
  ["{ type: 'edit', input: null }", { type: 'edit', input: null }],
  ["{ type: 'edit', input: ['note'] }", { type: 'edit', input: ['note'] }],
  ["{ type: 'edit', input: { toString } }", { type: 'edit', input: { toString: () => 'note' } }],
  ["{ type: 'EDIT', input: 'note' }", { type: 'EDIT', input: 'note' }],
  ['an inherited type', Object.create({ type: 'approve' })],
  [
    'a getter that says approve',
    Object.defineProperty({}, 'type', { get: () => 'approve', enumerable: true }),
  ],
  [
    'a getter that throws',
    Object.defineProperty({}, 'type', {
      get: () => {
        throw new Error('boom');
      },
    }),
  ],
  [
    'a proxy that throws',
    new Proxy(
      {},
      {
        getOwnPropertyDescriptor() {
          throw new Error('trap');
        },
        get() {
          throw new Error('trap');
        },
      },
    ),
  ],
  ["{ type: 'reject' }", { type: 'reject' }],
  ["{ type: 'reject', reason: 42 }", { type: 'reject', reason: 42 }],
];

test('every value that is not exactly an approval is a rejection: the tool does not run, the run goes on', async () => {
  for (const [label, value] of NOT_APPROVALS) {
    assertRefused(await runWith(() => value), `returned ${label}`);
    assertRefused(await runWith(async () => value), `resolved to ${label}`);
  }
});

test('an approve that throws or rejects never runs the tool', async () => {
  const throwers: ReadonlyArray<[string, () => unknown]> = [
    [
      'throws an Error',
      () => {
        throw new Error('approver crashed');
      },
    ],
    [
      'throws a string',
      () => {
        throw 'nope';
      },
    ],
    [
      'throws undefined',
      () => {
        throw undefined;
      },
    ],
    ['rejects with an Error', () => Promise.reject(new Error('approver crashed'))],
    ['rejects with null', () => Promise.reject(null)],
    ['rejects later', () => new Promise((_, reject) => setTimeout(() => reject(new Error('late')), 5))],
    [
      'throws an error whose message getter throws',
      () => {
        throw Object.defineProperty(new Error(), 'message', {
          get: () => {
            throw new Error('again');
          },
        });
      },
    ],
  ];
  for (const [label, approve] of throwers) {
    const outcome = await runWith(approve);
    assertRefused(outcome, label);
    assert.match(outcome.observation?.text ?? '', /approval failed/, label);
  }
  // A thenable is not a Promise: it is read as it is (no own `type`), and its `then` is never called.
  let thenCalls = 0;
  const thenable = await runWith(() => ({
    // biome-ignore lint/suspicious/noThenProperty: a hostile thenable is the point of this case.
    then: () => {
      thenCalls++;
      throw new Error('then');
    },
  }));
  assertRefused(thenable, 'returns a thenable whose then throws');
  assert.match(thenable.observation?.text ?? '', /whose type is nothing/);
  assert.equal(thenCalls, 0);
  // An approver that is not a function is a rejection too, not a crash.
  assertRefused(await runWith({ type: 'approve' }), 'approve is an object');
  assertRefused(await runWith('yes'), 'approve is a string');
});

test('the rejection says what came back, without echoing it, and the model reads that the action did not run', async () => {
  const { observation } = await runWith(() => ({ type: 'APPROVE' }));
  assert.equal(
    observation?.text,
    'The user rejected this action (the approver answered an object whose type is a string, not "approve", "edit" or "reject"). It did not run. Choose another action, or give the Answer.',
  );
  const none = await runWith(() => undefined);
  assert.match(none.observation?.text ?? '', /the approver answered nothing \(undefined\), not an approval/);
});

test('only the exact approval and a valid edit run the tool', async () => {
  const approved = await runWith(() => ({ type: 'approve' }));
  assert.deepEqual(approved.runs, ['note']);
  const edited = await runWith(async () => ({ type: 'edit', input: 'other' }));
  assert.deepEqual(edited.runs, ['other']);
  assert.deepEqual(edited.observation?.approval, { type: 'edit', input: 'other' });
});

test('a recorded decision from the journal is read the same way: a malformed one runs nothing', async () => {
  for (const recorded of [undefined, null, 'approve', { type: 'Approve' }, { type: 'edit', input: 1 }]) {
    const journal: Journal = async (name, effect) =>
      (name.endsWith('-approval') ? recorded : await effect()) as never;
    assertRefused(
      await runWith(() => ({ type: 'approve' }), { durable: { journal } }),
      `journal gave ${String(recorded)}`,
    );
  }
});

test('allowTools allows only by exact name in an array, or exactly "all"', async () => {
  for (const allowTools of ['save', 'save,other', 'ALL', true, { save: true }, ['Save'], ['sav']]) {
    assertRefused(
      await runWith(undefined, { limits: { allowTools: allowTools as readonly string[] } }),
      `allowTools ${JSON.stringify(allowTools)}`,
    );
  }
  assert.deepEqual((await runWith(undefined, { limits: { allowTools: ['save'] } })).runs, ['note']);
  assert.deepEqual((await runWith(undefined, { limits: { allowTools: 'all' } })).runs, ['note']);
});

test('a tool asks unless needsApproval is exactly false (falsy values and misspelt effects ask)', async () => {
  for (const overrides of [
    { needsApproval: 0 },
    { needsApproval: '' },
    { needsApproval: null },
    { needsApproval: 'false' },
    { effects: 'READ' },
    { effects: '' },
  ]) {
    const { tool, runs } = saveTool(overrides as Partial<Tool>);
    if (!('effects' in overrides)) tool.effects = 'write';
    const result = await runAgent({ model: scriptedModel(TURNS), question: 'q', tools: [tool] });
    assert.deepEqual(runs, [], JSON.stringify(overrides));
    assert.match(result.steps[0]?.observation?.text ?? '', /It did not run/);
  }
  const { tool, runs } = saveTool({ needsApproval: false });
  await runAgent({ model: scriptedModel(TURNS), question: 'q', tools: [tool] });
  assert.deepEqual(runs, ['note']);
});

/** True for the two shapes that may run the tool. */
function isExactApprovalOrEdit(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const type = Object.getOwnPropertyDescriptor(value, 'type');
  if (!type || !('value' in type)) return false;
  if (type.value === 'approve') return true;
  const input = Object.getOwnPropertyDescriptor(value, 'input');
  return type.value === 'edit' && input !== undefined && typeof input.value === 'string';
}

/** Arbitrary values, plus near misses of the approval shape. */
const answers = fc.oneof(
  fc.anything({
    withBigInt: true,
    withBoxedValues: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
  }),
  fc.record(
    {
      type: fc.oneof(
        fc.constantFrom('Approve', 'APPROVE', 'approved', ' approve', 'yes', 'ok', 'edit', 'Edit', 'reject'),
        fc.anything(),
      ),
      input: fc.anything().filter((v) => typeof v !== 'string'),
      reason: fc.anything(),
    },
    { requiredKeys: [] },
  ),
);

test('property: no arbitrary answer, returned, resolved, thrown or rejected, runs the tool', async () => {
  await fc.assert(
    fc.asyncProperty(answers, fc.constantFrom('return', 'resolve', 'throw', 'reject'), async (value, how) => {
      fc.pre(!isExactApprovalOrEdit(value));
      const approve = () => {
        switch (how) {
          case 'return':
            return value;
          case 'resolve':
            return Promise.resolve(value);
          case 'throw':
            throw value;
          case 'reject':
            return Promise.reject(value);
          default:
            return how satisfies never;
        }
      };
      assertRefused(await runWith(approve), `${how} ${fc.stringify(value)}`);
      const decision = toApprovalDecision(value);
      assert.equal(decision.type, 'reject');
    }),
    { numRuns: 300 },
  );
});
