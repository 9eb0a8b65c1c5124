/**
 * The agent loop against a local server speaking the OpenAI Chat Completions API, through the
 * `openai:` spec (OPENAI_BASE_URL): JSON and SSE, text and tool calls, usage with cached tokens, and
 * every failure the issue lists (429, 500 until the retries give up, a cut stream, a server that
 * ignores stop, a slow server, an aborted run).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runAgent, streamAgent } from '../../src/agent/loop.js';
import type { AgentOptions } from '../../src/agent/options.js';
import type { AgentEvent, RunResult } from '../../src/agent/types.js';
import { type ResolveModelOptions, resolveModelSpec } from '../../src/models/spec.js';
import { calculator } from '../../src/tools/calculator.js';
import { createTraceWriter, readTrace } from '../../src/trace/trace.js';
import { type FakeOpenAI, type FakeOpenAIOptions, startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

const ACTION = 'Thought: I need the yearly total.\nAction: calculator[20 * 12 * 7]\nObservation: 9999';
const ANSWER = 'Thought: The calculator gave the total.\nAnswer: $1,680 per year';
const QUESTION = 'How much is $20 a month for 7 developers over a year?';

async function withServer(options: FakeOpenAIOptions, body: (server: FakeOpenAI) => Promise<void>) {
  const server = await startFakeOpenAI(options);
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

async function modelAt(server: FakeOpenAI, options: ResolveModelOptions = {}) {
  return resolveModelSpec(
    'openai:gpt-4o-mini',
    { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.baseURL },
    options,
  );
}

/** Runs the agent and collects its events. */
async function run(options: AgentOptions): Promise<{ result: RunResult; events: AgentEvent[] }> {
  const events: AgentEvent[] = [];
  const agent = streamAgent(options);
  let next = await agent.next();
  for (; !next.done; next = await agent.next()) events.push(next.value);
  return { result: next.value, events };
}

for (const streaming of [false, true]) {
  const api = streaming ? 'SSE' : 'JSON';
  describe(`OpenAI chat completions (${api})`, () => {
    it('runs the text loop with stop sequences, temperature 0 and usage with cached tokens', () =>
      withServer(
        { replies: [ACTION, ANSWER], usage: { promptTokens: 1000, completionTokens: 20, cachedTokens: 640 } },
        async (server) => {
          const { result, events } = await run({
            model: await modelAt(server),
            question: QUESTION,
            tools: [calculator],
            modelSettings: { streaming },
          });
          assert.equal(result.status, 'answered');
          assert.equal(result.answer, '$1,680 per year');
          assert.equal(result.steps[0]?.observation?.text, '1680');
          assert.deepEqual(result.steps[0]?.usage, {
            inputTokens: 1000,
            outputTokens: 20,
            cachedInputTokens: 640,
          });
          assert.deepEqual(result.usage, { inputTokens: 2000, outputTokens: 40, cachedInputTokens: 1280 });
          // gpt-4o-mini: 360 uncached at $0.15/M + 640 cached at $0.075/M + 20 out at $0.6/M, twice.
          assert.equal(result.costUsd, (2 * (360 * 0.15 + 640 * 0.075 + 20 * 0.6)) / 1e6);
          assert.equal(
            events.some((e) => e.type === 'model-delta'),
            streaming,
          );
          const [first, second] = server.requests;
          assert.deepEqual(first?.stop, ['\nObservation:']);
          assert.equal(first?.temperature, 0);
          assert.equal(first?.model, 'gpt-4o-mini');
          assert.equal(first?.stream === true, streaming);
          assert.equal(first?.messages[0]?.role, 'system');
          assert.match(second?.messages.at(-1)?.content ?? '', /Observation: 1680/);
        },
      ));

    it('runs native tool calls and sends the tool result back', () =>
      withServer(
        {
          replies: [
            {
              text: 'I will compute it.',
              toolCalls: [{ name: 'calculator', arguments: '{"input":"20*12*7"}' }],
            },
            'Answer: $1,680 per year',
          ],
          usage: { promptTokens: 80, completionTokens: 12, cachedTokens: 0 },
        },
        async (server) => {
          const result = await runAgent({
            model: await modelAt(server),
            question: QUESTION,
            tools: [calculator],
            modelSettings: { mode: 'native', streaming },
          });
          assert.equal(result.status, 'answered');
          assert.equal(result.answer, '$1,680 per year');
          const step = result.steps[0];
          assert.equal(step?.turn.type === 'action' && step.turn.thought, 'I will compute it.');
          assert.deepEqual(step?.toolCall, {
            id: 'call_1_0',
            name: 'calculator',
            input: '{"input":"20*12*7"}',
          });
          assert.deepEqual(result.usage, { inputTokens: 160, outputTokens: 24, cachedInputTokens: 0 });
          const tools = server.requests[0]?.tools as Array<{ function: { name: string } }>;
          assert.deepEqual(
            tools.map((t) => t.function.name),
            ['calculator'],
          );
          assert.equal(server.requests[0]?.stop, undefined);
          const toolMessage = server.requests[1]?.messages.at(-1) as unknown as Record<string, unknown>;
          assert.deepEqual(toolMessage, { role: 'tool', tool_call_id: 'call_1_0', content: '1680' });
        },
      ));

    it('cuts an invented observation client-side when the server ignores stop', () =>
      withServer({ replies: [ACTION, ANSWER], ignoreStop: true }, async (server) => {
        const { result, events } = await run({
          model: await modelAt(server),
          question: QUESTION,
          tools: [calculator],
          modelSettings: { streaming },
        });
        assert.equal(result.status, 'answered');
        assert.equal(result.steps[0]?.observation?.text, '1680', 'the real observation, not 9999');
        assert.ok(!result.steps[0]?.transcriptText.includes('9999'));
        assert.ok(events.some((e) => e.type === 'invented-observation'));
        assert.match(server.requests[1]?.messages.at(-1)?.content ?? '', /Observation: 1680/);
        assert.doesNotMatch(server.requests[1]?.messages.at(-1)?.content ?? '', /9999/);
      }));

    it('ends with error, not a hang, when a call passes modelTimeoutMs, and closes the request', () =>
      withServer(
        streaming ? { replies: [ACTION], chunkDelayMs: 2000 } : { replies: [ACTION], responseDelayMs: 5000 },
        async (server) => {
          const result = await runAgent({
            model: await modelAt(server),
            question: QUESTION,
            tools: [calculator],
            limits: { modelTimeoutMs: 300 },
            modelSettings: { streaming },
          });
          assert.equal(result.status, 'error');
          // What happened, not a guess: the JSON server never sent headers; the SSE server went quiet.
          assert.match(
            result.error ?? '',
            streaming
              ? /^The model call failed: no complete answer within \d+\.\d s: the stream stalled for the last \d+\.\d s \(\d+ bytes received, the last after \d+\.\d s\) \(modelTimeoutMs: 300 ms\)\.$/
              : /^The model call failed: no response headers within \d+\.\d s \(modelTimeoutMs: 300 ms\)\.$/,
          );
          assert.equal(server.requests.length, 1, 'a timeout is not retried');
          await waitFor('the request to be closed', () => server.disconnects === 1);
        },
      ));

    it("the run's AbortSignal cancels the HTTP request in flight", () =>
      withServer(
        streaming
          ? { replies: [ACTION], chunkSize: 1, chunkDelayMs: 50 }
          : { replies: [ACTION], responseDelayMs: 5000 },
        async (server) => {
          const controller = new AbortController();
          setTimeout(() => controller.abort(), 300);
          const result = await runAgent({
            model: await modelAt(server),
            question: QUESTION,
            tools: [calculator],
            signal: controller.signal,
            modelSettings: { streaming },
          });
          assert.equal(result.status, 'aborted');
          assert.equal(result.steps.length, 0);
          await waitFor('the server to see the connection close', () => server.disconnects === 1);
          if (streaming) await waitFor('the stream to be abandoned', () => server.abandonedStreams === 1);
        },
      ));
  });
}

describe('OpenAI chat completions: retries', () => {
  it('retries a 429 after the Retry-After seconds and then succeeds', () =>
    withServer(
      {
        replies: [ANSWER],
        failFirst: { status: 429, count: 1, message: 'Rate limit reached', headers: { 'retry-after': '3' } },
      },
      async (server) => {
        const started = performance.now();
        const result = await runAgent({
          model: await modelAt(server),
          question: QUESTION,
          tools: [calculator],
        });
        const elapsed = performance.now() - started;
        assert.equal(result.status, 'answered');
        assert.equal(server.requests.length, 2);
        // Retry-After: 3 is longer than the AI SDK's own first wait (2 s): only a run that honoured the
        // header waits 3 s. A lower bound only (timers never fire early), so a busy machine cannot fail it.
        assert.ok(elapsed >= 2950, `took ${Math.round(elapsed)} ms`);
      },
    ));

  it('makes 3 attempts by default (maxRetries 2)', () =>
    withServer(
      { replies: [ANSWER], failFirst: { status: 503, count: 10, message: 'overloaded' } },
      async (server) => {
        const result = await runAgent({
          model: await modelAt(server),
          question: QUESTION,
          tools: [],
          modelSettings: { streaming: false },
        });
        assert.equal(result.status, 'error');
        assert.equal(server.requests.length, 3);
        assert.match(result.error ?? '', /HTTP 503: overloaded \(after 3 attempts\)/);
      },
    ));

  it('a 500 that outlasts maxRetries ends the run with error, the message and the partial trace', () =>
    withServer(
      {
        replies: [ACTION, ANSWER],
        failWhen: (_, index) => (index >= 1 ? { status: 500, message: 'internal error' } : undefined),
      },
      async (server) => {
        const file = join(tempDir('taoloop-openai-'), 'run.jsonl');
        const model = await modelAt(server, { maxRetries: 1 });
        const writer = createTraceWriter(file, { question: QUESTION, modelId: model.id });
        const { result, events } = await run({ model, question: QUESTION, tools: [calculator] });
        for (const event of events) writer.write(event);
        assert.equal(server.requests.length, 3, 'one good call, then 1 + 1 retry');
        assert.equal(result.status, 'error');
        assert.equal(
          result.error,
          'Model call to openai:gpt-4o-mini failed: HTTP 500: internal error (after 2 attempts)',
        );
        assert.equal(result.steps.length, 1);
        assert.equal(result.steps[0]?.observation?.text, '1680');
        const trace = readTrace(file);
        assert.equal(trace.result?.status, 'error');
        assert.equal(trace.steps.length, 1);
        assert.equal(trace.steps[0]?.observation?.text, '1680');
      },
    ));

  it('maxRetries: 0 makes a single attempt', () =>
    withServer({ replies: [ANSWER], failFirst: { status: 500, count: 10 } }, async (server) => {
      const result = await runAgent({
        model: await modelAt(server, { maxRetries: 0 }),
        question: QUESTION,
        tools: [],
      });
      assert.equal(result.status, 'error');
      assert.equal(server.requests.length, 1);
    }));
});

describe('OpenAI chat completions: broken streams', () => {
  it('a stream cut off midway (with no retry left) ends the run with error, not a hang', () =>
    withServer({ replies: [ACTION], cutStreamAfterEvents: 4, chunkSize: 4 }, async (server) => {
      const { result, events } = await run({
        model: await modelAt(server, { maxRetries: 0 }),
        question: QUESTION,
        tools: [calculator],
      });
      assert.equal(result.status, 'error');
      assert.match(
        result.error ?? '',
        /^Model call to openai:gpt-4o-mini failed: the server closed the connection mid-response \(\d+ bytes received\)$/,
      );
      const received = events.flatMap((e) => (e.type === 'model-delta' ? [e.text] : [])).join('');
      assert.equal(received, 'Thought: I n', 'the deltas before the cut arrived');
      assert.equal(result.steps.length, 0);
    }));

  it('a server that ignores stop and keeps writing is cut by the loop at the invented observation', () =>
    withServer(
      { replies: [ACTION, ANSWER], keepWriting: '\nObservation: 9999\nThought: and more', chunkDelayMs: 1 },
      async (server) => {
        const { result, events } = await run({
          model: await modelAt(server),
          question: QUESTION,
          tools: [calculator],
        });
        assert.equal(result.status, 'answered');
        assert.equal(result.answer, '$1,680 per year');
        assert.equal(result.steps[0]?.observation?.text, '1680');
        assert.equal(result.steps[0]?.finishReason, 'stop');
        assert.equal(events.filter((e) => e.type === 'invented-observation').length, 2);
        await waitFor('the loop to close both endless streams', () => server.abandonedStreams === 2);
      },
    ));

  it('a server that keeps writing without ever writing an observation is bounded by modelTimeoutMs', () =>
    withServer({ replies: [ANSWER], keepWriting: ' and on', chunkDelayMs: 1 }, async (server) => {
      const result = await runAgent({
        model: await modelAt(server),
        question: QUESTION,
        tools: [calculator],
        limits: { modelTimeoutMs: 500 },
      });
      assert.equal(result.status, 'error');
      assert.match(
        result.error ?? '',
        /no complete answer within \d+\.\d s: still receiving \(\d+ bytes so far\)/,
      );
      await waitFor('the stream to be abandoned', () => server.abandonedStreams === 1);
    }));
});
