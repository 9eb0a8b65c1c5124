import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { streamAgent } from '../../src/agent/loop.js';
import type { AgentOptions } from '../../src/agent/options.js';
import type { RunResult } from '../../src/agent/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import { defineTool } from '../../src/tools/define.js';
import { createTraceWriter, readTrace, TraceFormatError } from '../../src/trace/trace.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('taoloop-trace-');

/** Runs the agent writing every event to `file`; returns the result as JSON would have it. */
async function record(file: string, options: AgentOptions): Promise<RunResult> {
  const writer = createTraceWriter(file, { question: options.question ?? '', modelId: options.model.id });
  const run = streamAgent(options);
  let next = await run.next();
  for (; !next.done; next = await run.next()) writer.write(next.value);
  return JSON.parse(JSON.stringify(next.value));
}

test('reading a trace back gives the same steps and result as the run', async () => {
  const file = join(dir, 'run.jsonl');
  const model = scriptedModel(['Thought: add.\nAction: calculator[2 + 2]', 'Thought: done.\nAnswer: 4']);
  const writer = createTraceWriter(file, {
    question: '2 + 2?',
    modelId: model.id,
    meta: { cli: { tools: ['calculator'] } },
  });
  const run = streamAgent({ model, question: '2 + 2?', tools: [calculator] });
  let next = await run.next();
  for (; !next.done; next = await run.next()) writer.write(next.value);
  const trace = readTrace(file);
  assert.equal(trace.header.format, 'taoloop-trace');
  assert.deepEqual(trace.header.meta, { cli: { tools: ['calculator'] } });
  // JSON keeps no `undefined` fields (unknown usage): compare with the result as JSON would have it.
  const asJson = JSON.parse(JSON.stringify(next.value));
  assert.deepEqual(trace.steps, asJson.steps);
  assert.deepEqual(trace.result, asJson);
  assert.equal(trace.error, undefined);
});

test('a crashed run ends with a run-error line, read back as `error`; a cut-off last line is ignored', () => {
  const file = join(dir, 'crash.jsonl');
  const writer = createTraceWriter(file, { question: 'q', modelId: 'm' });
  writer.write({ type: 'model-start', step: 1 });
  writer.writeError('disk on fire');
  appendFileSync(file, '{"type":"model-st');
  const trace = readTrace(file);
  assert.equal(trace.error, 'disk on fire');
  assert.equal(trace.result, undefined);
  assert.deepEqual(
    trace.events.map((e) => e.type),
    ['model-start', 'run-error'],
  );
});

test('a run that crashes mid-call keeps the text the model had streamed, then the run-error line', () => {
  const file = join(dir, 'crash-partial.jsonl');
  const writer = createTraceWriter(file, { question: 'q', modelId: 'm' });
  writer.write({ type: 'model-start', step: 1 });
  writer.write({ type: 'model-delta', step: 1, text: 'Thought: I need ', shown: 'Thought: I need ' });
  writer.write({ type: 'model-delta', step: 1, text: 'the price.', shown: 'the price.' });
  writer.writeError('killed by SIGTERM');
  const trace = readTrace(file);
  assert.deepEqual(
    trace.events.map((e) => e.type),
    ['model-start', 'model-delta', 'run-error'],
  );
  const partial = trace.events[1] as { text: string; step: number };
  assert.equal(partial.text, 'Thought: I need the price.');
  assert.equal(partial.step, 1);
  assert.equal(trace.error, 'killed by SIGTERM');
});

test('files that are not traces are refused with a clear error', () => {
  const file = join(dir, 'other.jsonl');
  writeFileSync(file, '{"hello": 1}\n');
  assert.throws(() => readTrace(file), TraceFormatError);
  writeFileSync(file, '{"type":"trace-start","format":"taoloop-trace","version":99}\n');
  assert.throws(() => readTrace(file), /Upgrade taoloop/);
  writeFileSync(file, '{"type":"trace-start","format":"taoloop-trace","version":1}\nnot json\n{}\n');
  assert.throws(() => readTrace(file), /:2 is not valid JSON/);
});

test('a trace stores each model text once: a 1 MB turn makes a trace of about 1 MB, read back whole', async () => {
  const big = 'lorem ipsum dolor sit amet '.repeat(40_000); // 1.08 MB
  const shapes = {
    thought: [`Thought: ${big}\nAction: calculator[2 + 2]`, 'Answer: 4'],
    'text after the action': [`Thought: add.\nAction: calculator[2 + 2]\n${big}`, 'Answer: 4'],
    'invented observation': [`Thought: add.\nAction: calculator[2 + 2]\nObservation: ${big}`, 'Answer: 4'],
    'unusable turn': [big, 'Answer: 4'],
    answer: [`Thought: done.\nAnswer: ${big}`],
    'thinking block': [`<think>${big}</think>\nThought: done.\nAnswer: 4`],
  };
  for (const [shape, turns] of Object.entries(shapes)) {
    const file = join(dir, `big-${shape.replaceAll(' ', '-')}.jsonl`);
    const result = await record(file, {
      model: scriptedModel(turns),
      question: '2 + 2?',
      tools: [calculator],
      modelSettings: { maxOutputTokens: 1_000_000 },
    });
    const bytes = statSync(file).size;
    // The text once, plus bounded notes that quote a little of it; the format before kept it 5 to 8 times.
    assert.ok(
      bytes > big.length && bytes < big.length * 1.1,
      `${shape}: ${bytes} bytes for a ${big.length}-byte turn`,
    );
    const trace = readTrace(file);
    assert.equal(trace.header.version, 2);
    assert.deepEqual(trace.result, result, shape);
    assert.deepEqual(trace.steps, result.steps, shape);
    const modelEnd = trace.events.find((e) => e.type === 'model-end');
    assert.equal(modelEnd?.type === 'model-end' && modelEnd.text, result.steps[0]?.modelText, shape);
    assert.deepEqual(modelEnd?.type === 'model-end' && modelEnd.turn, result.steps[0]?.turn, shape);
  }
});

test('traces of format 1 (every copy written out) are still read', () => {
  const file = join(dir, 'v1.jsonl');
  const step = {
    index: 1,
    modelText: 'Answer: 4',
    transcriptText: 'Answer: 4',
    turn: { type: 'answer', text: '4' },
    usage: {},
    finishReason: 'stop',
    modelDurationMs: 1,
  };
  const result = {
    status: 'answered',
    answer: '4',
    question: 'q',
    messages: [],
    modelId: 'm',
    steps: [step],
    usage: {},
    durationMs: 2,
  };
  writeFileSync(
    file,
    [
      {
        type: 'trace-start',
        format: 'taoloop-trace',
        version: 1,
        startedAt: '',
        question: 'q',
        modelId: 'm',
      },
      {
        type: 'model-end',
        step: 1,
        text: 'Answer: 4',
        turn: step.turn,
        usage: {},
        finishReason: 'stop',
        atMs: 1,
      },
      { type: 'step-end', step, atMs: 1 },
      { type: 'run-end', result, atMs: 2 },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n'),
  );
  const trace = readTrace(file);
  assert.deepEqual(trace.steps, [step]);
  assert.deepEqual(trace.result, result);
});

test('a reference to a model text the trace does not hold is refused', () => {
  const file = join(dir, 'dangling.jsonl');
  writeFileSync(
    file,
    [
      {
        type: 'trace-start',
        format: 'taoloop-trace',
        version: 2,
        startedAt: '',
        question: 'q',
        modelId: 'm',
      },
      { type: 'invented-observation', step: 3, droppedText: { modelText: 3, from: 0, to: 10 }, atMs: 1 },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n'),
  );
  assert.throws(() => readTrace(file), /event 1 cannot be read: it refers to the model text of step 3/);
});

test("a paused run's trace keeps the pause and its requests, not the state (the caller's resume token)", async () => {
  const write = defineTool({
    name: 'write',
    description: 'Writes.',
    input: 'text',
    effects: 'write',
    run: () => 'ok',
  });
  const file = join(dir, 'paused.jsonl');
  const result = await record(file, {
    model: scriptedModel(['Thought: I will write it.\nAction: write[x]']),
    question: 'Write x.',
    tools: [write],
    durable: { pauseForApproval: true },
  });
  assert.equal(result.status, 'paused');
  assert.ok(result.state, 'the run itself returns the state');
  assert.doesNotMatch(readFileSync(file, 'utf8'), /"journal"|taoloop-run-state/);
  const trace = readTrace(file);
  const { state: _state, ...withoutState } = result;
  assert.deepEqual(trace.result, withoutState);
  const pause = trace.events.find((e) => e.type === 'run-pause');
  assert.deepEqual(pause && { ...pause, atMs: 0 }, { type: 'run-pause', pending: result.pending, atMs: 0 });
});
