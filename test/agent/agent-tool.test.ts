import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { agentTool } from '../../src/agent/agent-tool.js';
import { runAgent, streamAgent } from '../../src/agent/loop.js';
import { resumeAgent } from '../../src/agent/resume.js';
import type { ApprovalRequest, RunState } from '../../src/agent/types.js';
import { createRenderer } from '../../src/cli/render.js';
import type { Model, ModelResponse } from '../../src/models/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import { defineTool } from '../../src/tools/define.js';
import { createTraceWriter, readTrace } from '../../src/trace/trace.js';
import { collectRun } from '../helpers/agent-run.js';

/** A tool with external effects that counts its runs. */
function mailTool() {
  const sent: string[] = [];
  const tool = defineTool({
    name: 'send_mail',
    description: 'Sends a mail.',
    input: 'text',
    effects: 'external',
    run: (text) => {
      sent.push(text);
      return `sent: ${text}`;
    },
  });
  return { tool, sent };
}

const ASK = 'Thought: ask the helper.\nAction: helper[what is 2 + 2?]';
const NESTED_ACT = 'Thought: add.\nAction: calculator[2 + 2]';
const NESTED_ANSWER = 'Thought: done.\nAnswer: 4';
const PARENT_ANSWER = 'Thought: the helper says 4.\nAnswer: 4';

test('a nested agent answers as a tool; its events reach the parent stream tagged with their path', async () => {
  const inner = scriptedModel([NESTED_ACT, NESTED_ANSWER], { id: 'inner-model' });
  const helper = agentTool({
    name: 'helper',
    description: 'Does arithmetic.',
    model: inner,
    tools: [calculator],
  });
  assert.equal(helper.effects, 'read', 'the union of read tools is read');
  const outer = scriptedModel([ASK, PARENT_ANSWER]);
  const { events, result } = await collectRun(
    streamAgent({ model: outer, question: '2 + 2?', tools: [helper] }),
  );
  assert.equal(result.status, 'answered');
  inner.assertAllUsed();
  assert.equal(result.steps[0]!.observation?.text, '4');
  const nested = events.filter((e) => e.type === 'agent-event');
  assert.ok(nested.every((e) => e.type === 'agent-event' && e.step === 1 && e.path.join() === 'helper'));
  assert.deepEqual(
    nested.map((e) => e.type === 'agent-event' && e.event.type),
    [
      'run-start',
      'model-start',
      'model-end',
      'tool-start',
      'tool-end',
      'step-end',
      'model-start',
      'model-end',
      'step-end',
      'run-end',
    ],
  );
  const start = nested[0]!;
  assert.equal(
    start.type === 'agent-event' && start.event.type === 'run-start' && start.event.question,
    'what is 2 + 2?',
  );
  // They come between the parent's tool-start and tool-end of that call.
  const types = events.map((e) => e.type);
  assert.ok(types.indexOf('tool-start') < types.indexOf('agent-event'));
  assert.ok(types.lastIndexOf('agent-event') < types.indexOf('tool-end'));
});

test('agents nest: the path names every agent tool, outermost first', async () => {
  const innermost = agentTool({
    name: 'adder',
    description: 'Adds.',
    model: scriptedModel([NESTED_ACT, NESTED_ANSWER]),
    tools: [calculator],
  });
  const middle = agentTool({
    name: 'helper',
    description: 'Delegates.',
    model: scriptedModel(['Thought: delegate.\nAction: adder[2 + 2]', NESTED_ANSWER]),
    tools: [innermost],
  });
  const { events, result } = await collectRun(
    streamAgent({ model: scriptedModel([ASK, PARENT_ANSWER]), question: '2 + 2?', tools: [middle] }),
  );
  assert.equal(result.status, 'answered');
  const paths = new Set(events.flatMap((e) => (e.type === 'agent-event' ? [e.path.join('/')] : [])));
  assert.deepEqual([...paths], ['helper', 'helper/adder']);
});

test('a nested tool needing approval asks the parent approve; the agent tool has the union of effects', async () => {
  const { tool, sent } = mailTool();
  const mailer = agentTool({
    name: 'helper',
    description: 'Sends mail.',
    model: scriptedModel(['Thought: send.\nAction: send_mail[hello]', 'Thought: sent.\nAnswer: sent']),
    tools: [calculator, tool],
  });
  assert.equal(mailer.effects, 'external');
  const asked: ApprovalRequest[] = [];
  const result = await runAgent({
    model: scriptedModel(['Thought: mail.\nAction: helper[send hello]', 'Thought: ok.\nAnswer: sent']),
    question: 'Send hello.',
    tools: [mailer],
    approve: (request) => {
      asked.push(request);
      return { type: 'approve' };
    },
  });
  assert.equal(result.status, 'answered');
  assert.deepEqual(sent, ['hello']);
  assert.equal(asked.length, 1, 'only the nested tool asks, not the agent tool itself');
  assert.equal(asked[0]!.tool, 'send_mail');
  assert.match(asked[0]!.id, /\/step-1\/call-1\/helper\/step-1\/call-1$/);
});

test('without an approver the nested side effect is refused (fail closed)', async () => {
  const { tool, sent } = mailTool();
  const mailer = agentTool({
    name: 'helper',
    description: 'Sends mail.',
    model: scriptedModel([
      'Thought: send.\nAction: send_mail[hello]',
      'Thought: refused.\nAnswer: could not send',
    ]),
    tools: [tool],
  });
  const result = await runAgent({
    model: scriptedModel(['Thought: mail.\nAction: helper[send hello]', 'Thought: ok.\nAnswer: not sent']),
    question: 'Send hello.',
    tools: [mailer],
  });
  assert.equal(result.status, 'answered');
  assert.deepEqual(sent, []);
});

test('a nested approval pauses the parent; resume goes back into the nested run, repeating no call', async () => {
  const { tool, sent } = mailTool();
  const inner = scriptedModel(['Thought: send.\nAction: send_mail[hello]', 'Thought: sent.\nAnswer: sent']);
  const outer = scriptedModel(['Thought: mail.\nAction: helper[send hello]', 'Thought: ok.\nAnswer: done']);
  const options = {
    model: outer,
    question: 'Send hello.',
    tools: [agentTool({ name: 'helper', description: 'Sends mail.', model: inner, tools: [tool] })],
    durable: { pauseForApproval: true },
  };
  const paused = await runAgent(options);
  assert.equal(paused.status, 'paused');
  assert.deepEqual(sent, []);
  assert.equal(paused.pending?.length, 1);
  const [pending] = paused.pending!;
  assert.equal(pending!.tool, 'send_mail');
  assert.equal(pending!.input, 'hello');
  assert.equal(inner.requests.length, 1);
  assert.equal(outer.requests.length, 1);

  const state = JSON.parse(JSON.stringify(paused.state)) as RunState;
  const resumed = await resumeAgent({ ...options, state, decisions: { [pending!.id]: { type: 'approve' } } });
  assert.equal(resumed.status, 'answered');
  assert.equal(resumed.answer, 'done');
  assert.deepEqual(sent, ['hello'], 'the side effect ran exactly once');
  // Each scripted turn was used exactly once over both runs: no model call was repeated.
  inner.assertAllUsed();
  outer.assertAllUsed();
  assert.equal(resumed.steps[0]!.observation?.text, 'sent');
});

test('budgets are shared: nested calls count in the parent usage and cost and stop at what the parent has left', async () => {
  const usage = { inputTokens: 100, outputTokens: 10 };
  const prices = { scripted: { inputUsdPerMTok: 1, outputUsdPerMTok: 1 } };
  const inner = scriptedModel([NESTED_ACT, NESTED_ANSWER], { usage });
  const helper = agentTool({
    name: 'helper',
    description: 'Adds.',
    model: inner,
    tools: [calculator],
    limits: { prices },
  });
  const result = await runAgent({
    model: scriptedModel([ASK, PARENT_ANSWER], { usage }),
    question: '2 + 2?',
    tools: [helper],
    limits: { prices },
  });
  assert.equal(result.usage.inputTokens, 400, 'two parent calls and two nested calls');
  assert.equal(result.usage.outputTokens, 40);
  assert.equal(result.costUsd, 440 / 1e6);

  // The parent's token budget (2,100) lets the parent's first call (1,000 tokens) and one nested call
  // (1,000) through; the nested run's second call (about 2,000 + its prompt) would go over it.
  const big = { inputTokens: 1000, outputTokens: 0 };
  const tight = scriptedModel([NESTED_ACT, NESTED_ANSWER], { usage: big });
  const limited = await runAgent({
    model: scriptedModel([ASK, PARENT_ANSWER], { usage: big }),
    question: '2 + 2?',
    tools: [agentTool({ name: 'helper', description: 'Adds.', model: tight, tools: [calculator] })],
    limits: { maxTokens: 2100 },
  });
  assert.equal(tight.requests.length, 1);
  assert.match(
    limited.steps[0]!.observation!.text,
    /the agent helper stopped without an answer \(budget: token budget/,
  );
  assert.equal(limited.status, 'budget', 'the parent stops at its budget too');
});

test("the parent's abort signal stops the nested run", async () => {
  const controller = new AbortController();
  const inner = scriptedModel([
    () => {
      controller.abort();
      return NESTED_ACT;
    },
  ]);
  const result = await runAgent({
    model: scriptedModel([ASK]),
    question: '2 + 2?',
    tools: [agentTool({ name: 'helper', description: 'Adds.', model: inner, tools: [calculator] })],
    signal: controller.signal,
  });
  assert.equal(result.status, 'aborted');
  assert.equal(inner.requests.length, 1);
});

test('the trace keeps the nested trajectory and the trace renderer shows it indented under the call', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'taoloop-agent-tool-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'run.jsonl');
  const writer = createTraceWriter(file, { question: '2 + 2?', modelId: 'scripted' });
  const helper = agentTool({
    name: 'helper',
    description: 'Adds.',
    model: scriptedModel([NESTED_ACT, NESTED_ANSWER], { streamChunkChars: 3 }),
    tools: [calculator],
  });
  const run = streamAgent({
    model: scriptedModel([ASK, PARENT_ANSWER]),
    question: '2 + 2?',
    tools: [helper],
  });
  for await (const event of run) writer.write(event);
  const trace = readTrace(file);
  assert.equal(trace.steps.length, 2, "the parent's own steps");
  const nestedSteps = trace.events.flatMap((e) =>
    e.type === 'agent-event' && e.event.type === 'step-end' ? [e.event.step] : [],
  );
  assert.deepEqual(
    nestedSteps.map((s) => s.observation?.text),
    ['4', undefined],
  );
  assert.ok(
    !trace.events.some((e) => e.type === 'agent-event' && e.event.type === 'model-delta'),
    'nested deltas are not kept',
  );
  let printed = '';
  const write = (text: string) => {
    printed += text;
    return true;
  };
  const out = { write } as unknown as NodeJS.WritableStream;
  const render = createRenderer({ json: false, out, showQuestion: true });
  for (const event of trace.events)
    if (event.type !== 'run-error' && event.type !== 'model-request') render(event);
  const plain = printed.replace(/\x1b\[[0-9;]*m/g, '');
  const lines = plain.split('\n');
  const call = lines.findIndex((l) => l.startsWith('Action: helper['));
  assert.ok(call >= 0, plain);
  assert.match(lines[call + 1]!, /^ {2}\[helper\] Question: what is 2 \+ 2\?$/);
  assert.ok(
    lines.some((l) => /^ {2}\[helper\] Action: calculator\[2 \+ 2\]$/.test(l)),
    plain,
  );
  assert.ok(
    lines.some((l) => /^ {2}\[helper\] Answer: 4$/.test(l)),
    plain,
  );
});

test('native mode: two calls of an agent tool in one step each run the nested agent, events tagged per call', async () => {
  const inner = scriptedModel([NESTED_ANSWER, 'Thought: done.\nAnswer: 9']);
  const helper = agentTool({ name: 'helper', description: 'Adds.', model: inner, tools: [calculator] });
  let calls = 0;
  const model: Model = {
    id: 'native',
    supportsToolCalls: true,
    async generate(): Promise<ModelResponse> {
      calls += 1;
      if (calls > 1) return { text: 'Answer: 4 and 9', usage: {}, finishReason: 'stop' };
      return {
        text: '',
        toolCalls: [
          { id: 'a', name: 'helper', input: '{"input":"2 + 2"}' },
          { id: 'b', name: 'helper', input: '{"input":"4 + 5"}' },
        ],
        usage: {},
        finishReason: 'tool-calls',
      };
    },
  };
  const { events, result } = await collectRun(
    streamAgent({ model, question: 'q', tools: [helper], modelSettings: { mode: 'native' } }),
  );
  assert.equal(result.status, 'answered');
  inner.assertAllUsed();
  assert.equal(result.steps[0]!.observation?.text, '4');
  assert.equal(result.steps[0]!.otherCalls?.[0]?.observation.text, '9');
  const questions = events.flatMap((e) =>
    e.type === 'agent-event' && e.event.type === 'run-start' ? [e.event.question] : [],
  );
  assert.deepEqual(questions, ['2 + 2', '4 + 5']);
});
