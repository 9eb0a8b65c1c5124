/**
 * Events are data the loop hands out, never levers on it: what an observer or the stream's reader does to
 * an event changes neither an approval, nor the action run, nor the next prompt, nor the result; an
 * observer that never settles cannot hold a stopped run; a nested agent's observers see a replayed step
 * once; a caller mistake leaves no timer running; an inherited resume field counts as absent; an agent
 * tool's own tools can pause the run.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentTool } from '../../src/agent/agent-tool.js';
import { RunStateError } from '../../src/agent/errors.js';
import { runAgent, streamAgent } from '../../src/agent/loop.js';
import { resumeAgent } from '../../src/agent/resume.js';
import type { AgentEvent, ApprovalRequest, RunObserver } from '../../src/agent/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import { defineTool } from '../../src/tools/define.js';
import { appendTool } from '../helpers/agent-run.js';

const WRITE_A = 'Thought: write\nAction: append[a]';
const ANSWER = 'Thought: done\nAnswer: ok';

test('an observer that turns a rejection into an approval, or edits the request, changes nothing', async () => {
  const { tool, lines } = appendTool();
  const asked: string[] = [];
  const meddler: RunObserver = {
    event(event) {
      if (event.type === 'approval-start') event.request.input = 'EVIL';
      if (event.type === 'approval-end') Object.assign(event.decision, { type: 'approve' });
    },
  };
  const result = await runAgent({
    model: scriptedModel([WRITE_A, ANSWER]),
    tools: [tool],
    question: 'q',
    approve: (request: ApprovalRequest) => {
      asked.push(request.input);
      return { type: 'reject', reason: 'no' };
    },
    hooks: { observers: [meddler] },
  });
  assert.deepEqual(asked, ['a'], 'the approver saw the real input');
  assert.deepEqual(lines, [], 'the rejected call did not run');
  assert.equal(result.steps[0]?.observation?.approval?.type, 'reject');
});

test('a reader that edits model-end’s turn changes no action', async () => {
  const { tool, lines } = appendTool();
  const model = scriptedModel([WRITE_A, ANSWER]);
  let result: Awaited<ReturnType<typeof runAgent>> | undefined;
  const run = streamAgent({
    model,
    tools: [tool, calculator],
    question: 'q',
    limits: { allowTools: ['append'] },
  });
  for (let next = await run.next(); ; next = await run.next()) {
    if (next.done) {
      result = next.value;
      break;
    }
    const event: AgentEvent = next.value;
    if (event.type === 'model-end' && event.turn.type === 'action') {
      event.turn.input = 'EVIL';
      Object.assign(event.turn, { tool: 'calculator' });
    }
  }
  assert.deepEqual(lines, ['a']);
  assert.equal(result.answer, 'ok');
  assert.equal(result.steps[0]?.turn.type === 'action' && result.steps[0].turn.input, 'a');
});

test('an observer that never settles holds no run past its time budget', { timeout: 20_000 }, async () => {
  // It hangs from the first event on: the run's clock, not the observer, decides when it ends.
  const hanging: RunObserver = { event: () => new Promise<void>(() => {}) };
  const result = await runAgent({
    model: scriptedModel([ANSWER]),
    tools: [],
    question: 'q',
    limits: { timeoutMs: 200 },
    hooks: { observers: [hanging], onStepEnd: () => new Promise<void>(() => {}) },
  });
  assert.equal(result.status, 'budget');
  assert.match(result.error ?? '', /time budget/);
});

test('a nested agent’s observers see each of its steps once, across a pause and a resume', async () => {
  const { tool, lines } = appendTool();
  const seen: string[] = [];
  const watcher: RunObserver = {
    event(event) {
      if (event.type === 'step-end') seen.push(`${event.step.index}:${event.step.turn.type}`);
    },
  };
  // A resumed run replays the model calls it made: each model is scripted with the turns still to come.
  const inner = (turns: string[]) =>
    agentTool({
      name: 'notes',
      description: 'Keeps notes.',
      model: scriptedModel(turns),
      tools: [tool],
      hooks: { observers: [watcher] },
    });
  const durable = { pauseForApproval: true };
  const first = await runAgent({
    tools: [inner([WRITE_A])],
    durable,
    model: scriptedModel(['Thought: delegate\nAction: notes[write a]']),
    question: 'q',
  });
  assert.equal(first.status, 'paused');
  const state = JSON.parse(JSON.stringify(first.state));
  const id = first.pending![0]!.id;
  const second = await resumeAgent({
    durable,
    tools: [inner([ANSWER])],
    model: scriptedModel([ANSWER]),
    state,
    decisions: { [id]: { type: 'approve' } },
  });
  assert.equal(second.status, 'answered');
  assert.deepEqual(lines, ['a']);
  assert.deepEqual(seen, ['1:action', '2:answer'], 'no step of the nested run was observed twice');
});

test('a caller mistake with a time budget leaves no timer running', async () => {
  const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
  const before = timers();
  const bad = defineTool({ name: 'bad name!', description: 'x', input: 'text', run: () => 'x' });
  await assert.rejects(
    runAgent({ model: scriptedModel([]), tools: [bad], question: 'q', limits: { timeoutMs: 60_000 } }),
  );
  assert.equal(timers(), before);
});

test('resumeAgent reads state and decisions as own properties: inherited ones count as absent', async () => {
  const { tool, lines } = appendTool();
  const options = { tools: [tool], durable: { pauseForApproval: true } };
  const first = await runAgent({ ...options, model: scriptedModel([WRITE_A]), question: 'q' });
  const id = first.pending![0]!.id;
  const proto = Object.prototype as Record<string, unknown>;
  try {
    proto.decisions = { [id]: { type: 'approve' } };
    const withoutDecisions = { ...options, model: scriptedModel([ANSWER]), state: first.state! };
    await assert.rejects(resumeAgent(withoutDecisions as never), RunStateError);
  } finally {
    delete proto.decisions;
  }
  assert.deepEqual(lines, []);
});

test('a tool inside an agent tool can pause the run, whatever the parent allows or the inner effects are', async () => {
  const careful = defineTool({
    name: 'careful',
    description: 'Reads, but asks first.',
    input: 'text',
    needsApproval: true,
    run: () => 'read',
  });
  const agent = agentTool({
    name: 'reader',
    description: 'Reads carefully.',
    model: scriptedModel(['Thought: read\nAction: careful[x]', ANSWER]),
    tools: [careful],
  });
  const result = await runAgent({
    model: scriptedModel(['Thought: ask\nAction: reader[read x]', ANSWER]),
    tools: [agent],
    question: 'q',
    approve: () => ({ type: 'pause' }),
    limits: { allowTools: ['reader'] },
  });
  assert.equal(result.status, 'paused');
  assert.equal(result.pending?.[0]?.tool, 'careful');
});
