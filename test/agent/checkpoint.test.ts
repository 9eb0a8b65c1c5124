/**
 * Checkpoints (`durable.onCheckpoint`, issue 27): a resumed run hands over a signed state before its first
 * new effect and after each one, so a retry continues from the latest and repeats at most the effect that
 * was in flight. The kill test of the example (`test/examples/approve-later-kill.test.ts`) kills a real
 * process; these check the rules in one process.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AgentConfigError, RunStateError } from '../../src/agent/errors.js';
import { runAgent } from '../../src/agent/loop.js';
import { resumeAgent } from '../../src/agent/resume.js';
import type { RunState } from '../../src/agent/types.js';
import type { Model } from '../../src/models/types.js';
import { defineTool } from '../../src/tools/define.js';
import { appendTool, nativeReplyModel, TEST_SECRET, textToolCall } from '../helpers/agent-run.js';

const ACT = 'Thought: write a\nAction: append[a]';
const LOOK = 'Thought: check it\nAction: look[a]';
const ANSWER = 'Thought: done\nAnswer: ok';

const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** A text model that replies by how many observations it has seen: a repeated call gets the same reply. */
function byProgress(replies: string[]): Model & { calls: number } {
  const model = {
    id: 'by-progress',
    calls: 0,
    async generate(request: { messages: { content: unknown }[] }) {
      model.calls += 1;
      const seen = JSON.stringify(request.messages).match(/appended |looked at /g)?.length ?? 0;
      const text = replies[seen] ?? ANSWER;
      return { text, usage: {}, finishReason: 'stop' as const };
    },
  };
  return model as Model & { calls: number };
}

/** A read tool, `look[x]`, that counts its runs. */
function lookTool() {
  const looked: string[] = [];
  const tool = defineTool({
    name: 'look',
    description: 'Looks at a line.',
    input: 'text',
    run: (line) => {
      looked.push(line);
      return `looked at ${line}`;
    },
  });
  return { tool, looked };
}

/** Paused at `append[a]`, with a model that then looks at it and answers. */
async function pausedRun() {
  const t = appendTool();
  const replies = [ACT, LOOK, ANSWER];
  const durable = { pauseForApproval: true, secret: TEST_SECRET };
  const tools = [t.tool, lookTool().tool];
  const result = await runAgent({ model: byProgress(replies), question: 'Write.', tools, durable });
  assert.equal(result.status, 'paused');
  return { state: json(result.state!), id: result.pending![0]!.id, replies, durable };
}

test('a resume hands over a signed checkpoint with its decisions first, then after each effect', async () => {
  const { state, id, replies, durable } = await pausedRun();
  const t = appendTool();
  const look = lookTool();
  const checkpoints: RunState[] = [];
  const result = await resumeAgent({
    model: byProgress(replies),
    tools: [t.tool, look.tool],
    state,
    decisions: { [id]: { type: 'approve' } },
    durable: { ...durable, onCheckpoint: (c) => void checkpoints.push(json(c)) },
  });
  assert.equal(result.status, 'answered', result.error);
  assert.deepEqual(t.lines, ['a']);
  assert.deepEqual(look.looked, ['a']);
  const first = checkpoints[0]!;
  assert.equal(first.checkpoint, true);
  assert.match(first.signature!, /^hmac-sha256:/);
  assert.deepEqual(first.journal, state.journal, 'taken before the first new effect');
  assert.deepEqual(first.decisions, { [id]: { type: 'approve' } });
  // Never an approval without its call: checkpoints after each call and model turn, none in between.
  const ends = checkpoints.map((c) => c.journal.at(-1)?.name);
  assert.deepEqual(ends, ['step-1-model', 'step-1-tool', 'step-2-model', 'step-2-tool', 'step-3-model']);
});

test('every checkpoint continues to the same end, repeating nothing it recorded', async () => {
  const { state, id, replies, durable } = await pausedRun();
  const checkpoints: RunState[] = [];
  const t = appendTool();
  await resumeAgent({
    model: byProgress(replies),
    tools: [t.tool, lookTool().tool],
    state,
    decisions: { [id]: { type: 'approve' } },
    durable: { ...durable, onCheckpoint: (c) => void checkpoints.push(json(c)) },
  });
  const callIds = new Map(t.calls.map((c) => [c.line, c.callId]));
  for (const [i, checkpoint] of checkpoints.entries()) {
    // A new process: a fresh tool and model, the checkpoint as stored, no decisions.
    const again = appendTool();
    const look = lookTool();
    const model = byProgress(replies);
    const tools = [again.tool, look.tool];
    const result = await resumeAgent({ model, tools, state: checkpoint, durable });
    assert.equal(result.status, 'answered', `checkpoint ${i}: ${result.error}`);
    assert.equal(result.answer, 'ok');
    const done = checkpoint.journal.filter((e) => e.name.endsWith('-tool')).length;
    assert.deepEqual(
      [...again.lines, ...look.looked],
      ['a', 'a'].slice(done),
      `checkpoint ${i} runs only the calls it lacks`,
    );
    for (const call of again.calls) assert.equal(call.callId, callIds.get(call.line), 'the same callId');
    const turns = checkpoint.journal.filter((e) => e.name.endsWith('-model')).length;
    assert.equal(model.calls, 3 - turns, `checkpoint ${i} makes only the model calls it lacks`);
    assert.equal(result.steps.length, 3, 'the whole trajectory is in the result');
  }
});

test('a checkpoint is resumed only signed, as it is: no decisions, no edits', async () => {
  const { state, id, replies, durable } = await pausedRun();
  const checkpoints: RunState[] = [];
  await resumeAgent({
    model: byProgress(replies),
    tools: [appendTool().tool, lookTool().tool],
    state,
    decisions: { [id]: { type: 'approve' } },
    durable: { ...durable, onCheckpoint: (c) => void checkpoints.push(json(c)) },
  });
  const [first] = checkpoints;
  const t = appendTool();
  const tools = [t.tool, lookTool().tool];
  const resume = (edited: RunState, extra: object = {}) =>
    resumeAgent({ model: byProgress(replies), tools, state: edited, durable, ...extra });
  const problem = (p: string) => (error: unknown) => error instanceof RunStateError && error.problem === p;
  const { signature: _s, ...unsigned } = first!;
  await assert.rejects(resume(unsigned as RunState), problem('unsigned'));
  await assert.rejects(
    resumeAgent({
      model: byProgress(replies),
      tools,
      state: unsigned as RunState,
      durable: { pauseForApproval: true },
    }),
    problem('unsigned'),
    'without a secret, a checkpoint is refused too',
  );
  await assert.rejects(resume(first!, { decisions: { [id]: { type: 'approve' } } }), problem('decision'));
  await assert.rejects(
    resume({ ...first!, decisions: { [id]: { type: 'reject' } } }),
    problem('signature'),
    'decisions edited in storage',
  );
  // A paused state (no decisions) made into a checkpoint by hand: its signature no longer matches.
  await assert.rejects(resume({ ...state, checkpoint: true, decisions: {} }), problem('signature'));
  assert.deepEqual(t.lines, []);
});

test('onCheckpoint needs a secret and no journal; a failing one stops the run before its next effect', async () => {
  const { state, id, replies, durable } = await pausedRun();
  const t = appendTool();
  const decisions = { [id]: { type: 'approve' as const } };
  const base = { model: byProgress(replies), tools: [t.tool, lookTool().tool], state, decisions };
  const fresh = { model: byProgress(replies), question: 'q', tools: [] };
  await assert.rejects(runAgent({ ...fresh, durable: { onCheckpoint: () => {} } }), AgentConfigError);
  await assert.rejects(
    runAgent({ ...fresh, durable: { secret: TEST_SECRET, onCheckpoint: 'yes' } } as never),
    AgentConfigError,
  );
  await assert.rejects(
    runAgent({
      model: byProgress(replies),
      question: 'q',
      tools: [],
      durable: { secret: TEST_SECRET, onCheckpoint: () => {}, journal: (_n, f) => f() },
    }),
    AgentConfigError,
  );
  await assert.rejects(
    resumeAgent({
      ...base,
      durable: {
        ...durable,
        onCheckpoint: () => {
          throw new Error('disk full');
        },
      },
    }),
    (error: unknown) =>
      error instanceof RunStateError && error.problem === 'checkpoint' && /disk full/.test(error.message),
  );
  assert.deepEqual(t.lines, [], 'the first checkpoint failed: the approved call did not run');
});

test("a callback that never settles is ended by the run's signal and timeoutMs; nothing runs", async () => {
  const { state, id, replies, durable } = await pausedRun();
  const t = appendTool();
  const hang = () => new Promise<void>(() => {});
  const base = { tools: [t.tool, lookTool().tool], state, decisions: { [id]: { type: 'approve' as const } } };
  const timed = await resumeAgent({
    ...base,
    model: byProgress(replies),
    limits: { timeoutMs: 50 },
    durable: { ...durable, onCheckpoint: hang },
  });
  assert.equal(timed.status, 'budget', timed.error);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 20);
  const aborted = await resumeAgent({
    ...base,
    model: byProgress(replies),
    signal: controller.signal,
    durable: { ...durable, onCheckpoint: hang },
  });
  assert.equal(aborted.status, 'aborted', aborted.error);
  assert.deepEqual(t.lines, [], 'the approved call did not run');
});

test('a durable.secret that cannot sign is a caller mistake before anything runs', async () => {
  for (const secret of ['', 'short', 123, null]) {
    const model = byProgress([ANSWER]);
    await assert.rejects(
      runAgent({
        model,
        question: 'q',
        tools: [],
        durable: { pauseForApproval: true, secret: secret as string },
      }),
      (error: unknown) => error instanceof AgentConfigError && /durable\.secret/.test(error.message),
      String(secret),
    );
    assert.equal(model.calls, 0, 'no model call');
  }
});

test('a run with pauseForApproval checkpoints too, and continues from one without decisions', async () => {
  const t = appendTool();
  const checkpoints: RunState[] = [];
  const model = nativeReplyModel([[textToolCall('c1', 'append', 'a')]]);
  const result = await runAgent({
    model,
    question: 'Write.',
    tools: [t.tool],
    modelSettings: { mode: 'native' },
    durable: {
      pauseForApproval: true,
      secret: TEST_SECRET,
      onCheckpoint: (c) => void checkpoints.push(json(c)),
    },
  });
  assert.equal(result.status, 'paused');
  assert.equal(checkpoints.length, 1, 'after the model call');
  assert.deepEqual(checkpoints[0]!.pending, []);
  // Continued from the checkpoint (as if killed after the model call): the model is not called again.
  const resumed = await resumeAgent({
    model: nativeReplyModel([]),
    tools: [t.tool],
    modelSettings: { mode: 'native' },
    state: checkpoints[0]!,
    durable: { pauseForApproval: true, secret: TEST_SECRET },
  });
  assert.equal(resumed.status, 'paused', resumed.error);
  assert.deepEqual(
    resumed.pending!.map((p) => p.input),
    ['a'],
  );
});

test('a native step with two approvals: no checkpoint holds an approval whose call has not run', async () => {
  const t = appendTool();
  const durable = { pauseForApproval: true, secret: TEST_SECRET };
  const native = { modelSettings: { mode: 'native' as const }, tools: [t.tool] };
  const first = await runAgent({
    ...native,
    model: nativeReplyModel([[textToolCall('c1', 'append', 'a'), textToolCall('c2', 'append', 'b')]]),
    question: 'Write.',
    durable,
  });
  const checkpoints: RunState[] = [];
  const done = await resumeAgent({
    ...native,
    model: nativeReplyModel(['ok']),
    state: json(first.state!),
    decisions: Object.fromEntries(first.pending!.map((p) => [p.id, { type: 'approve' as const }])),
    durable: { ...durable, onCheckpoint: (c) => void checkpoints.push(json(c)) },
  });
  assert.equal(done.status, 'answered');
  assert.deepEqual(
    checkpoints.map((c) => c.journal.map((e) => e.name.replace('step-1-', '')).join(',')),
    ['model', 'model,approval,approval,tool,tool', 'model,approval,approval,tool,tool,step-2-model'],
  );
  for (const checkpoint of checkpoints) {
    const again = appendTool();
    const result = await resumeAgent({
      ...native,
      tools: [again.tool],
      model: nativeReplyModel(['ok']),
      state: checkpoint,
      durable,
    });
    assert.equal(result.status, 'answered', result.error);
  }
});
