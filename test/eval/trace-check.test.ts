/**
 * A recorded run as a regression test (`checkTrace`, `checkTraceFile`): recorded with the library's trace
 * writer from a scripted model, then replayed against changed tools, prompts and parsers. Each change must
 * show as its own kind of difference, and `update` must make the next check pass.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { z } from 'zod';
import { streamAgent } from '../../src/agent/loop.js';
import type { AgentConfig } from '../../src/agent/options.js';
import { checkTrace, formatTraceCheck } from '../../src/eval/trace-check.js';
import { checkTraceFile, findTraceFiles } from '../../src/eval/trace-files.js';
import type { Model } from '../../src/models/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import type { Tool } from '../../src/tools/types.js';
import { createTraceWriter, readTrace } from '../../src/trace/trace.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('taoloop-trace-check-');

const weather = (answer: (city: string) => string, name = 'weather'): Tool => ({
  name,
  description: 'The weather in a city. Input: the city.',
  effects: 'read',
  run: async (input) => answer(input),
});

const clock: Tool = {
  name: 'clock',
  description: 'The time now.',
  effects: 'read',
  run: async () =>
    `It is ${new Date().toISOString()}, request id req_${Math.random().toString(36).slice(2)}.`,
};

/** Records one run of `turns` against `config` as a trace file and returns its path. */
async function record(name: string, turns: string[], config: Omit<AgentConfig, 'model'>, model?: Model) {
  const file = join(dir, `${name}.jsonl`);
  const chosen = model ?? scriptedModel(turns);
  const writer = createTraceWriter(file, { question: 'What should I wear in Paris?', modelId: chosen.id });
  for await (const event of streamAgent({
    ...config,
    model: chosen,
    question: 'What should I wear in Paris?',
  }))
    writer.write(event);
  return file;
}

const turns = [
  'Thought: I need the weather.\nAction: weather[Paris]',
  'Thought: It is cold.\nAnswer: A warm coat.',
];
const today = { tools: [weather(() => 'Paris: 3°C, rain.')], instructions: 'Dress people well.' };

test('a run replayed against the same agent passes, and says so', async () => {
  const file = await record('same', turns, today);
  const check = await checkTrace(readTrace(file), today);
  assert.equal(check.passed, true, formatTraceCheck(check, file));
  assert.deepEqual(check.differences, []);
  assert.equal(check.stale, false);
  assert.match(
    formatTraceCheck(check, 'same.jsonl'),
    /^ok {2}same\.jsonl {2}\(answered in 2 steps, as recorded\)$/,
  );
});

test("a tool that now answers otherwise: the observation's diff, and the later turns are stale", async () => {
  const file = await record('tool-output', turns, today);
  const check = await checkTrace(readTrace(file), {
    ...today,
    tools: [weather(() => 'Paris: 24°C, sun.')],
  });
  assert.equal(check.passed, false);
  assert.equal(check.stale, true);
  assert.deepEqual(
    check.differences.map((d) => [d.kind, d.step, d.recorded, d.now]),
    [['observation', 1, 'Paris: 3°C, rain.', 'Paris: 24°C, sun.']],
  );
  const text = formatTraceCheck(check, 'tool-output.jsonl');
  assert.match(text, /step 1: weather\[Paris\] now observes otherwise/);
  assert.match(text, /- Paris: 3°C, rain\.\n {4}\+ Paris: 24°C, sun\./);
});

test('a renamed tool: the tool list changed, and the recorded call now fails', async () => {
  const file = await record('tool-name', turns, today);
  const check = await checkTrace(readTrace(file), {
    ...today,
    tools: [weather(() => 'Paris: 3°C, rain.', 'forecast')],
  });
  assert.equal(check.stale, true);
  const tools = check.differences.find((d) => d.kind === 'tools');
  assert.match(tools?.summary ?? '', /removed weather; added forecast/);
  const observation = check.differences.find((d) => d.kind === 'observation');
  assert.equal(observation?.step, 1);
  assert.match(observation?.now ?? '', /forecast/, 'the model is told which tools exist');
});

test('a changed system prompt: a line diff of the prompt', async () => {
  const file = await record('prompt', turns, today);
  const check = await checkTrace(readTrace(file), { ...today, instructions: 'Dress people warmly.' });
  assert.equal(check.stale, true);
  assert.deepEqual(
    check.differences.map((d) => d.kind),
    ['system-prompt'],
  );
  const text = formatTraceCheck(check, 'prompt.jsonl');
  assert.match(text, / {4}- Dress people well\.\n {4}\+ Dress people warmly\./);
  assert.doesNotMatch(text, /- Give the Answer/, 'unchanged lines are not shown as changed');
});

test('a turn that today reads as a format error is reported as one', async () => {
  const file = await record('format', turns, today);
  // As if an older parser had read step 1's text as an action: the text today's parser gets has none.
  const trace = readTrace(file);
  const first = trace.steps[0];
  assert.ok(first);
  first.modelText = 'Thought: I need the weather, weather[Paris] maybe.';
  const check = await checkTrace(trace, today);
  const formatError = check.differences.find((d) => d.kind === 'format-error');
  assert.equal(formatError?.step, 1, check.differences.map((d) => d.kind).join(', '));
  assert.equal(formatError?.recorded, 'weather[Paris]');
  assert.match(formatError?.now ?? '', /^format error \(/);
  assert.match(formatError?.summary ?? '', /step 1: the same model turn is now a format error: /);
});

test('a run that wants a turn the recording does not have ends with error: a status difference', async () => {
  const file = await record('short', turns, today);
  const check = await checkTrace(readTrace(file), {
    ...today,
    hooks: { checkAnswer: () => 'Say which coat.' },
  });
  const status = check.differences.find((d) => d.kind === 'status');
  assert.equal(status?.recorded, 'answered');
  assert.equal(status?.now, 'error');
  assert.match(status?.summary ?? '', /only 2 model turns/);
});

test('a typed answer that changed is an output difference', async () => {
  const output = z.object({ item: z.string() });
  const file = await record(
    'output',
    ['Thought: easy.\nAction: weather[Paris]', 'Thought: done.\nAnswer: {"item": "coat"}'],
    { ...today, output },
  );
  const check = await checkTrace(readTrace(file), {
    ...today,
    output: output.transform((v) => ({ item: v.item.toUpperCase() })),
  });
  const changed = check.differences.find((d) => d.kind === 'output');
  assert.deepEqual([changed?.recorded, changed?.now], ['{"item":"coat"}', '{"item":"COAT"}']);
  assert.equal(check.passed, false);
});

test('masks hide volatile tool output from the comparison, for that tool only', async () => {
  const config = { tools: [clock] };
  const file = await record(
    'clock',
    ['Thought: time?\nAction: clock[now]', 'Thought: ok.\nAnswer: noon'],
    config,
  );
  const unmasked = await checkTrace(readTrace(file), config);
  assert.equal(unmasked.passed, false, 'the time and the id change between runs');
  const masked = await checkTrace(readTrace(file), {
    ...config,
    mask: { clock: [/\d{4}-\d\d-\d\dT[\d:.]+Z/, 'req_[a-z0-9]+'] },
  });
  assert.equal(masked.passed, true, formatTraceCheck(masked, file));
  const otherTool = await checkTrace(readTrace(file), { ...config, mask: { weather: ['.*'] } });
  assert.equal(otherTool.passed, false);
});

test('native tool calls replay every call of a step, in order', async () => {
  const native: Model = {
    id: 'native',
    supportsToolCalls: true,
    generate: async (request) =>
      request.messages.some((m) => m.role === 'tool')
        ? { text: 'Answer: both done', usage: {}, finishReason: 'stop' }
        : {
            text: '',
            toolCalls: [
              { id: 'a', name: 'weather', input: '{"input":"Paris"}' },
              { id: 'b', name: 'weather', input: '{"input":"Rome"}' },
            ],
            usage: {},
            finishReason: 'tool-calls',
          },
  };
  const config = { tools: [weather((city) => `${city}: mild`)], modelSettings: { mode: 'native' as const } };
  const file = await record('native', [], config, native);
  const check = await checkTrace(readTrace(file), config);
  assert.equal(check.passed, true, formatTraceCheck(check, file));
  assert.deepEqual(
    check.result.steps[0]?.otherCalls?.map((c) => c.input),
    ['Rome'],
  );
});

test('checkTraceFile with update rewrites a failing trace so that the next check passes; findTraceFiles finds it', async () => {
  const file = await record('update', turns, today);
  const changed = { ...today, tools: [weather(() => 'Paris: 24°C, sun.')] };
  const before = readFileSync(file, 'utf8');
  const first = await checkTraceFile(file, { ...changed, update: true });
  assert.deepEqual([first.passed, first.updated], [false, true]);
  assert.notEqual(readFileSync(file, 'utf8'), before);
  const second = await checkTraceFile(file, changed);
  assert.deepEqual([second.passed, second.updated], [true, false], formatTraceCheck(second, file));
  writeFileSync(join(dir, 'notes.jsonl'), '{"question":"not a trace"}\n');
  const found = await findTraceFiles([dir]);
  assert.ok(found.includes(file));
  assert.ok(!found.some((f) => f.endsWith('notes.jsonl')));
});

test('a tool with side effects is not run on the trace’s say-so: without approval today it is refused', async () => {
  const send: Tool = {
    name: 'send',
    description: 'Sends mail.',
    effects: 'external',
    run: async () => 'sent',
  };
  const file = await record(
    'approval',
    ['Thought: send it.\nAction: send[hi]', 'Thought: done.\nAnswer: sent'],
    { tools: [send], limits: { allowTools: ['send'] } },
  );
  const check = await checkTrace(readTrace(file), { tools: [send] });
  const observation = check.differences.find((d) => d.kind === 'observation');
  assert.equal(observation?.recorded, 'sent');
  assert.notEqual(observation?.now, 'sent');
});
