import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { after, before, describe, it, mock } from 'node:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { fromLanguageModel } from '../../src/models/ai-sdk.js';
import { ModelCallError } from '../../src/models/errors.js';
import type { Model, ModelRequest, ModelStreamPart } from '../../src/models/types.js';
import { type FakeOpenAIOptions, startFakeOpenAI } from '../helpers/fake-openai-server.js';

const REPLY = 'Thought: I should look it up.\nAction: search[Paris]\nObservation: made up';
const STOP = ['\nObservation:'];
const request: ModelRequest = {
  messages: [
    { role: 'system', content: 'You are a ReAct agent.' },
    { role: 'user', content: 'Question: capital of France?' },
  ],
  stopSequences: STOP,
  temperature: 0,
  maxOutputTokens: 200,
};

function modelAt(baseURL: string, options: { maxRetries?: number } = {}): Model {
  const provider = createOpenAICompatible({ name: 'fake', baseURL, includeUsage: true });
  return fromLanguageModel(provider.chatModel('fake-model'), { id: 'fake:fake-model', ...options });
}

async function withServer(
  options: FakeOpenAIOptions,
  body: (server: Awaited<ReturnType<typeof startFakeOpenAI>>) => Promise<void>,
) {
  const server = await startFakeOpenAI(options);
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

function streamOf(model: Model, turn: ModelRequest): AsyncIterable<ModelStreamPart> {
  assert.ok(model.stream, 'the adapter has stream()');
  return model.stream(turn);
}

async function collect(parts: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const all: ModelStreamPart[] = [];
  for await (const part of parts) all.push(part);
  return all;
}

describe('fromLanguageModel: generate', () => {
  it('returns text, usage with cached tokens and the finish reason', () =>
    withServer(
      { replies: [REPLY], usage: { promptTokens: 120, completionTokens: 14, cachedTokens: 64 } },
      async (server) => {
        const model = modelAt(server.baseURL);
        assert.equal(model.id, 'fake:fake-model');
        const response = await model.generate(request);
        assert.equal(response.text, 'Thought: I should look it up.\nAction: search[Paris]');
        assert.deepEqual(response.usage, { inputTokens: 120, outputTokens: 14, cachedInputTokens: 64 });
        assert.equal(response.finishReason, 'stop');
        assert.equal(response.rawFinishReason, 'stop');
      },
    ));

  it('sends messages, stop sequences, temperature 0 and max tokens', () =>
    withServer({ replies: [REPLY] }, async (server) => {
      await modelAt(server.baseURL).generate(request);
      const [body] = server.requests;
      assert.ok(body);
      assert.deepEqual(body.stop, STOP);
      assert.equal(body.temperature, 0);
      assert.equal(body.max_tokens, 200);
      assert.equal(body.model, 'fake-model');
      assert.deepEqual(body.messages, request.messages);
    }));

  it('reports cached tokens as undefined, not 0, when the server does not send them', () =>
    withServer({ replies: [REPLY], usage: { promptTokens: 10, completionTokens: 5 } }, async (server) => {
      const response = await modelAt(server.baseURL).generate(request);
      assert.deepEqual(response.usage, { inputTokens: 10, outputTokens: 5, cachedInputTokens: undefined });
    }));

  it('reports all usage as undefined when the server sends no usage', () =>
    withServer({ replies: [REPLY], usage: false }, async (server) => {
      const response = await modelAt(server.baseURL).generate(request);
      assert.deepEqual(response.usage, {
        inputTokens: undefined,
        outputTokens: undefined,
        cachedInputTokens: undefined,
      });
    }));

  it('does not cut the text client-side when the server ignores stop', () =>
    withServer({ replies: [REPLY], ignoreStop: true }, async (server) => {
      const response = await modelAt(server.baseURL).generate(request);
      assert.equal(response.text, REPLY);
    }));

  it('omits options the request does not set', () =>
    withServer({ replies: [REPLY] }, async (server) => {
      await modelAt(server.baseURL).generate({ messages: [{ role: 'user', content: 'hi' }] });
      const [body] = server.requests;
      assert.ok(body);
      assert.equal('stop' in body, false);
      assert.equal('temperature' in body, false);
      assert.equal('max_tokens' in body, false);
    }));

  it('retries a 500 (retry-after-ms: 0) and then succeeds', () =>
    withServer({ replies: [REPLY], failFirst: { status: 500, count: 1 } }, async (server) => {
      const response = await modelAt(server.baseURL).generate(request);
      assert.match(response.text, /^Thought:/);
      assert.equal(server.requests.length, 2);
    }));

  it('throws ModelCallError with status, provider message and attempts', () =>
    withServer(
      { replies: [REPLY], failFirst: { status: 503, count: 5, message: 'overloaded' } },
      async (server) => {
        await assert.rejects(
          modelAt(server.baseURL, { maxRetries: 1 }).generate(request),
          (error: unknown) => {
            assert.ok(error instanceof ModelCallError);
            assert.equal(error.statusCode, 503);
            assert.equal(error.isRetryable, true);
            assert.equal(
              error.message,
              'Model call to fake:fake-model failed: HTTP 503: overloaded (after 2 attempts)',
            );
            return true;
          },
        );
        assert.equal(server.requests.length, 2);
      },
    ));

  it('does not retry a 401', () =>
    withServer(
      { replies: [REPLY], failFirst: { status: 401, count: 5, message: 'Incorrect API key' } },
      async (server) => {
        await assert.rejects(modelAt(server.baseURL).generate(request), {
          name: 'ModelCallError',
          message:
            'Model call to fake:fake-model failed: HTTP 401: Incorrect API key (check the API key: OPENAI_API_KEY, ANTHROPIC_API_KEY or GOOGLE_GENERATIVE_AI_API_KEY for those providers, TAOLOOP_API_KEY for openai-compatible servers)',
        });
        assert.equal(server.requests.length, 1);
      },
    ));

  it('throws ModelCallError when the server is unreachable', async () => {
    const server = await startFakeOpenAI({ replies: [] });
    await server.close();
    await assert.rejects(modelAt(server.baseURL, { maxRetries: 0 }).generate(request), (error: unknown) => {
      assert.ok(error instanceof ModelCallError);
      assert.equal(error.statusCode, undefined);
      assert.match(error.message, /^Model call to fake:fake-model failed: .*connect/i);
      return true;
    });
  });

  it('rejects with the abort reason when aborted', () =>
    withServer({ replies: [REPLY] }, async (server) => {
      const controller = new AbortController();
      controller.abort();
      await assert.rejects(modelAt(server.baseURL).generate({ ...request, signal: controller.signal }), {
        name: 'AbortError',
      });
    }));

  it("rejects with the caller's abort reason when aborted during the call", () =>
    withServer({ replies: [REPLY], responseDelayMs: 500 }, async (server) => {
      const controller = new AbortController();
      const reason = new Error('stopped by the caller');
      const call = modelAt(server.baseURL, { maxRetries: 0 }).generate({
        ...request,
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(reason), 50);
      await assert.rejects(call, (error: unknown) => error === reason);
    }));

  it("leaves no listener on the caller's signal once a call is over", () =>
    withServer({ replies: [REPLY, REPLY] }, async (server) => {
      const model = modelAt(server.baseURL);
      const controller = new AbortController();
      await model.generate({ ...request, signal: controller.signal });
      await model.generate({ ...request, signal: controller.signal });
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
    }));

  it('rejects a message that is not a model message before anything is sent, naming it', () =>
    withServer({ replies: [REPLY] }, async (server) => {
      const broken = { role: 'user', content: 42 } as unknown as ModelRequest['messages'][number];
      await assert.rejects(
        modelAt(server.baseURL, { maxRetries: 0 }).generate({ ...request, messages: [broken] }),
        (error: unknown) => {
          assert.ok(error instanceof ModelCallError);
          assert.match(
            error.message,
            /message 0 \(user\) is not a model message: its content is number, not text/,
          );
          return true;
        },
      );
      assert.equal(server.requests.length, 0);
    }));
});

describe('fromLanguageModel: stream', () => {
  it('yields deltas that add up to the text, then one finish part with usage', () =>
    withServer(
      { replies: [REPLY], usage: { promptTokens: 50, completionTokens: 12, cachedTokens: 32 } },
      async (server) => {
        const model = modelAt(server.baseURL);
        assert.ok(model.stream);
        const parts = await collect(model.stream(request));
        const deltas = parts.filter((part) => part.type === 'text-delta');
        assert.ok(deltas.length > 3, `expected several deltas, got ${deltas.length}`);
        assert.equal(
          deltas.map((part) => part.text).join(''),
          'Thought: I should look it up.\nAction: search[Paris]',
        );
        assert.deepEqual(parts.at(-1), {
          type: 'finish',
          usage: { inputTokens: 50, outputTokens: 12, cachedInputTokens: 32 },
          finishReason: 'stop',
          rawFinishReason: 'stop',
        });
        assert.equal(parts.filter((part) => part.type === 'finish').length, 1);
        const [body] = server.requests;
        assert.equal(body?.stream, true);
        assert.deepEqual(body?.stream_options, { include_usage: true });
        assert.deepEqual(body?.stop, STOP);
        assert.equal(body?.temperature, 0);
      },
    ));

  it('reports undefined usage when the stream carries none', () =>
    withServer({ replies: [REPLY], usage: false }, async (server) => {
      const parts = await collect(streamOf(modelAt(server.baseURL), request));
      const finish = parts.at(-1);
      assert.equal(finish?.type, 'finish');
      assert.deepEqual(finish?.type === 'finish' ? finish.usage : null, {
        inputTokens: undefined,
        outputTokens: undefined,
        cachedInputTokens: undefined,
      });
    }));

  it('throws stream errors instead of logging them', () =>
    withServer(
      { replies: [REPLY], failFirst: { status: 401, count: 1, message: 'Incorrect API key' } },
      async (server) => {
        const logged = mock.method(console, 'error', () => {});
        try {
          await assert.rejects(collect(streamOf(modelAt(server.baseURL), request)), (error: unknown) => {
            assert.ok(error instanceof ModelCallError);
            assert.equal(error.statusCode, 401);
            assert.equal(
              error.message,
              'Model call to fake:fake-model failed: HTTP 401: Incorrect API key (check the API key: OPENAI_API_KEY, ANTHROPIC_API_KEY or GOOGLE_GENERATIVE_AI_API_KEY for those providers, TAOLOOP_API_KEY for openai-compatible servers)',
            );
            return true;
          });
          assert.equal(logged.mock.callCount(), 0);
        } finally {
          logged.mock.restore();
        }
      },
    ));

  it('throws the abort reason when aborted mid-stream', () =>
    withServer({ replies: [REPLY], chunkSize: 1, chunkDelayMs: 5 }, async (server) => {
      const controller = new AbortController();
      const seen: string[] = [];
      const run = async () => {
        for await (const part of streamOf(modelAt(server.baseURL), {
          ...request,
          signal: controller.signal,
        })) {
          if (part.type === 'text-delta') seen.push(part.text);
          if (seen.length === 3) controller.abort();
        }
      };
      await assert.rejects(run(), { name: 'AbortError' });
      assert.ok(seen.length < 10);
    }));

  describe('a consumer that stops early', () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    before(() => process.on('unhandledRejection', onUnhandled));
    after(() => process.off('unhandledRejection', onUnhandled));

    it('ends the request without errors', () =>
      withServer({ replies: [REPLY], chunkSize: 1, chunkDelayMs: 5 }, async (server) => {
        let text = '';
        for await (const part of streamOf(modelAt(server.baseURL), request)) {
          if (part.type === 'text-delta') text += part.text;
          if (text.length >= 8) break;
        }
        assert.equal(text, 'Thought:');
        await new Promise((resolve) => setTimeout(resolve, 50));
        assert.deepEqual(unhandled, []);
      }));
  });
});
