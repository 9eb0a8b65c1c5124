/**
 * Options grouped by who sets them (issue 26): the groups are flattened once, read as own properties, and
 * an option at the wrong place is a caller error that says where it belongs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentTool } from '../../src/agent/agent-tool.js';
import { AgentConfigError } from '../../src/agent/errors.js';
import { runAgent } from '../../src/agent/loop.js';
import { type AgentOptions, runSettings } from '../../src/agent/options.js';
import { resumeAgent } from '../../src/agent/resume.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';

const ANSWER = 'Thought: t\nAnswer: 4';

test('a flat option from before 0.1.0 is refused, naming its group', async () => {
  const flat = { model: scriptedModel([ANSWER]), tools: [], question: 'q', maxTokens: 5 };
  await assert.rejects(
    runAgent(flat as unknown as AgentOptions),
    (error: Error) =>
      error instanceof AgentConfigError && /`maxTokens`: it is `limits\.maxTokens`/.test(error.message),
  );
  const misplaced = { model: scriptedModel([ANSWER]), tools: [], question: 'q', limits: { mode: 'native' } };
  await assert.rejects(
    runAgent(misplaced as unknown as AgentOptions),
    /`limits\.mode`: it is `modelSettings\.mode`/,
  );
  const unknown = { model: scriptedModel([ANSWER]), tools: [], question: 'q', colour: 'red' };
  await assert.rejects(runAgent(unknown as unknown as AgentOptions), /Unknown option `colour`/);
  await assert.rejects(
    runAgent({
      model: scriptedModel([ANSWER]),
      tools: [],
      question: 'q',
      limits: 5,
    } as unknown as AgentOptions),
    /`limits` must be an object/,
  );
});

test('the old telemetry option and a misspelt field of a group say what to write', async () => {
  const base = { model: scriptedModel([ANSWER]), tools: [], question: 'q' };
  await assert.rejects(
    runAgent({ ...base, telemetry: {} } as unknown as AgentOptions),
    /hooks: \{ observers: \[openTelemetry\(\{ tracer \}\)\] \}/,
  );
  await assert.rejects(
    runAgent({ ...base, limits: { maxToken: 3 } } as unknown as AgentOptions),
    /`limits\.maxToken`: the fields of `limits` are maxTokens, maxCostUsd/,
  );
});

test('agentTool refuses an option that does not exist when it is made, not when it is called', () => {
  assert.throws(
    () =>
      agentTool({
        name: 'helper',
        description: 'Helps.',
        model: scriptedModel([]),
        tools: [],
        maxTokens: 5,
      } as never),
    (error: Error) => error instanceof AgentConfigError && /limits\.maxTokens/.test(error.message),
  );
});

test('groups are flattened from own properties only: an inherited group or field counts as absent', () => {
  const limits = Object.create({ maxTokens: 1 }) as Record<string, unknown>;
  limits.maxCostUsd = 2;
  const options = Object.create({ durable: { pauseForApproval: true } }) as Record<string, unknown>;
  Object.assign(options, { model: scriptedModel([]), tools: [], question: 'q', limits });
  const settings = runSettings(options as unknown as AgentOptions);
  assert.equal(settings.maxCostUsd, 2);
  assert.equal(Object.hasOwn(settings, 'maxTokens'), false);
  assert.equal(Object.hasOwn(settings, 'pauseForApproval'), false);
});

test('an option left undefined is no option', async () => {
  const result = await runAgent({
    model: scriptedModel([ANSWER]),
    tools: [calculator],
    question: 'q',
    limits: { maxTokens: undefined } as never,
  });
  assert.equal(result.answer, '4');
});

test('question and messages are exclusive, at the type level and at run time', async () => {
  const model = scriptedModel([]);
  // @ts-expect-error: both given
  const both: AgentOptions = { model, tools: [], question: 'q', messages: [{ role: 'user', content: 'q' }] };
  await assert.rejects(runAgent(both), AgentConfigError);
  // @ts-expect-error: neither given
  const neither: AgentOptions = { model, tools: [] };
  await assert.rejects(runAgent(neither), AgentConfigError);
});

test('a misspelt resume decision does not compile', () => {
  const options = { model: scriptedModel([]), tools: [], state: {} as never };
  // @ts-expect-error: 'aprove' is not a decision type
  const check = () => resumeAgent({ ...options, decisions: { id: { type: 'aprove' } } });
  assert.equal(typeof check, 'function');
});

test('a permission or a group polluted onto Object.prototype grants nothing', async () => {
  const polluted = ['maxSteps', 'allowTools', 'pauseForApproval', 'limits', 'durable'] as const;
  const proto = Object.prototype as Record<string, unknown>;
  try {
    proto.maxSteps = 1000;
    proto.allowTools = 'all';
    proto.pauseForApproval = true;
    proto.limits = { allowTools: 'all' };
    proto.durable = { pauseForApproval: true };
    const settings = runSettings({ model: scriptedModel([]), tools: [], question: 'q' });
    for (const name of ['allowTools', 'pauseForApproval'] as const)
      assert.equal(Object.hasOwn(settings, name), false);
    // A write tool with no approver and nothing allowed is refused, whatever the prototype says.
    let ran = 0;
    const write = {
      name: 'write',
      description: 'Writes.',
      effects: 'write' as const,
      run: () => String(++ran),
    };
    const result = await runAgent({
      model: scriptedModel(['Thought: w\nAction: write[x]', ANSWER]),
      tools: [write],
      question: 'q',
    });
    assert.equal(ran, 0);
    assert.equal(result.status, 'answered');
    assert.match(result.steps[0]?.observation?.text ?? '', /rejected/);
  } finally {
    for (const name of polluted) delete proto[name];
  }
});
