import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tracer } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { runAgent, streamAgent } from '../../src/agent/loop.js';
import { openTelemetry } from '../../src/telemetry/otel.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';

const script = [
  'Thought: add\nAction: calculator[1 + 1]',
  'Thought: multiply\nAction: calculator[2 * 3]',
  'Thought: done\nAnswer: 6',
];

test('a 3-step run gives a run span with model and tool spans as its children', async () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const model = scriptedModel(script, {
    id: 'openai:gpt-4o-mini',
    usage: { inputTokens: 100, outputTokens: 10 },
  });
  const result = await runAgent({
    model,
    question: 'q',
    tools: [calculator],
    hooks: { observers: [openTelemetry({ tracer: provider.getTracer('test') })] },
  });
  assert.equal(result.status, 'answered');
  const spans = exporter.getFinishedSpans();
  assert.deepEqual(spans.map((s) => s.name).sort(), [
    'chat gpt-4o-mini',
    'chat gpt-4o-mini',
    'chat gpt-4o-mini',
    'execute_tool calculator',
    'execute_tool calculator',
    'invoke_agent taoloop',
  ]);
  const run = spans.find((s) => s.name === 'invoke_agent taoloop')!;
  const runId = run.spanContext().spanId;
  for (const span of spans.filter((s) => s !== run)) {
    assert.equal(span.parentSpanContext?.spanId, runId, `${span.name} is a child of the run`);
    assert.equal(span.spanContext().traceId, run.spanContext().traceId);
  }
  const chat = spans.find((s) => s.name.startsWith('chat'))!;
  assert.equal(chat.attributes['gen_ai.operation.name'], 'chat');
  assert.equal(chat.attributes['gen_ai.request.model'], 'gpt-4o-mini');
  assert.equal(chat.attributes['gen_ai.provider.name'], 'openai');
  assert.equal(chat.attributes['gen_ai.usage.input_tokens'], 100);
  assert.equal(chat.attributes['gen_ai.usage.output_tokens'], 10);
  const tool = spans.find((s) => s.name.startsWith('execute_tool'))!;
  assert.equal(tool.attributes['gen_ai.operation.name'], 'execute_tool');
  assert.equal(tool.attributes['gen_ai.tool.name'], 'calculator');
  assert.equal(run.attributes['gen_ai.operation.name'], 'invoke_agent');
  assert.equal(run.attributes['taoloop.status'], 'answered');
  assert.equal(run.attributes['gen_ai.usage.input_tokens'], 300);
});

test('a tracer that throws never breaks a run', async () => {
  const broken = {
    startSpan() {
      throw new Error('collector down');
    },
    startActiveSpan() {
      throw new Error('collector down');
    },
  } as unknown as Tracer;
  const result = await runAgent({
    model: scriptedModel(script),
    question: 'q',
    tools: [calculator],
    hooks: { observers: [openTelemetry({ tracer: broken })] },
  });
  assert.equal(result.status, 'answered');
  assert.equal(result.answer, '6');
});

test('a consumer that stops early closes the run (its stream cancelled) and ends the open spans', async () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const model = scriptedModel(script, { id: 'openai:gpt-4o-mini', streamChunkChars: 4 });
  let streamClosed = false;
  const stream = model.stream?.bind(model);
  if (!stream) throw new Error('scriptedModel did not offer stream()');
  model.stream = async function* (request) {
    try {
      yield* stream(request);
    } finally {
      streamClosed = true;
    }
  };
  for await (const event of streamAgent({
    model,
    question: 'q',
    tools: [calculator],
    hooks: { observers: [openTelemetry({ tracer: provider.getTracer('test') })] },
  })) {
    if (event.type === 'model-delta') break;
  }
  assert.equal(streamClosed, true, 'the model stream was closed');
  const spans = exporter.getFinishedSpans();
  assert.deepEqual(spans.map((s) => s.name).sort(), ['chat gpt-4o-mini', 'invoke_agent taoloop']);
  for (const span of spans) assert.equal(span.status.code, 2, `${span.name} is marked as an error`);
});
