/**
 * A call cut on the client side (the server ignored the stop sequence and reading stopped) gets no usage
 * from the provider: its usage is estimated from the request's size and the text received, marked
 * `estimated`, and counted in the totals and the cost.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { estimateUsage } from '../../src/agent/budget.js';
import { runAgent, streamAgent } from '../../src/agent/loop.js';
import type { RunResult } from '../../src/agent/types.js';
import { footerLines } from '../../src/cli/render.js';
import { resolveModelSpec } from '../../src/models/spec.js';
import type { Model } from '../../src/models/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import { createTraceWriter, readTrace } from '../../src/trace/trace.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';

const dir = mkdtempSync(join(tmpdir(), 'taoloop-estimated-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const tail = '\nThought: It is five.\nAnswer: 5'.repeat(20);
const REPLIES = [`Thought: add\nAction: calculator[2 + 2]\nObservation: 5${tail}`, 'Thought: ok\nAnswer: 4'];

async function runOn(streaming: boolean, traceFile?: string): Promise<RunResult> {
  const server = await startFakeOpenAI({ ignoreStop: true, replies: REPLIES });
  try {
    const model = await resolveModelSpec('openai:gpt-4o-mini', {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: server.baseURL,
    });
    const options = { model, question: 'What is 2 + 2?', tools: [calculator], modelSettings: { streaming } };
    if (!traceFile) return await runAgent(options);
    const trace = createTraceWriter(traceFile, { question: options.question, modelId: model.id });
    let result: RunResult | undefined;
    for await (const event of streamAgent(options)) {
      trace.write(event);
      if (event.type === 'run-end') result = event.result;
    }
    return result!;
  } finally {
    await server.close();
  }
}

test('a streamed call cut client-side is counted with estimated usage, marked, and priced', async () => {
  const file = join(dir, 'cut.jsonl');
  const streamed = await runOn(true, file);
  assert.equal(streamed.status, 'answered');
  assert.equal(streamed.steps[0]?.finishReason, 'stop');
  const cut = streamed.steps[0]!.usage;
  assert.equal(cut.estimated, true, 'the cut call is marked estimated');
  assert.ok((cut.inputTokens ?? 0) > 50, `input estimated from the request: ${cut.inputTokens}`);
  assert.ok((cut.outputTokens ?? 0) > 0);
  assert.equal(streamed.steps[1]!.usage.estimated, undefined, 'the reported call is not');
  assert.equal(streamed.usage.estimated, true, 'so is the total');
  assert.equal(
    streamed.usage.inputTokens,
    (cut.inputTokens ?? 0) + (streamed.steps[1]!.usage.inputTokens ?? 0),
  );
  assert.notEqual(streamed.costUsd, undefined, 'gpt-4o-mini has a price: the cost is known');

  // Not a silent under-count: close to what the provider reports for the same run without streaming
  // (which also bills the text past the stop that the streamed run never read).
  const whole = await runOn(false);
  assert.equal(whole.usage.estimated, undefined);
  const ratio = (streamed.usage.inputTokens ?? 0) / (whole.usage.inputTokens ?? 1);
  assert.ok(ratio > 0.6 && ratio < 1.6, `input ${streamed.usage.inputTokens} vs ${whole.usage.inputTokens}`);

  // The trace keeps the mark, and the footer shows it.
  const ends = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
    .filter((event) => event.type === 'model-end');
  assert.equal(ends[0].usage.estimated, true);
  assert.equal(readTrace(file).result?.usage.estimated, true);
  const footer = footerLines(streamed).join('\n');
  assert.match(footer, /~\d+ in \/ ~\d+ out/);
  assert.match(footer, /~\$\d/);
  assert.doesNotMatch(footerLines(whole).join('\n'), /~/);
});

/** Streams `text` in one chunk, then hangs until its signal aborts. */
function hangingModel(id: string, text: string): Model {
  return {
    id,
    generate: () => Promise.reject(new Error('streamed only')),
    async *stream(request) {
      yield { type: 'text-delta', text };
      await new Promise((_, reject) => {
        const signal = request.signal!;
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    },
  };
}

test('a run aborted mid-stream counts that call with estimated usage (footer ~), not "tokens unknown"', async () => {
  const model = scriptedModel(['Thought: let me think about this for a good while before I answer.'], {
    id: 'gpt-4o-mini',
    usage: { inputTokens: 999, outputTokens: 99 },
    streamChunkChars: 10,
  });
  const controller = new AbortController();
  let deltas = 0;
  let result: RunResult | undefined;
  for await (const event of streamAgent({
    model,
    question: 'What is 2 + 2?',
    tools: [calculator],
    signal: controller.signal,
  })) {
    if (event.type === 'model-delta' && ++deltas === 3) controller.abort();
    if (event.type === 'run-end') result = event.result;
  }
  assert.equal(result?.status, 'aborted');
  assert.equal(result.steps.length, 0);
  // The provider's count never came (it is sent at the end): the prompt and the 30 characters received.
  const expected = estimateUsage(model.requests[0]!, 'x'.repeat(30));
  assert.deepEqual(result.usage, { ...expected, cachedInputTokens: undefined });
  assert.ok((expected.inputTokens ?? 0) > 50, `input estimated from the request: ${expected.inputTokens}`);
  assert.equal(expected.outputTokens, 8);
  assert.deepEqual(result.usageByModel, { 'gpt-4o-mini': result.usage });
  assert.notEqual(result.costUsd, undefined, 'priced like any call');
  const footer = footerLines(result).join('\n');
  assert.match(footer, /~\d+ in \/ ~8 out/);
  assert.doesNotMatch(footer, /tokens unknown/);
});

test('a streamed call cut by modelTimeoutMs counts in the budget before the fallback answers', async () => {
  const runOnce = (maxTokens?: number) =>
    runAgent({
      model: hangingModel('slow', 'Thought: I will add'),
      question: 'What is 2 + 2?',
      tools: [calculator],
      modelSettings: {
        fallbackModels: [
          scriptedModel(['Thought: add.\nAction: calculator[2 + 2]', 'Thought: ok\nAnswer: 4'], {
            id: 'quick',
            usage: { inputTokens: 1, outputTokens: 1 },
          }),
        ],
      },
      limits: { modelTimeoutMs: 100, ...(maxTokens !== undefined && { maxTokens }) },
    });
  const free = await runOnce();
  assert.equal(free.status, 'answered');
  const slow = free.usageByModel?.slow;
  assert.equal(slow?.estimated, true, 'the timed-out call is counted, estimated');
  assert.ok((slow?.inputTokens ?? 0) > 50);
  // It timed out at both steps (each step tries it first), after 19 characters each time.
  assert.equal(slow?.outputTokens, 10);
  assert.deepEqual(free.usageByModel?.quick, {
    inputTokens: 2,
    outputTokens: 2,
    cachedInputTokens: undefined,
  });

  // Room for step 2's request and the quick model's calls, not for the timed-out call's tokens as well:
  // the budget counted them, so the run stops before step 2's call.
  const first = (slow?.inputTokens ?? 0) / 2; // about step 1's request
  const budgeted = await runOnce(Math.round(first * 1.5));
  assert.equal(budgeted.status, 'budget');
  assert.match(budgeted.error ?? '', /^token budget: \d+ of \d+ tokens used/);
  assert.equal(budgeted.steps.length, 1);
});

test('over HTTP (OpenAI provider, chunks 20 ms apart), an abort mid-stream is counted the same way', async () => {
  const server = await startFakeOpenAI({
    replies: ['Thought: I need to think about this question carefully.\nAnswer: 4'],
    chunkSize: 8,
    chunkDelayMs: 20,
  });
  try {
    const model = await resolveModelSpec('openai:gpt-4o-mini', {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: server.baseURL,
    });
    const controller = new AbortController();
    let received = '';
    let result: RunResult | undefined;
    for await (const event of streamAgent({
      model,
      question: 'What is 2 + 2?',
      tools: [calculator],
      signal: controller.signal,
    })) {
      if (event.type === 'model-delta') {
        received += event.text;
        if (received.length >= 16) controller.abort();
      }
      if (event.type === 'run-end') result = event.result;
    }
    assert.equal(result?.status, 'aborted');
    assert.equal(result.usage.estimated, true);
    assert.ok((result.usage.inputTokens ?? 0) > 50, `input ${result.usage.inputTokens}`);
    assert.equal(result.usage.outputTokens, Math.ceil(received.length / 4));
    assert.notEqual(result.costUsd, undefined);
    assert.match(footerLines(result).join('\n'), /aborted · 0 steps · ~\d+ in \/ ~\d+ out tokens · ~\$/);
  } finally {
    await server.close();
  }
});

test('a stream the server breaks off after text arrived is counted, estimated; one that fails before any text is not', async () => {
  const server = await startFakeOpenAI({
    replies: ['Thought: I need to think about this question carefully.\nAnswer: 4'],
    chunkSize: 8,
    cutStreamAfterEvents: 3,
  });
  try {
    const model = await resolveModelSpec(
      'openai:gpt-4o-mini',
      { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.baseURL },
      { maxRetries: 0 },
    );
    let received = '';
    let result: RunResult | undefined;
    for await (const event of streamAgent({ model, question: 'What is 2 + 2?', tools: [calculator] })) {
      if (event.type === 'model-delta') received += event.text;
      if (event.type === 'run-end') result = event.result;
    }
    assert.equal(result?.status, 'error');
    assert.ok(received.length > 0, 'text arrived before the cut');
    assert.equal(result.usage.estimated, true);
    assert.ok((result.usage.inputTokens ?? 0) > 50, `input ${result.usage.inputTokens}`);
    assert.equal(result.usage.outputTokens, Math.ceil(received.length / 4));
    assert.notEqual(result.costUsd, undefined);
    assert.match(footerLines(result).join('\n'), /error · 0 steps · ~\d+ in \/ ~\d+ out tokens · ~\$/);
  } finally {
    await server.close();
  }
  const failing = await startFakeOpenAI({ replies: ['Answer: 4'], failFirst: { status: 500, count: 1 } });
  try {
    const model = await resolveModelSpec(
      'openai:gpt-4o-mini',
      { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: failing.baseURL },
      { maxRetries: 0 },
    );
    const result = await runAgent({
      model,
      question: 'What is 2 + 2?',
      tools: [calculator],
      modelSettings: { streaming: true },
    });
    assert.equal(result.status, 'error');
    assert.equal(result.usage.inputTokens, undefined, 'an HTTP error spent nothing that can be told');
  } finally {
    await failing.close();
  }
});
