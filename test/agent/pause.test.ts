import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AgentConfigError, RunStateError } from '../../src/agent/errors.js';
import { runAgent, streamAgent } from '../../src/agent/loop.js';
import type { AgentConfig } from '../../src/agent/options.js';
import { resumeAgent, streamResumedAgent } from '../../src/agent/resume.js';
import type { AgentEvent, ApprovalDecision, RunState } from '../../src/agent/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { defineTool } from '../../src/tools/define.js';
import { appendTool, collectRun, TEST_SECRET } from '../helpers/agent-run.js';

const ACT_A = 'Thought: write a\nAction: append[a]';
const ACT_B = 'Thought: write b\nAction: append[b]';
const ANSWER = 'Thought: done\nAnswer: ok';

/** A run that pauses at its first action, with the state as it comes back from storage (JSON). */
async function pausedRun(extra: Partial<AgentConfig> = {}) {
  const { tool, lines } = appendTool();
  const model = scriptedModel([ACT_A]);
  const options = {
    question: 'Write a.',
    tools: [tool],
    ...extra,
    durable: { pauseForApproval: true, ...extra.durable },
  };
  const { events, result } = await collectRun(streamAgent({ model, ...options }));
  model.assertAllUsed();
  const state = JSON.parse(JSON.stringify(result.state)) as RunState;
  return { events, result, state, lines, tool, options };
}

test('pauseForApproval: the run ends paused with the request and a JSON state; the tool did not run', async () => {
  const { events, result, state, lines } = await pausedRun();
  assert.equal(result.status, 'paused');
  assert.deepEqual(lines, []);
  assert.equal(result.pending?.length, 1);
  const [request] = result.pending!;
  assert.deepEqual(
    { step: request!.step, tool: request!.tool, input: request!.input, effects: request!.effects },
    { step: 1, tool: 'append', input: 'a', effects: 'write' },
  );
  assert.match(request!.id, /\/step-1\/call-1$/);
  assert.deepEqual(state, result.state, 'the state survives JSON as it is');
  assert.equal(state.version, 1);
  assert.deepEqual(
    state.journal.map((e) => e.name),
    ['step-1-model'],
  );
  assert.deepEqual(state.messages, [{ role: 'user', content: 'Write a.' }]);
  const types = events.map((e) => e.type);
  assert.deepEqual(types.slice(-3), ['approval-start', 'run-pause', 'run-end']);
  const pause = events.at(-2) as Extract<AgentEvent, { type: 'run-pause' }>;
  assert.deepEqual(pause.pending, result.pending);
  assert.equal(pause.state, result.state);
});

test('resume with an approval: the tool runs once, no earlier model call is made again, events start after the pause', async () => {
  const { result, state, lines, tool } = await pausedRun();
  const model = scriptedModel([ANSWER]);
  const id = result.pending![0]!.id;
  const { events, result: resumed } = await collectRun(
    streamResumedAgent({ model, tools: [tool], state, decisions: { [id]: { type: 'approve' } } }),
  );
  model.assertAllUsed();
  assert.equal(resumed.status, 'answered');
  assert.equal(resumed.answer, 'ok');
  assert.deepEqual(lines, ['a']);
  assert.equal(resumed.steps.length, 2, 'the whole trajectory, replayed steps included');
  assert.equal(resumed.steps[0]!.observation?.text, 'appended a');
  assert.deepEqual(resumed.steps[0]!.observation?.approval, { type: 'approve' });
  assert.deepEqual(
    events.map((e) => e.type),
    [
      'run-start',
      'approval-end',
      'tool-start',
      'tool-end',
      'step-end',
      'model-start',
      'model-end',
      'step-end',
      'run-end',
    ],
  );
  assert.deepEqual(resumed.messages, [
    { role: 'user', content: 'Write a.' },
    { role: 'assistant', content: 'ok' },
  ]);
});

test('resume with a rejection: the model is told why and the tool never runs', async () => {
  const { result, state, lines, tool } = await pausedRun();
  const model = scriptedModel([ANSWER]);
  const resumed = await resumeAgent({
    model,
    tools: [tool],
    state,
    decisions: { [result.pending![0]!.id]: { type: 'reject', reason: 'not today' } },
  });
  assert.equal(resumed.status, 'answered');
  assert.deepEqual(lines, []);
  assert.match(resumed.steps[0]!.observation!.text, /The user rejected this action \(not today\)/);
  assert.match(JSON.stringify(model.requests[0]!.messages), /not today/);
});

test('resume with an edited input: the tool runs once with the edit', async () => {
  const { result, state, lines, tool } = await pausedRun();
  const resumed = await resumeAgent({
    model: scriptedModel([ANSWER]),
    tools: [tool],
    state,
    decisions: { [result.pending![0]!.id]: { type: 'edit', input: 'A, edited' } },
  });
  assert.equal(resumed.status, 'answered');
  assert.deepEqual(lines, ['A, edited']);
});

test('a decision of the wrong shape is a rejection (fail closed)', async () => {
  for (const answer of [
    true,
    'yes',
    { type: 'APPROVE' },
    { approved: true },
    null,
    { type: 'edit', input: 3 },
  ]) {
    const { result, state, lines, tool } = await pausedRun();
    const resumed = await resumeAgent({
      model: scriptedModel([ANSWER]),
      tools: [tool],
      state,
      decisions: { [result.pending![0]!.id]: answer } as Record<string, ApprovalDecision>,
    });
    assert.deepEqual(lines, [], JSON.stringify(answer));
    assert.equal(resumed.steps[0]!.observation?.approval?.type, 'reject');
  }
});

test('decisions must match the pending requests: another id, a missing one and a stale one are refused before anything runs', async () => {
  const { result, state, tool, lines } = await pausedRun();
  const model = scriptedModel([]);
  const id = result.pending![0]!.id;
  const resume = (decisions: unknown) =>
    resumeAgent({ model, tools: [tool], state, decisions: decisions as Record<string, ApprovalDecision> });
  await assert.rejects(resume({ 'other-run/step-1/call-1': { type: 'approve' } }), (error: unknown) => {
    assert.ok(error instanceof RunStateError);
    assert.equal(error.problem, 'decision');
    assert.match(error.message, /"other-run\/step-1\/call-1", which this paused run does not wait for/);
    assert.ok(error.message.includes(id));
    return true;
  });
  await assert.rejects(resume({}), /No decision for/);
  await assert.rejects(resume([{ type: 'approve' }]), /must be an object keyed by pending request id/);
  assert.deepEqual(lines, []);
  assert.equal(model.requests.length, 0);

  // A run that pauses twice: the decision for the first pause does not answer the second.
  const twice = appendTool();
  const first = await runAgent({
    model: scriptedModel([ACT_A]),
    question: 'Write a and b.',
    tools: [twice.tool],
    durable: { pauseForApproval: true },
  });
  const firstId = first.pending![0]!.id;
  const second = await resumeAgent({
    model: scriptedModel([ACT_B]),
    tools: [twice.tool],
    state: first.state!,
    decisions: { [firstId]: { type: 'approve' } },
    durable: { pauseForApproval: true },
  });
  assert.equal(second.status, 'paused');
  assert.deepEqual(
    second.pending!.map((p) => [p.step, p.input]),
    [[2, 'b']],
  );
  assert.deepEqual(
    second.state!.journal.map((e) => e.name),
    ['step-1-model', 'step-1-approval', 'step-1-tool', 'step-2-model'],
  );
  await assert.rejects(
    resumeAgent({
      model: scriptedModel([]),
      tools: [twice.tool],
      state: second.state!,
      decisions: { [firstId]: { type: 'approve' } },
    }),
    (error: unknown) => error instanceof RunStateError && /earlier pause/.test(error.message),
  );
  const done = await resumeAgent({
    model: scriptedModel([ANSWER]),
    tools: [twice.tool],
    state: second.state!,
    decisions: { [second.pending![0]!.id]: { type: 'approve' } },
  });
  assert.equal(done.status, 'answered');
  assert.deepEqual(twice.lines, ['a', 'b'], 'each write ran exactly once');
  assert.equal(done.steps.length, 3);
});

test('approve can pause case by case with { type: "pause" }', async () => {
  const { tool, lines } = appendTool();
  const asked: string[] = [];
  const result = await runAgent({
    model: scriptedModel([ACT_A]),
    question: 'Write a.',
    tools: [tool],
    approve: (request) => {
      asked.push(request.input);
      return { type: 'pause' };
    },
  });
  assert.equal(result.status, 'paused');
  assert.deepEqual(asked, ['a']);
  assert.deepEqual(lines, []);
  assert.ok(result.state);
});

test('with a secret, the state is signed; a tampered, foreign or unsigned state is refused', async () => {
  const { result, state, tool, lines } = await pausedRun({ durable: { secret: TEST_SECRET } });
  assert.match(state.signature ?? '', /^hmac-sha256:[A-Za-z0-9_-]+$/);
  const decisions: Record<string, ApprovalDecision> = { [result.pending![0]!.id]: { type: 'approve' } };
  const model = scriptedModel([ANSWER]);
  const resume = (s: unknown, secret: string | null = TEST_SECRET) =>
    resumeAgent({
      model,
      tools: [tool],
      state: s as RunState,
      decisions,
      ...(secret !== null && { durable: { secret } }),
    });
  const refusedFor = (problem: string) => (error: unknown) => {
    assert.ok(error instanceof RunStateError, String(error));
    assert.equal(error.problem, problem);
    return true;
  };

  const observation = structuredClone(state);
  (observation.journal[0]!.value as { response: { text: string } }).response.text =
    'Thought: x\nAction: append[rm -rf]';
  await assert.rejects(resume(observation), refusedFor('signature'));
  await assert.rejects(
    resume({ ...state, pending: [{ ...state.pending[0]!, input: 'b' }] }),
    refusedFor('signature'),
  );
  await assert.rejects(resume(state, 'another secret, also 32 characters long'), refusedFor('signature'));
  await assert.rejects(resume({ ...state, signature: 'hmac-sha256:AAAA' }), refusedFor('signature'));
  await assert.rejects(resume(state, null), /signed: pass the `durable.secret`/);
  const { signature: _, ...unsigned } = state;
  await assert.rejects(resume(unsigned), refusedFor('unsigned'));
  assert.deepEqual(lines, []);
  assert.equal(model.requests.length, 0);

  // The same data with its keys in another order (a jsonb column) still verifies.
  const reordered = Object.fromEntries(Object.entries(state).reverse());
  const resumed = await resume(reordered);
  assert.equal(resumed.status, 'answered');
  assert.deepEqual(lines, ['a']);
});

test('a state of another version, or not a state at all, is refused, not misread', async () => {
  const { result, state, tool } = await pausedRun();
  const decisions: Record<string, ApprovalDecision> = { [result.pending![0]!.id]: { type: 'approve' } };
  const resume = (s: unknown) =>
    resumeAgent({ model: scriptedModel([]), tools: [tool], state: s as RunState, decisions });
  await assert.rejects(resume({ ...state, version: 2 }), (error: unknown) => {
    assert.ok(error instanceof RunStateError);
    assert.equal(error.problem, 'version');
    assert.match(error.message, /version 2; this taoloop reads version 1 only/);
    return true;
  });
  await assert.rejects(resume({ steps: [] }), /not a taoloop run state/);
  await assert.rejects(resume(JSON.stringify(state)), /not a taoloop run state/);
  // An approval recorded without its tool call would let a tool run that no one approved now.
  const forged = {
    ...state,
    journal: [...state.journal, { name: 'step-1-approval', value: { type: 'approve' } }],
  };
  await assert.rejects(resume(forged), /not followed by its tool call/);
});

test('a resume that does not follow the paused run (other options) is refused before anything new runs', async () => {
  const { result, state, tool, lines } = await pausedRun();
  const decisions: Record<string, ApprovalDecision> = { [result.pending![0]!.id]: { type: 'approve' } };
  // The tool now runs without asking, so the recorded run no longer reaches the approval it paused on.
  await assert.rejects(
    resumeAgent({ model: scriptedModel([]), tools: [tool], state, decisions, limits: { allowTools: 'all' } }),
    (error: unknown) => error instanceof RunStateError && error.problem === 'mismatch',
  );
  await assert.rejects(
    resumeAgent({ model: scriptedModel([]), tools: [tool], question: 'Another question', state, decisions }),
    /another conversation/,
  );
  assert.deepEqual(lines, []);
});

test('pause and resume do not combine with a journal (a durable engine waits for approvals itself)', async () => {
  const { tool } = appendTool();
  await assert.rejects(
    runAgent({
      model: scriptedModel([]),
      question: 'q',
      tools: [tool],
      durable: { pauseForApproval: true, journal: (_name, effect) => effect() },
    }),
    AgentConfigError,
  );
});

test('native mode: a read call of the paused step runs once, after the decisions (not before the pause, not again)', async () => {
  const { tool, lines } = appendTool();
  let reads = 0;
  const look = defineTool({
    name: 'look',
    description: 'Looks.',
    input: 'text',
    run: () => `seen ${++reads}`,
  });
  const calls = (n: number) => ({
    id: `call-${n}`,
    name: n === 1 ? 'look' : 'append',
    input: JSON.stringify({ input: n === 1 ? 'x' : 'a' }),
  });
  const nativeModel = (replies: ('calls' | 'answer')[]) => {
    let i = 0;
    return {
      id: 'native',
      supportsToolCalls: true,
      requests: 0,
      async generate() {
        this.requests++;
        const reply = replies[i++];
        if (reply === undefined) throw new Error('called too often');
        return reply === 'calls'
          ? { text: '', toolCalls: [calls(1), calls(2)], usage: {}, finishReason: 'tool-calls' as const }
          : { text: 'done', toolCalls: [], usage: {}, finishReason: 'stop' as const };
      },
    };
  };
  const first = await runAgent({
    model: nativeModel(['calls']),
    question: 'q',
    tools: [look, tool],
    modelSettings: { mode: 'native' },
    durable: { pauseForApproval: true },
  });
  assert.equal(first.status, 'paused');
  assert.equal(reads, 0, 'the step asks for its approvals before any of its calls runs');
  assert.deepEqual(
    first.pending!.map((p) => p.id.replace(/^.*\/step/, 'step')),
    ['step-1/call-2'],
  );
  const second = nativeModel(['answer']);
  const done = await resumeAgent({
    model: second,
    tools: [look, tool],
    state: JSON.parse(JSON.stringify(first.state)),
    decisions: { [first.pending![0]!.id]: { type: 'approve' } },
    modelSettings: { mode: 'native' },
  });
  assert.equal(done.status, 'answered');
  assert.equal(reads, 1, 'the read ran once');
  assert.deepEqual(lines, ['a']);
  assert.equal(second.requests, 1);
});

test('a run that may pause keeps a tool’s full output in its steps as any run does; the state keeps only the observation', async () => {
  const huge = 'x'.repeat(100_000);
  const dump = defineTool({ name: 'dump', description: 'Dumps.', input: 'text', run: () => huge });
  const { tool } = appendTool();
  const result = await runAgent({
    model: scriptedModel(['Thought: t\nAction: dump[]', ACT_A]),
    question: 'q',
    tools: [dump, tool],
    approve: () => ({ type: 'pause' }),
  });
  assert.equal(result.status, 'paused');
  assert.equal(result.steps[0]!.observation?.fullText, huge);
  assert.ok(JSON.stringify(result.state).length < 20_000, 'the state holds the truncated observation only');
});
