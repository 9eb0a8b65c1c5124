import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runAgent } from '../../src/agent/loop.js';
import type { Journal } from '../../src/agent/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { defineTool } from '../../src/tools/define.js';

/** A journal like a durable engine's: records each effect's result by name, replays recorded ones. */
function memoryJournal(recorded = new Map<string, unknown>()) {
  const names: string[] = [];
  const journal: Journal = async (name, effect) => {
    names.push(name);
    if (recorded.has(name)) return JSON.parse(JSON.stringify(recorded.get(name)));
    const result = await effect();
    recorded.set(name, JSON.parse(JSON.stringify(result)));
    return result;
  };
  return { journal, names, recorded };
}

function counterTool() {
  let runs = 0;
  const tool = defineTool({
    name: 'append',
    description: 'Appends a line.',
    input: 'text',
    effects: 'write',
    run: (line) => `appended ${line} (run ${++runs})`,
  });
  return { tool, runs: () => runs };
}

const script = [
  'Thought: write\nAction: append[a]',
  'Thought: again\nAction: append[b]',
  'Thought: done\nAnswer: ok',
];

test('every side effect goes through the journal, under a stable name', async () => {
  const { tool } = counterTool();
  const { journal, names } = memoryJournal();
  const result = await runAgent({
    model: scriptedModel(script),
    question: 'q',
    tools: [tool],
    durable: { journal },
    limits: { allowTools: 'all' },
  });
  assert.equal(result.status, 'answered');
  assert.deepEqual(names, ['step-1-model', 'step-1-tool', 'step-2-model', 'step-2-tool', 'step-3-model']);
});

test('a resumed run replays recorded effects: no model call or write tool runs twice', async () => {
  const first = counterTool();
  const { recorded } = memoryJournal();
  // The first worker got through step 1 and step 2's model call, then died.
  const partial = memoryJournal(recorded);
  const dying = scriptedModel([script[0]!, script[1]!, new Error('worker killed')]);
  await runAgent({
    model: dying,
    question: 'q',
    tools: [first.tool],
    durable: { journal: partial.journal },
    limits: { allowTools: 'all' },
  });
  recorded.delete('step-3-model');
  assert.equal(first.runs(), 2);

  const resumedModel = scriptedModel([script[2]!]);
  const resumed = memoryJournal(recorded);
  const result = await runAgent({
    model: resumedModel,
    question: 'q',
    tools: [first.tool],
    durable: { journal: resumed.journal },
    limits: { allowTools: 'all' },
  });
  assert.equal(result.status, 'answered');
  assert.equal(first.runs(), 2, 'the write tool did not run again');
  resumedModel.assertAllUsed();
  assert.deepEqual(
    result.steps.map((s) => s.observation?.text),
    ['appended a (run 1)', 'appended b (run 2)', undefined],
  );
});

test('approvals are journaled too', async () => {
  const { tool } = counterTool();
  const { journal, names } = memoryJournal();
  let asked = 0;
  await runAgent({
    model: scriptedModel([script[0]!, script[2]!]),
    question: 'q',
    tools: [tool],
    approve: () => {
      asked++;
      return { type: 'approve' };
    },
    durable: { journal },
  });
  assert.equal(asked, 1);
  assert.ok(names.includes('step-1-approval'));
});

test('read tools are journaled: a resumed run keeps the observation the model saw and the tool state (snapshot)', async () => {
  // Like the Wikipedia tools: open sets the current page, peek reads it. A new worker has fresh tools.
  let opens = 0;
  const makeTools = () => {
    let page: string | undefined;
    const snapshot = {
      save: () => ({ page }),
      restore: (saved: unknown) => {
        page = (saved as { page?: string }).page;
      },
    };
    const open = defineTool({
      name: 'open',
      description: 'Opens a page.',
      input: 'text',
      // The live page changes between reads: a resumed run must not read it again.
      run: (p) => {
        page = p;
        return `opened ${p} (version ${++opens})`;
      },
    });
    const peek = defineTool({
      name: 'peek',
      description: 'Reads the open page.',
      input: 'text',
      run: () => `on ${page ?? 'nothing'}`,
    });
    open.snapshot = snapshot;
    peek.snapshot = snapshot;
    return [open, peek];
  };
  const turns = ['Thought: t\nAction: open[Paris]', 'Thought: t\nAction: peek[]', 'Thought: t\nAnswer: done'];
  const recorded = new Map<string, unknown>();
  const prompts: string[] = [];
  const promptOf = (request: { messages: readonly { content: unknown }[] }) =>
    JSON.stringify(request.messages);
  await runAgent({
    model: scriptedModel([
      turns[0]!,
      (request) => {
        prompts.push(promptOf(request));
        throw new Error('worker killed');
      },
    ]),
    question: 'q',
    tools: makeTools(),
    durable: { journal: memoryJournal(recorded).journal },
  });
  recorded.delete('step-2-model');
  const { journal, names } = memoryJournal(recorded);
  const result = await runAgent({
    model: scriptedModel([
      (request) => {
        prompts.push(promptOf(request));
        return turns[1]!;
      },
      turns[2]!,
    ]),
    question: 'q',
    tools: makeTools(),
    durable: { journal },
  });
  assert.equal(opens, 1, 'the read tool ran once');
  assert.equal(prompts.length, 2);
  assert.equal(prompts[1], prompts[0], 'the resumed prompt is the one before the crash');
  assert.equal(result.steps[0]!.observation?.text, 'opened Paris (version 1)');
  assert.equal(result.steps[1]!.observation?.text, 'on Paris', 'the snapshot restored the open page');
  assert.deepEqual(names, ['step-1-model', 'step-1-tool', 'step-2-model', 'step-2-tool', 'step-3-model']);
  const record = recorded.get('step-1-tool') as { outcome: Record<string, unknown>; snapshot: unknown };
  assert.deepEqual(
    { ...record, outcome: { ...record.outcome, durationMs: 0 } },
    {
      outcome: { ok: true, observation: 'opened Paris (version 1)', durationMs: 0 },
      snapshot: { page: 'Paris' },
    },
  );
});

test('a journal records the observation the model saw, not the full output of a huge tool result', async () => {
  const huge = 'x'.repeat(5_000_000);
  const tool = defineTool({ name: 'dump', description: 'Dumps.', input: 'text', run: () => huge });
  const { journal, recorded } = memoryJournal();
  const result = await runAgent({
    model: scriptedModel(['Thought: t\nAction: dump[]', 'Thought: t\nAnswer: done']),
    question: 'q',
    tools: [tool],
    durable: { journal },
  });
  const record = recorded.get('step-1-tool') as { outcome: { observation: string; fullOutput?: string } };
  assert.ok(record.outcome.observation.length < 5000);
  assert.match(record.outcome.observation, /output truncated: 4996000 more characters/);
  assert.equal(record.outcome.fullOutput, undefined);
  assert.equal(result.steps[0]!.observation?.fullText, undefined);
});

test('every tool call gets a call ID of the run and step, the same when the journal retries it', async () => {
  const seen: (string | undefined)[] = [];
  const tool = defineTool({
    name: 'pay',
    description: 'Pays.',
    input: 'text',
    effects: 'external',
    run: (_input, { callId }) => {
      seen.push(callId);
      if (seen.length === 1) throw new Error('crashed after the effect');
      return 'paid';
    },
  });
  // A journal that runs an effect again when it fails, as Restate's ctx.run does.
  const retrying: Journal = async (_name, effect) => {
    const result = await effect();
    return (result as { outcome?: { ok: boolean } })?.outcome?.ok === false ? effect() : result;
  };
  const result = await runAgent({
    model: scriptedModel(['Thought: t\nAction: pay[5]', 'Thought: t\nAnswer: done']),
    question: 'q',
    tools: [tool],
    durable: { journal: retrying, runId: 'order-17' },
    limits: { allowTools: 'all' },
  });
  assert.equal(result.steps[0]!.observation?.text, 'paid');
  assert.deepEqual(seen, ['order-17:step-1', 'order-17:step-1']);

  // Without a run ID, each run gets a random one; calls of one run share it.
  const ids: (string | undefined)[] = [];
  const echo = defineTool({
    name: 'echo',
    description: 'Echoes.',
    input: 'text',
    run: (input, { callId }) => {
      ids.push(callId);
      return input;
    },
  });
  await runAgent({
    model: scriptedModel([
      'Thought: t\nAction: echo[a]',
      'Thought: t\nAction: echo[b]',
      'Thought: t\nAnswer: x',
    ]),
    question: 'q',
    tools: [echo],
  });
  assert.match(ids[0] ?? '', /^[0-9a-f-]{36}:step-1$/);
  assert.equal(ids[1], `${ids[0]?.slice(0, 36)}:step-2`);
});
