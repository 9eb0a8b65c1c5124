/**
 * The agent loop against a local Anthropic Messages API server through `anthropic:<model>` with
 * ANTHROPIC_BASE_URL: text mode (system prompt as `system`, stop_sequences, temperature 0) and native
 * tool use, JSON and SSE, with prompt-cache usage mapped.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runAgent } from '../../src/agent/loop.js';
import { ModelCallError } from '../../src/models/errors.js';
import { type ResolveModelOptions, resolveModelSpec } from '../../src/models/spec.js';
import { calculator } from '../../src/tools/calculator.js';
import {
  type FakeAnthropic,
  type FakeAnthropicOptions,
  startFakeAnthropic,
} from '../helpers/fake-anthropic-server.js';

const ACTION = 'Thought: I need the yearly total.\nAction: calculator[20 * 12 * 7]\nObservation: 9999';
const ANSWER = 'Thought: The calculator gave the total.\nAnswer: $1,680 per year';
const QUESTION = 'How much is $20 a month for 7 developers over a year?';
const MODEL = 'claude-3-5-haiku-latest';

async function withServer(options: FakeAnthropicOptions, body: (server: FakeAnthropic) => Promise<void>) {
  const server = await startFakeAnthropic(options);
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

function modelAt(server: FakeAnthropic, options: ResolveModelOptions = {}) {
  return resolveModelSpec(
    `anthropic:${MODEL}`,
    { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.baseURL },
    options,
  );
}

/** A message's content blocks (a string content is one text block). */
function blocksOf(message: { content: unknown } | undefined): Array<Record<string, unknown>> {
  const content = message?.content;
  if (content === undefined) return [];
  return typeof content === 'string'
    ? [{ type: 'text', text: content }]
    : (content as Array<Record<string, unknown>>);
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return (content as Array<{ type: string; text?: string }>).map((part) => part.text ?? '').join('');
}

for (const streaming of [false, true]) {
  describe(`Anthropic Messages API (${streaming ? 'SSE' : 'JSON'})`, () => {
    it('runs the text loop: system prompt as `system`, stop_sequences, temperature 0, cached usage', () =>
      withServer(
        {
          replies: [ACTION, ANSWER],
          usage: { inputTokens: 100, outputTokens: 20, cacheReadInputTokens: 900 },
        },
        async (server) => {
          const result = await runAgent({
            model: await modelAt(server),
            question: QUESTION,
            tools: [calculator],
            modelSettings: { streaming },
          });
          assert.equal(result.status, 'answered');
          assert.equal(result.answer, '$1,680 per year');
          assert.equal(result.steps[0]?.observation?.text, '1680');
          assert.equal(result.steps[0]?.finishReason, 'stop');
          // Anthropic's input_tokens excludes cache reads; the total input is 100 + 900.
          assert.deepEqual(result.steps[0]?.usage, {
            inputTokens: 1000,
            outputTokens: 20,
            cachedInputTokens: 900,
          });
          assert.deepEqual(result.usage, { inputTokens: 2000, outputTokens: 40, cachedInputTokens: 1800 });
          // claude-3-5-haiku: 100 at $0.8/M + 900 cached at $0.08/M + 20 out at $4/M, twice.
          assert.ok(Math.abs((result.costUsd ?? 0) - (2 * (100 * 0.8 + 900 * 0.08 + 20 * 4)) / 1e6) < 1e-12);

          const [first, second] = server.requests;
          assert.equal(first?.model, MODEL);
          assert.equal(first?.stream === true, streaming);
          assert.deepEqual(first?.stop_sequences, ['\nObservation:']);
          assert.equal(first?.temperature, 0);
          assert.ok(typeof first?.max_tokens === 'number' && first.max_tokens > 0);
          assert.match(textOf(first?.system), /Thought/);
          assert.deepEqual(
            first?.messages.map((m) => m.role),
            ['user'],
            'the system prompt is not sent as a message',
          );
          assert.match(textOf(first?.messages[0]?.content), /Question: How much/);
          assert.deepEqual(
            second?.messages.map((m) => m.role),
            ['user', 'assistant', 'user'],
          );
          assert.match(textOf(second?.messages[2]?.content), /Observation: 1680/);
          assert.equal(server.headers[0]?.['x-api-key'], 'sk-ant-test');
          assert.equal(server.headers[0]?.['anthropic-version'], '2023-06-01');
        },
      ));

    it('reports cached tokens as undefined, not 0, when the server sends no cache fields', () =>
      withServer({ replies: [ANSWER], usage: { inputTokens: 50, outputTokens: 10 } }, async (server) => {
        const result = await runAgent({
          model: await modelAt(server),
          question: QUESTION,
          tools: [],
          modelSettings: { streaming },
        });
        assert.deepEqual(result.steps[0]?.usage, {
          inputTokens: 50,
          outputTokens: 10,
          cachedInputTokens: undefined,
        });
      }));

    it('marks cache breakpoints on the system prompt and the newest message, and bills cache writes', () =>
      withServer(
        {
          replies: [ACTION, ANSWER],
          usage: {
            inputTokens: 100,
            outputTokens: 20,
            cacheReadInputTokens: 900,
            cacheCreationInputTokens: 300,
          },
        },
        async (server) => {
          const result = await runAgent({
            model: await modelAt(server),
            question: QUESTION,
            tools: [calculator],
            modelSettings: { streaming },
          });
          assert.equal(result.status, 'answered');
          for (const request of server.requests) {
            const system = request.system as Array<Record<string, unknown>>;
            assert.deepEqual(
              system.at(-1)?.cache_control,
              { type: 'ephemeral' },
              'the system prompt is a breakpoint',
            );
            const marked = request.messages.flatMap((m, i) =>
              blocksOf(m).flatMap((block) => (block.cache_control ? [i] : [])),
            );
            assert.deepEqual(
              marked,
              [request.messages.length - 1],
              'only the newest message is a breakpoint',
            );
          }
          // input_tokens 100 + cache reads 900 + cache writes 300 per call.
          assert.deepEqual(result.steps[0]?.usage, {
            inputTokens: 1300,
            outputTokens: 20,
            cachedInputTokens: 900,
            cacheWriteInputTokens: 300,
          });
          assert.deepEqual(result.usage, {
            inputTokens: 2600,
            outputTokens: 40,
            cachedInputTokens: 1800,
            cacheWriteInputTokens: 600,
          });
          // claude-3-5-haiku: 100 at $0.8/M, 900 read at $0.08/M, 300 written at $1/M, 20 out at $4/M; twice.
          const expected = (2 * (100 * 0.8 + 900 * 0.08 + 300 * 1 + 20 * 4)) / 1e6;
          assert.ok(Math.abs((result.costUsd ?? 0) - expected) < 1e-12, `${result.costUsd} vs ${expected}`);
        },
      ));

    it('marks one more breakpoint at the end of the stable prefix a compaction left', () =>
      withServer({ replies: [ANSWER] }, async (server) => {
        const model = await modelAt(server);
        const messages = [
          { role: 'system' as const, content: 'You answer questions.' },
          { role: 'user' as const, content: 'Question: a?' },
          { role: 'assistant' as const, content: 'Thought: look.\nAction: search[a]' },
          { role: 'user' as const, content: 'Observation: kept as it was' },
          { role: 'assistant' as const, content: 'Thought: more.\nAction: search[b]' },
          { role: 'user' as const, content: 'Observation: [observation shortened]' },
          { role: 'assistant' as const, content: 'Thought: more.\nAction: search[c]' },
          { role: 'user' as const, content: 'Observation: newest' },
        ];
        const request = { messages, stablePrefixMessages: 4 };
        if (streaming) for await (const _ of model.stream?.(request) ?? []);
        else await model.generate(request);
        const sent = server.requests[0]!;
        // The system prompt is sent apart (`system`); messages[3] of ours is the API's messages[2].
        const marked = sent.messages.flatMap((m, i) =>
          blocksOf(m).flatMap((block) => (block.cache_control ? [i] : [])),
        );
        assert.deepEqual(marked, [2, sent.messages.length - 1]);
        assert.equal(textOf(sent.messages[2]?.content), 'Observation: kept as it was');
      }));

    it('sends no cache breakpoints with promptCaching: false', () =>
      withServer({ replies: [ACTION, ANSWER] }, async (server) => {
        const result = await runAgent({
          model: await modelAt(server),
          question: QUESTION,
          tools: [calculator],
          modelSettings: { streaming, promptCaching: false },
        });
        assert.equal(result.status, 'answered');
        assert.doesNotMatch(JSON.stringify(server.requests), /cache_control/);
      }));

    it('runs native tool use: tool_use blocks in, tool_result blocks back', () =>
      withServer(
        {
          replies: [
            {
              text: 'I will compute it.',
              toolCalls: [{ name: 'calculator', arguments: '{"input":"20*12*7"}' }],
            },
            'Answer: $1,680 per year',
          ],
          usage: { inputTokens: 40, outputTokens: 8, cacheReadInputTokens: 0 },
        },
        async (server) => {
          const model = await modelAt(server);
          assert.equal(model.supportsToolCalls, true);
          const result = await runAgent({
            model,
            question: QUESTION,
            tools: [calculator],
            modelSettings: { mode: 'auto', streaming },
          });
          assert.equal(result.status, 'answered');
          assert.equal(result.answer, '$1,680 per year');
          const step = result.steps[0];
          assert.equal(step?.turn.type === 'action' && step.turn.thought, 'I will compute it.');
          assert.equal(step?.finishReason, 'tool-calls');
          assert.deepEqual(step?.toolCall, {
            id: 'toolu_1_0',
            name: 'calculator',
            input: '{"input":"20*12*7"}',
          });
          assert.equal(step?.observation?.text, '1680');
          assert.deepEqual(result.usage, { inputTokens: 80, outputTokens: 16, cachedInputTokens: 0 });

          const [first, second] = server.requests;
          assert.deepEqual(
            first?.tools?.map((t) => [t.name, t.input_schema.type]),
            [['calculator', 'object']],
          );
          assert.equal(first?.stop_sequences, undefined);
          const assistant = second?.messages[1];
          assert.equal(assistant?.role, 'assistant');
          const toolUse = blocksOf(assistant).find((b) => b.type === 'tool_use');
          assert.deepEqual(toolUse && { id: toolUse.id, name: toolUse.name, input: toolUse.input }, {
            id: 'toolu_1_0',
            name: 'calculator',
            input: { input: '20*12*7' },
          });
          const results = second?.messages[2];
          assert.equal(results?.role, 'user');
          const toolResult = blocksOf(results)[0];
          assert.equal(toolResult?.type, 'tool_result');
          assert.equal(toolResult?.tool_use_id, 'toolu_1_0');
          assert.equal(textOf(toolResult?.content), '1680');
        },
      ));
  });
}

describe('Anthropic Messages API: failures', () => {
  it('retries an overloaded (529) answer, bounded by maxRetries', () =>
    withServer(
      { replies: [ANSWER], failFirst: { status: 529, count: 5, message: 'Overloaded' } },
      async (server) => {
        const result = await runAgent({
          model: await modelAt(server, { maxRetries: 1 }),
          question: QUESTION,
          tools: [],
        });
        assert.equal(result.status, 'error');
        assert.equal(server.requests.length, 2);
        assert.equal(
          result.error,
          `Model call to anthropic:${MODEL} failed: HTTP 529: Overloaded (after 2 attempts)`,
        );
      },
    ));

  it('a 401 fails at once with the provider message', () =>
    withServer(
      { replies: [ANSWER], failFirst: { status: 401, count: 1, message: 'invalid x-api-key' } },
      async (server) => {
        const model = await modelAt(server);
        await assert.rejects(
          model.generate({ messages: [{ role: 'user', content: 'q' }] }),
          (error: unknown) => {
            assert.ok(error instanceof ModelCallError);
            assert.equal(error.statusCode, 401);
            assert.equal(
              error.message,
              `Model call to anthropic:${MODEL} failed: HTTP 401: invalid x-api-key (check the API key: OPENAI_API_KEY, ANTHROPIC_API_KEY or GOOGLE_GENERATIVE_AI_API_KEY for those providers, TAOLOOP_API_KEY for openai-compatible servers)`,
            );
            return true;
          },
        );
        assert.equal(server.requests.length, 1);
      },
    ));
});
