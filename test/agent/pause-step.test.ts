/**
 * A native step's approvals are asked together: with `pauseForApproval`, a step whose model asked for two
 * tools that need approval pauses once with both requests, and a resume takes both decisions. With `approve`
 * alone, each call is asked just before it runs, one at a time, in order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentTool } from '../../src/agent/agent-tool.js';
import { RunStateError } from '../../src/agent/errors.js';
import { runAgent, streamAgent } from '../../src/agent/loop.js';
import type { AgentConfig } from '../../src/agent/options.js';
import { resumeAgent } from '../../src/agent/resume.js';
import type { RunState } from '../../src/agent/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { defineTool } from '../../src/tools/define.js';
import { collectRun, nativeReplyModel, textToolCall } from '../helpers/agent-run.js';

/** A write tool that logs each run, and a read tool that counts its runs. */
function tools(log: string[] = []) {
  const append = defineTool({
    name: 'append',
    description: 'Appends a line.',
    input: 'text',
    effects: 'write',
    run: (line) => {
      log.push(`ran ${line}`);
      return `appended ${line}`;
    },
  });
  const counter = { reads: 0 };
  const look = defineTool({
    name: 'look',
    description: 'Looks.',
    input: 'text',
    run: () => `seen ${++counter.reads}`,
  });
  return { append, look, log, counter };
}

const STEP = [
  textToolCall('c1', 'look', 'x'),
  textToolCall('c2', 'append', 'a'),
  textToolCall('c3', 'append', 'b'),
];

async function pausedStep() {
  const t = tools();
  const options = {
    question: 'Write a and b.',
    tools: [t.look, t.append],
    modelSettings: { mode: 'native' },
    durable: { pauseForApproval: true },
  } satisfies Partial<AgentConfig> & { question: string };
  const model = nativeReplyModel([STEP]);
  const { events, result } = await collectRun(streamAgent({ ...options, model }));
  const state = JSON.parse(JSON.stringify(result.state)) as RunState;
  return { ...t, options, model, events, result, state };
}

test('pauseForApproval: a step asking for two tools that need approval pauses once, with both requests', async () => {
  const { result, events, log, counter, model } = await pausedStep();
  assert.equal(result.status, 'paused');
  assert.equal(model.requests, 1);
  assert.deepEqual(
    result.pending!.map((p) => [p.id.replace(/^.*\/step/, 'step'), p.tool, p.input]),
    [
      ['step-1/call-2', 'append', 'a'],
      ['step-1/call-3', 'append', 'b'],
    ],
  );
  const starts = events.filter((e) => e.type === 'approval-start');
  assert.deepEqual(
    starts.map((e) => [e.call, e.request.input]),
    [
      [2, 'a'],
      [3, 'b'],
    ],
  );
  const pause = events.find((e) => e.type === 'run-pause');
  assert.equal(pause?.type === 'run-pause' && pause.pending.length, 2);
  assert.deepEqual(log, [], 'nothing ran before the decisions');
  assert.equal(counter.reads, 0, 'not even the read');
});

test('resume with both decisions: each approved call runs once, a rejected one never, in one resumed run', async () => {
  const { result, state, options, log, counter } = await pausedStep();
  const [a, b] = result.pending!;
  const model = nativeReplyModel(['done']);
  const done = await resumeAgent({
    ...options,
    model,
    state,
    decisions: { [a!.id]: { type: 'approve' }, [b!.id]: { type: 'reject', reason: 'not b' } },
  });
  assert.equal(done.status, 'answered');
  assert.equal(done.answer, 'done');
  assert.equal(model.requests, 1, 'the paused step was not asked of the model again');
  assert.deepEqual(log, ['ran a']);
  assert.equal(counter.reads, 1);
  const [first] = done.steps;
  assert.equal(first!.observation?.text, 'seen 1');
  assert.deepEqual(
    first!.otherCalls!.map((c) => c.observation.text),
    [
      'appended a',
      'The user rejected this action (not b). It did not run. Choose another action, or give the Answer.',
    ],
  );
});

test('a decision missing for one of the step’s requests is refused with a clear error; nothing runs', async () => {
  const { result, state, options, log, counter } = await pausedStep();
  const [a, b] = result.pending!;
  const model = nativeReplyModel(['done']);
  await assert.rejects(
    resumeAgent({ ...options, model, state, decisions: { [a!.id]: { type: 'approve' } } }),
    (error: unknown) => {
      assert.ok(error instanceof RunStateError);
      assert.equal(error.problem, 'decision');
      assert.match(error.message, /No decision for/);
      assert.ok(error.message.includes(b!.id));
      return true;
    },
  );
  assert.deepEqual(log, []);
  assert.equal(counter.reads, 0);
  assert.equal(model.requests, 0);
});

test('a state of a later pause keeps the step’s batched approvals and tool calls, and resumes again', async () => {
  const { result, state, options, log } = await pausedStep();
  const decisions = Object.fromEntries(result.pending!.map((p) => [p.id, { type: 'approve' as const }]));
  const again = await resumeAgent({
    ...options,
    model: nativeReplyModel([[textToolCall('c4', 'append', 'c')]]),
    state,
    decisions,
  });
  assert.equal(again.status, 'paused');
  assert.deepEqual(
    again.state!.journal.map((e) => e.name),
    [
      'step-1-model',
      'step-1-approval',
      'step-1-approval',
      'step-1-tool',
      'step-1-tool',
      'step-1-tool',
      'step-2-model',
    ],
  );
  // A state whose step approvals are not followed by their tool calls is refused (a resume would run them).
  const forged = JSON.parse(JSON.stringify(again.state)) as RunState;
  forged.journal = forged.journal.filter((e) => e.name !== 'step-1-tool');
  await assert.rejects(
    resumeAgent({ ...options, model: nativeReplyModel([]), state: forged, decisions: {} }),
    /the approval step-1-approval is not followed by its tool call/,
  );
  const done = await resumeAgent({
    ...options,
    model: nativeReplyModel(['done']),
    state: JSON.parse(JSON.stringify(again.state)) as RunState,
    decisions: { [again.pending![0]!.id]: { type: 'approve' } },
  });
  assert.equal(done.status, 'answered');
  assert.deepEqual(log, ['ran a', 'ran b', 'ran c'], 'each write ran exactly once');
});

test('approve (no pause) is asked one call at a time, in order, each call running before the next is asked', async () => {
  const t = tools();
  const result = await runAgent({
    model: nativeReplyModel([STEP, 'done']),
    question: 'Write a and b.',
    tools: [t.look, t.append],
    approve: (request) => {
      t.log.push(`asked ${request.input}`);
      return { type: 'approve' };
    },
    modelSettings: { mode: 'native' },
  });
  assert.equal(result.status, 'answered');
  assert.deepEqual(t.log, ['asked a', 'ran a', 'asked b', 'ran b']);
});

test('approve that approves one call and pauses on the next resumes, without approve, where it stopped', async () => {
  const t = tools();
  const options = {
    question: 'Write a and b.',
    tools: [t.look, t.append],
    modelSettings: { mode: 'native' },
  } satisfies Partial<AgentConfig> & { question: string };
  const first = await runAgent({
    ...options,
    model: nativeReplyModel([STEP]),
    approve: (request) => (request.input === 'a' ? { type: 'approve' } : { type: 'pause' }),
  });
  assert.equal(first.status, 'paused');
  assert.deepEqual(t.log, ['ran a'], 'the approved call ran before the pause');
  assert.deepEqual(
    first.pending!.map((p) => p.input),
    ['b'],
  );
  assert.equal(first.state!.approvalsTogether, undefined, 'asked one at a time, and resumed so');
  const { state: batched } = await pausedStep();
  assert.equal(batched.approvalsTogether, true);
  await assert.rejects(
    resumeAgent({
      ...options,
      model: nativeReplyModel(['done']),
      state: { ...batched, approvalsTogether: 'yes' } as unknown as RunState,
      decisions: {},
    }),
    (error) => error instanceof RunStateError && /approvalsTogether/.test(error.message),
  );
  // The person decides later, in another request: no approve callback this time.
  const done = await resumeAgent({
    ...options,
    model: nativeReplyModel(['done']),
    state: JSON.parse(JSON.stringify(first.state)) as RunState,
    decisions: { [first.pending![0]!.id]: { type: 'approve' } },
  });
  assert.equal(done.status, 'answered', done.error);
  assert.deepEqual(t.log, ['ran a', 'ran b'], 'each write ran exactly once');
});

test('a read made before a nested agent paused in the same step is not made again on resume', async () => {
  const t = tools();
  const inner = scriptedModel(['Thought: write.\nAction: append[n]', 'Thought: written.\nAnswer: wrote n']);
  const helper = agentTool({ name: 'helper', description: 'Writes.', model: inner, tools: [t.append] });
  const options = {
    question: 'q',
    tools: [t.look, helper],
    modelSettings: { mode: 'native' },
    durable: { pauseForApproval: true },
  } satisfies Partial<AgentConfig> & { question: string };
  const first = await runAgent({
    ...options,
    model: nativeReplyModel([[textToolCall('c1', 'look', 'x'), textToolCall('c2', 'helper', 'write n')]]),
  });
  assert.equal(first.status, 'paused');
  assert.equal(t.counter.reads, 1);
  const model = nativeReplyModel(['done']);
  const done = await resumeAgent({
    ...options,
    model,
    state: JSON.parse(JSON.stringify(first.state)) as RunState,
    decisions: { [first.pending![0]!.id]: { type: 'approve' } },
  });
  assert.equal(done.status, 'answered');
  assert.equal(t.counter.reads, 1, 'the read was replayed, not made again');
  assert.deepEqual(t.log, ['ran n']);
  inner.assertAllUsed();
});
