import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { streamAgent } from '../../src/agent/loop.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import { createTraceWriter, readTrace, TraceFormatError } from '../../src/trace/trace.js';

const dir = mkdtempSync(join(tmpdir(), 'taoloop-trace-'));

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

test('files that are not traces are refused with a clear error', () => {
  const file = join(dir, 'other.jsonl');
  writeFileSync(file, '{"hello": 1}\n');
  assert.throws(() => readTrace(file), TraceFormatError);
  writeFileSync(file, '{"type":"trace-start","format":"taoloop-trace","version":99}\n');
  assert.throws(() => readTrace(file), /Upgrade taoloop/);
  writeFileSync(file, '{"type":"trace-start","format":"taoloop-trace","version":1}\nnot json\n{}\n');
  assert.throws(() => readTrace(file), /:2 is not valid JSON/);
});
