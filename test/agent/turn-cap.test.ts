import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runAgent, streamAgent } from '../../src/agent/loop.js';
import { capResponse, DEFAULT_MAX_TURN_CHARS, maxTurnChars } from '../../src/agent/turn-cap.js';
import type { AgentEvent } from '../../src/agent/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';

// A server that ignores max_tokens: a 5 MB answer.
const HUGE = `Thought: t\nAnswer: ${'y'.repeat(5_000_000)}`;

test('the cap on a turn follows maxOutputTokens (16 characters a token, at least 8,192), else 1,000,000', () => {
  assert.equal(maxTurnChars(2048), 32_768);
  assert.equal(maxTurnChars(10), 8192);
  assert.equal(maxTurnChars(undefined), DEFAULT_MAX_TURN_CHARS);
  const response = { text: 'abcdef', usage: {}, finishReason: 'stop' as const };
  assert.equal(capResponse(response, 6), response);
  assert.deepEqual(capResponse(response, 4), {
    text: 'abcd',
    usage: {},
    finishReason: 'length',
    rawFinishReason: 'client-cap',
  });
  const call = { id: 'c1', name: 'search', input: `{"q":"${'z'.repeat(100)}"}` };
  assert.equal(capResponse({ ...response, toolCalls: [call] }, 20).toolCalls?.[0]?.input.length, 20);
});

test('a whole response over the cap is cut on the client side', async () => {
  const result = await runAgent({
    model: scriptedModel([HUGE, 'Thought: t\nAnswer: short']),
    question: 'q',
    tools: [],
    modelSettings: { maxOutputTokens: 1000 },
  });
  assert.equal(result.status, 'answered');
  assert.equal(result.steps[0]?.modelText.length, 16_000);
  assert.equal(result.steps[0]?.finishReason, 'length');
  // A turn cut at its length is not taken as an answer: the model is told and asked again.
  assert.equal(result.steps[0]?.observation?.source, 'format-error');
  assert.equal(result.answer, 'short');
});

test('a streamed turn stops being read at the cap, and the request is cancelled', async () => {
  let aborted = false;
  const model = scriptedModel([HUGE, 'Thought: t\nAnswer: short'], { streamChunkChars: 1000 });
  const stream = model.stream;
  assert.ok(stream);
  model.stream = (request) => {
    request.signal?.addEventListener('abort', () => {
      aborted = true;
    });
    return stream(request);
  };
  const deltas: string[] = [];
  const run = streamAgent({
    model,
    question: 'q',
    tools: [],
    modelSettings: { maxOutputTokens: 1000, streaming: true },
  });
  let event: IteratorResult<AgentEvent> = await run.next();
  for (; !event.done; event = await run.next()) {
    if (event.value.type === 'model-delta') deltas.push(event.value.text);
  }
  const result = event.value;
  assert.equal(result.status, 'answered');
  assert.equal(deltas.join('').length, 16_000 + 'Thought: t\nAnswer: short'.length);
  assert.equal(result.steps[0]?.modelText.length, 16_000);
  assert.equal(result.steps[0]?.finishReason, 'length');
  assert.ok(aborted, 'the request was cancelled');
});
