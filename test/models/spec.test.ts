import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ModelConfigError } from '../../src/models/errors.js';
import {
  defaultModelSpec,
  describeModelSetup,
  type ModelSpec,
  parseModelSpec,
  resolveModelSpec,
} from '../../src/models/spec.js';
import type { ModelStreamPart } from '../../src/models/types.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function assertConfigError(run: () => unknown, pattern: RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof ModelConfigError, `expected ModelConfigError, got ${String(error)}`);
    assert.match(error.message, pattern);
    return true;
  });
}

describe('parseModelSpec', () => {
  const cases: Array<[string, ModelSpec]> = [
    ['openai:gpt-4o-mini', { provider: 'openai', modelId: 'gpt-4o-mini' }],
    ['anthropic:claude-3-5-haiku-latest', { provider: 'anthropic', modelId: 'claude-3-5-haiku-latest' }],
    ['google:gemini-2.0-flash', { provider: 'google', modelId: 'gemini-2.0-flash' }],
    ['ollama:llama3.1:8b', { provider: 'ollama', modelId: 'llama3.1:8b' }],
    ['  OpenAI:gpt-4o  ', { provider: 'openai', modelId: 'gpt-4o' }],
    [
      'openai-compatible:http://127.0.0.1:8080/v1#my-model',
      { provider: 'openai-compatible', baseURL: 'http://127.0.0.1:8080/v1', modelId: 'my-model' },
    ],
    ['replay:runs/run 1.jsonl', { provider: 'replay', file: 'runs/run 1.jsonl' }],
    [
      'openai-compatible:https://example.com/v1/#org/model:q4',
      { provider: 'openai-compatible', baseURL: 'https://example.com/v1', modelId: 'org/model:q4' },
    ],
  ];
  for (const [spec, expected] of cases) {
    it(`parses ${JSON.stringify(spec)}`, () => assert.deepEqual(parseModelSpec(spec), expected));
  }

  const bad: Array<[string, RegExp]> = [
    ['', /the spec is empty/],
    ['   ', /the spec is empty/],
    ['gpt-4o-mini', /no provider prefix/],
    ['mistral:large', /unknown provider "mistral"/],
    ['openai:', /no model after "openai:"/],
    ['replay:', /no trace file after "replay:"/],
    ['ollama:  ', /no model after "ollama:"/],
    ['openai-compatible:http://127.0.0.1:8080/v1', /needs "#<model>"/],
    ['openai-compatible:http://127.0.0.1:8080/v1#', /model after "#" is empty/],
    ['openai-compatible:localhost:8080#m', /must start with http:\/\/ or https:\/\//],
    ['openai-compatible:not a url#m', /is not a URL/],
    ['http://127.0.0.1:8080/v1#m', /openai-compatible:http:\/\/127\.0\.0\.1:8080\/v1#m/],
  ];
  for (const [spec, pattern] of bad) {
    it(`rejects ${JSON.stringify(spec)} with a ModelConfigError listing the accepted forms`, () => {
      assertConfigError(() => parseModelSpec(spec), pattern);
      assertConfigError(
        () => parseModelSpec(spec),
        /Accepted forms:[\s\S]*openai-compatible:<base-url>#<model>/,
      );
    });
  }
});

describe('resolveModelSpec', () => {
  const missingKeys: Array<[string, string]> = [
    ['openai:gpt-4o-mini', 'OPENAI_API_KEY'],
    ['anthropic:claude-3-5-haiku-latest', 'ANTHROPIC_API_KEY'],
    ['google:gemini-2.0-flash', 'GOOGLE_GENERATIVE_AI_API_KEY'],
  ];
  for (const [spec, variable] of missingKeys) {
    it(`names ${variable} when it is missing or empty`, async () => {
      for (const env of [{}, { [variable]: '  ' }]) {
        await assert.rejects(resolveModelSpec(spec, env), (error: unknown) => {
          assert.ok(error instanceof ModelConfigError);
          assert.equal(
            error.message,
            `Model "${spec}" needs an API key: set ${variable} in the environment.`,
          );
          return true;
        });
      }
    });
  }

  it('rejects a bad spec before anything else', async () => {
    await assert.rejects(resolveModelSpec('nope:model', {}), ModelConfigError);
  });

  it('rejects a maxRetries that is not a whole number 0 or more', async () => {
    for (const maxRetries of [-1, 1.5, Number.NaN]) {
      await assert.rejects(
        resolveModelSpec('openai:gpt-4o-mini', { OPENAI_API_KEY: 'k' }, { maxRetries }),
        (error: unknown) =>
          error instanceof ModelConfigError && /maxRetries must be a whole number/.test(error.message),
      );
    }
  });

  it('passes maxRetries to the provider calls (attempts counted at the server)', async () => {
    const server = await startFakeOpenAI({ replies: ['x'], failFirst: { status: 503, count: 10 } });
    try {
      const spec = `openai-compatible:${server.baseURL}#m`;
      const model = await resolveModelSpec(spec, {}, { maxRetries: 3 });
      await assert.rejects(
        model.generate({ messages: [{ role: 'user', content: 'q' }] }),
        /after 4 attempts/,
      );
      assert.equal(server.requests.length, 4);
    } finally {
      await server.close();
    }
  });

  it('builds anthropic and google models without calling them', async () => {
    const anthropic = await resolveModelSpec('anthropic:claude-3-5-haiku-latest', { ANTHROPIC_API_KEY: 'k' });
    assert.equal(anthropic.id, 'anthropic:claude-3-5-haiku-latest');
    assert.equal(typeof anthropic.stream, 'function');
    const google = await resolveModelSpec('google:gemini-2.0-flash', { GOOGLE_GENERATIVE_AI_API_KEY: 'k' });
    assert.equal(google.id, 'google:gemini-2.0-flash');
  });

  it('runs openai-compatible against a local server with usage in streams', async () => {
    const server = await startFakeOpenAI({ replies: ['Answer: Paris', 'Answer: Paris'] });
    try {
      const model = await resolveModelSpec(`openai-compatible:${server.baseURL}#local-model`, {});
      assert.equal(model.id, `openai-compatible:${server.baseURL}#local-model`);
      const response = await model.generate({
        messages: [{ role: 'user', content: 'Capital of France?' }],
        temperature: 0,
      });
      assert.equal(response.text, 'Answer: Paris');
      assert.ok(model.stream);
      const parts: ModelStreamPart[] = [];
      for await (const part of model.stream({ messages: [{ role: 'user', content: 'again' }] }))
        parts.push(part);
      const finish = parts.at(-1);
      assert.ok(finish?.type === 'finish' && finish.usage.outputTokens !== undefined);
      assert.equal(server.requests[0]?.model, 'local-model');
      assert.deepEqual(server.requests[1]?.stream_options, { include_usage: true });
    } finally {
      await server.close();
    }
  });

  it('uses the Chat Completions API for openai: (the Responses API ignores stop sequences)', async () => {
    const server = await startFakeOpenAI({ replies: ['Thought: hi\nObservation: x'] });
    try {
      const model = await resolveModelSpec('openai:gpt-4o-mini', {
        OPENAI_API_KEY: 'k',
        OPENAI_BASE_URL: server.baseURL,
      });
      assert.equal(model.id, 'openai:gpt-4o-mini');
      const response = await model.generate({
        messages: [{ role: 'user', content: 'q' }],
        stopSequences: ['\nObservation:'],
      });
      assert.equal(response.text, 'Thought: hi');
      assert.deepEqual(server.requests[0]?.stop, ['\nObservation:']);
    } finally {
      await server.close();
    }
  });

  it('talks to Ollama through its OpenAI-compatible /v1 endpoint, also from a bare host URL', async () => {
    const server = await startFakeOpenAI({ replies: ['one', 'two'] });
    try {
      const exact = await resolveModelSpec('ollama:llama3.1:8b', { OLLAMA_BASE_URL: server.baseURL });
      assert.equal(exact.id, 'ollama:llama3.1:8b');
      assert.equal((await exact.generate({ messages: [{ role: 'user', content: 'q' }] })).text, 'one');
      const bare = await resolveModelSpec('ollama:llama3.1:8b', {
        OLLAMA_BASE_URL: server.baseURL.replace(/\/v1$/, ''),
      });
      assert.equal((await bare.generate({ messages: [{ role: 'user', content: 'q' }] })).text, 'two');
      assert.equal(server.requests[1]?.model, 'llama3.1:8b');
    } finally {
      await server.close();
    }
  });
});

describe('defaultModelSpec', () => {
  it('prefers TAOLOOP_MODEL, then the first provider with a key', () => {
    assert.equal(defaultModelSpec({ TAOLOOP_MODEL: 'ollama:qwen3', OPENAI_API_KEY: 'k' }), 'ollama:qwen3');
    assert.equal(defaultModelSpec({ OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' }), 'openai:gpt-4o-mini');
    assert.equal(defaultModelSpec({ ANTHROPIC_API_KEY: 'k' }), 'anthropic:claude-3-5-haiku-latest');
    assert.equal(defaultModelSpec({ GOOGLE_GENERATIVE_AI_API_KEY: 'k' }), 'google:gemini-2.0-flash');
    assert.equal(defaultModelSpec({ TAOLOOP_MODEL: ' ', OPENAI_API_KEY: '' }), undefined);
    assert.equal(defaultModelSpec({}), undefined);
  });
});

describe('describeModelSetup', () => {
  it('names every way to configure a model', () => {
    const text = describeModelSetup();
    for (const needle of [
      '--model openai-compatible:http://127.0.0.1:8080/v1#my-model',
      '--model openai:gpt-4o-mini',
      'OPENAI_API_KEY',
      'anthropic:',
      'ANTHROPIC_API_KEY',
      'google:',
      'GOOGLE_GENERATIVE_AI_API_KEY',
      'ollama:',
      'TAOLOOP_MODEL',
      '127.0.0.1:11434',
      '--model local:./model.gguf',
      'embedded',
      'taoloop models',
    ]) {
      assert.ok(text.includes(needle), `missing ${needle}`);
    }
    assert.ok(text.split('\n').length > 3);
  });
});

describe('lazy provider imports', () => {
  it('importing spec.ts loads neither the AI SDK nor a provider package', () => {
    // A resolve hook that refuses 'ai' and '@ai-sdk/*': importing spec.ts must still work, and the
    // refusal shows up only once resolveModelSpec needs a provider (a positive control).
    const hook = `export async function resolve(s, c, next) {
      if (s === 'ai' || s.startsWith('@ai-sdk/')) throw new Error('blocked ' + s);
      return next(s, c);
    }`;
    const register = `import { register } from 'node:module';
      register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));`;
    const script = `const spec = await import('./src/models/spec.ts');
      console.log(spec.parseModelSpec('openai:gpt-4o-mini').provider);
      await spec.resolveModelSpec('openai:gpt-4o-mini', { OPENAI_API_KEY: 'k' }).catch((e) => console.log(e.message));`;
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--import',
        `data:text/javascript,${encodeURIComponent(register)}`,
        '--input-type=module',
        '-e',
        script,
      ],
      { cwd: ROOT, encoding: 'utf8', timeout: 30_000 },
    );
    assert.equal(child.status, 0, child.stderr);
    // The provider and the AI SDK are imported together, so either refusal may be the one reported.
    const [provider, refusal] = child.stdout.trim().split('\n');
    assert.equal(provider, 'openai');
    assert.match(refusal ?? '', /^blocked (ai|@ai-sdk\/openai)$/);
  });
});
