/**
 * Approval fails closed against inherited data and thenables: an option or tool field set on
 * `Object.prototype` (prototype pollution, say from a library merging request JSON) never lets a tool with
 * side effects run, in text mode, in native mode, with `pauseForApproval`, in a nested agent and in the UI
 * route; and an `approve` answer that is a thenable is read by its own fields, not unwrapped.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentTool } from '../../src/agent/agent-tool.js';
import { askApprover } from '../../src/agent/approval.js';
import { AgentConfigError } from '../../src/agent/errors.js';
import { runAgent } from '../../src/agent/loop.js';
import type { AgentConfig } from '../../src/agent/options.js';
import type { ApprovalRequest, ApproveFn } from '../../src/agent/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { createAgentUIStreamResponse } from '../../src/ui/ui-response.js';
import { appendTool, nativeReplyModel, TEST_SECRET, textToolCall } from '../helpers/agent-run.js';
import { chatRequest, sendEmailTool } from '../helpers/ui-chat.js';

/** Values that, set on `Object.prototype`, turned approvals off before. */
const POLLUTION: ReadonlyArray<[string, unknown]> = [
  ['allowTools', 'all'],
  ['approve', () => ({ type: 'approve' })],
  ['needsApproval', false],
  // A journal "replays" a recorded approval without asking anyone.
  [
    'journal',
    (name: string, effect: () => unknown) => (name.endsWith('approval') ? { type: 'approve' } : effect()),
  ],
  // The same, as the groups the options have had since 0.1.0 (`limits.allowTools`, `durable.journal`).
  ['limits', { allowTools: 'all' }],
  [
    'durable',
    {
      journal: (name: string, effect: () => unknown) =>
        name.endsWith('approval') ? { type: 'approve' } : effect(),
    },
  ],
];

const PROTO = Object.prototype as Record<string, unknown>;

/** Runs `body` with `key` set on `Object.prototype`, removed again whatever happens. */
async function polluted<T>(key: string, value: unknown, body: () => Promise<T>): Promise<T> {
  assert.equal(Object.hasOwn(Object.prototype, key), false, `Object.prototype.${key} was set before`);
  Object.defineProperty(Object.prototype, key, {
    value,
    configurable: true,
    writable: true,
    enumerable: false,
  });
  try {
    return await body();
  } finally {
    delete PROTO[key];
  }
}

type Mode = 'text' | 'native';

function modelFor(mode: Mode) {
  return mode === 'text'
    ? scriptedModel(['Thought: write\nAction: append[a]', 'Thought: done\nAnswer: ok'])
    : nativeReplyModel([[textToolCall('c1', 'append', 'a')], 'Answer: ok']);
}

async function runOnce(mode: Mode, extra: Partial<AgentConfig> = {}) {
  const { tool, lines: runs } = appendTool();
  const result = await runAgent({
    model: modelFor(mode),
    question: 'Write a.',
    tools: [tool],
    ...extra,
    modelSettings: { ...(mode === 'native' && { mode: 'native' as const }), ...extra.modelSettings },
  });
  return { result, runs };
}

for (const mode of ['text', 'native'] as const) {
  for (const [key, value] of POLLUTION) {
    test(`${mode} mode: Object.prototype.${key} does not let a write tool run in a plain run`, async () => {
      const { result, runs } = await polluted(key, value, () => runOnce(mode));
      assert.deepEqual(runs, [], 'the tool ran');
      assert.equal(result.status, 'answered');
      const observation = result.steps[0]?.observation;
      assert.equal(observation?.approval?.type, 'reject');
      assert.match(observation?.text ?? '', /no one was asked to approve/);
    });

    test(`${mode} mode: Object.prototype.${key} does not let a write tool run with pauseForApproval`, async () => {
      const { result, runs } = await polluted(key, value, () =>
        runOnce(mode, { durable: { pauseForApproval: true } }),
      );
      assert.deepEqual(runs, [], 'the tool ran');
      assert.equal(result.status, 'paused');
      assert.deepEqual(
        result.pending?.map((p) => p.tool),
        ['append'],
      );
    });

    test(`${mode} mode: Object.prototype.${key} does not override an approver that rejects`, async () => {
      const reject: ApproveFn = () => ({ type: 'reject', reason: 'not today' });
      const { result, runs } = await polluted(key, value, () => runOnce(mode, { approve: reject }));
      assert.deepEqual(runs, [], 'the tool ran');
      assert.equal(result.steps[0]?.observation?.approval?.type, 'reject');
    });
  }
}

test('a nested agent (agentTool) does not take an inherited approve as its parent’s', async () => {
  const { tool, lines: runs } = appendTool();
  const helper = agentTool({
    name: 'helper',
    description: 'Writes.',
    model: scriptedModel(['Thought: write\nAction: append[a]', 'Thought: done\nAnswer: tried']),
    tools: [tool],
  });
  const result = await polluted(
    'approve',
    () => ({ type: 'approve' }),
    () =>
      runAgent({
        model: scriptedModel(['Thought: ask\nAction: helper[write a]', 'Thought: ok\nAnswer: ok']),
        question: 'Write a.',
        tools: [helper],
      }),
  );
  assert.deepEqual(runs, [], 'the nested tool ran');
  assert.equal(result.status, 'answered');
});

test('the UI route does not take an inherited secret: pauseForApproval still needs one of its own', async () => {
  const { tool, sent } = sendEmailTool();
  await polluted('secret', TEST_SECRET, () =>
    assert.rejects(
      createAgentUIStreamResponse({
        tools: [tool],
        model: scriptedModel(['Thought: send\nAction: send_email[ann@example.com]']),
        request: chatRequest([{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Email Ann.' }] }]),
        durable: { pauseForApproval: true },
      }),
      AgentConfigError,
    ),
  );
  assert.deepEqual(sent, []);
});

/** An answer whose own `type` is 'reject', with a `then` that would answer 'approve' if awaited. */
const rejectThenApprove = () => ({
  type: 'reject',
  // biome-ignore lint/suspicious/noThenProperty: the attack under test
  then(resolve: (value: unknown) => void) {
    resolve({ type: 'approve' });
  },
});

for (const mode of ['text', 'native'] as const) {
  test(`${mode} mode: an approve answer that is a thenable is read by its own type, not unwrapped`, async () => {
    const { result, runs } = await runOnce(mode, { approve: rejectThenApprove as unknown as ApproveFn });
    assert.deepEqual(runs, [], 'the tool ran');
    assert.equal(result.steps[0]?.observation?.approval?.type, 'reject');
  });

  test(`${mode} mode: a thenable without a type is a rejection too`, async () => {
    // biome-ignore lint/suspicious/noThenProperty: the attack under test
    const approve = () => ({ then: (resolve: (value: unknown) => void) => resolve({ type: 'approve' }) });
    const { runs } = await runOnce(mode, { approve: approve as unknown as ApproveFn });
    assert.deepEqual(runs, [], 'the tool ran');
  });

  test(`${mode} mode: a native Promise of an approval (an async approver) still approves`, async () => {
    const { runs } = await runOnce(mode, { approve: async () => ({ type: 'approve' }) });
    assert.deepEqual(runs, ['a']);
  });
}

test('askApprover (the durable path) reads a thenable by its own type', async () => {
  const request: ApprovalRequest = { id: 'r', step: 1, tool: 'append', input: 'a', effects: 'write' };
  assert.equal((await askApprover(request, rejectThenApprove as unknown as ApproveFn)).type, 'reject');
  assert.equal(
    (await askApprover(request, () => Promise.resolve({ type: 'approve' as const }))).type,
    'approve',
  );
});
