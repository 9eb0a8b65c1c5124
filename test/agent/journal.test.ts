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
    journal,
    allowTools: 'all',
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
    journal: partial.journal,
    allowTools: 'all',
  });
  recorded.delete('step-3-model');
  assert.equal(first.runs(), 2);

  const resumedModel = scriptedModel([script[2]!]);
  const resumed = memoryJournal(recorded);
  const result = await runAgent({
    model: resumedModel,
    question: 'q',
    tools: [first.tool],
    journal: resumed.journal,
    allowTools: 'all',
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
    journal,
    approve: () => {
      asked++;
      return { type: 'approve' };
    },
  });
  assert.equal(asked, 1);
  assert.ok(names.includes('step-1-approval'));
});

test('read tools run again on resume, so the state they keep is rebuilt; side effects are not repeated', async () => {
  // Like the Wikipedia tools: search sets the current page, lookup reads it. A new worker has fresh tools.
  const makeTools = () => {
    let page: string | undefined;
    return [
      defineTool({
        name: 'open',
        description: 'Opens a page.',
        input: 'text',
        run: (p) => {
          page = p;
          return `opened ${p}`;
        },
      }),
      defineTool({
        name: 'peek',
        description: 'Reads the open page.',
        input: 'text',
        run: () => `on ${page ?? 'nothing'}`,
      }),
    ];
  };
  const turns = ['Thought: t\nAction: open[Paris]', 'Thought: t\nAction: peek[]', 'Thought: t\nAnswer: done'];
  const recorded = new Map<string, unknown>();
  await runAgent({
    model: scriptedModel([turns[0]!, new Error('worker killed')]),
    question: 'q',
    tools: makeTools(),
    journal: memoryJournal(recorded).journal,
  });
  const { journal, names } = memoryJournal(recorded);
  const result = await runAgent({
    model: scriptedModel(turns.slice(1)),
    question: 'q',
    tools: makeTools(),
    journal,
  });
  assert.equal(result.steps[1]!.observation?.text, 'on Paris');
  assert.ok(!names.some((n) => n.endsWith('-tool')), 'read tools are not journaled');
});
