import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import {
  chooseModel,
  describeModelChoices,
  formatModelChoices,
  type OllamaProbe,
  ollamaHost,
  probeOllama,
} from '../../src/models/choose.js';
import { waitFor } from '../helpers/wait.js';

/** A probe that must not be called. */
const noProbe: OllamaProbe = async () => {
  throw new Error('Ollama should not be probed');
};
const noOllama: OllamaProbe = async () => undefined;
const embeddedSpec = 'local:default';

/** A fake Ollama on 127.0.0.1: `GET /api/tags` answers `body` (or hangs when `hang`). */
async function startFakeOllama(options: { body?: unknown; status?: number; hang?: boolean }) {
  let hits = 0;
  let closed = 0;
  const server: Server = createServer((req, res) => {
    hits += 1;
    res.on('close', () => {
      if (!res.writableFinished) closed += 1;
    });
    if (options.hang) return;
    if (req.method !== 'GET' || req.url !== '/api/tags') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(options.status ?? 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(options.body ?? { models: [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get hits() {
      return hits;
    },
    get closed() {
      return closed;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const TAGS = {
  models: [
    { name: 'nomic-embed-text:latest', model: 'nomic-embed-text:latest', size: 274302450 },
    { name: 'qwen2.5:7b', model: 'qwen2.5:7b', size: 4683087332 },
    { name: 'llama3.1:8b', model: 'llama3.1:8b', size: 4920753328 },
  ],
};

describe('chooseModel', () => {
  it('takes --model first, without probing Ollama', async () => {
    const choice = await chooseModel({
      flag: 'ollama:phi3',
      env: { TAOLOOP_MODEL: 'openai:gpt-4o', OPENAI_API_KEY: 'k' },
      probeOllama: noProbe,
    });
    assert.deepEqual(choice, {
      spec: 'ollama:phi3',
      source: 'flag',
      reason: '--model ollama:phi3 was given',
    });
  });

  it('then TAOLOOP_MODEL, then the first provider whose key is set', async () => {
    const env = await chooseModel({
      env: { TAOLOOP_MODEL: ' openai:gpt-4o ', OPENAI_API_KEY: 'k' },
      probeOllama: noProbe,
    });
    assert.deepEqual(env, {
      spec: 'openai:gpt-4o',
      source: 'env',
      reason: 'TAOLOOP_MODEL is set to openai:gpt-4o',
    });
    const cases: Array<[NodeJS.ProcessEnv, string, string]> = [
      [{ OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' }, 'openai:gpt-4o-mini', 'OPENAI_API_KEY'],
      [
        { OPENAI_API_KEY: ' ', ANTHROPIC_API_KEY: 'k' },
        'anthropic:claude-3-5-haiku-latest',
        'ANTHROPIC_API_KEY',
      ],
      [{ GOOGLE_GENERATIVE_AI_API_KEY: 'k' }, 'google:gemini-2.0-flash', 'GOOGLE_GENERATIVE_AI_API_KEY'],
    ];
    for (const [vars, spec, variable] of cases) {
      const choice = await chooseModel({ env: vars, probeOllama: noProbe });
      assert.equal(choice.spec, spec);
      assert.equal(choice.source, 'api-key');
      assert.match(choice.reason, new RegExp(`${variable} is set`));
    }
  });

  it('then the first (non-embedding) model of a local Ollama, from a real HTTP probe', async () => {
    const ollama = await startFakeOllama({ body: TAGS });
    try {
      const choice = await chooseModel({ env: { OLLAMA_BASE_URL: `${ollama.url}/v1` } });
      assert.equal(choice.spec, 'ollama:qwen2.5:7b');
      assert.equal(choice.source, 'ollama');
      assert.match(choice.reason, /Ollama at http:\/\/127\.0\.0\.1:\d+ lists qwen2\.5:7b \(first of 2\)/);
      assert.equal(ollama.hits, 1);
    } finally {
      await ollama.close();
    }
  });

  it('falls through to the embedded model when Ollama has no models, and says so', async () => {
    const ollama = await startFakeOllama({ body: { models: [] } });
    try {
      const description = await describeModelChoices({
        env: { OLLAMA_BASE_URL: ollama.url },
        localModel: { lookup: async () => {} },
      });
      const row = description.candidates.find((c) => c.source === 'ollama');
      assert.deepEqual(row, {
        source: 'ollama',
        available: false,
        note: `Ollama at ${ollama.url} has no models: run \`ollama pull qwen2.5:7b\``,
      });
      assert.equal(description.chosen.spec, embeddedSpec);
      assert.equal(description.chosen.source, 'embedded');
    } finally {
      await ollama.close();
    }
  });

  it('uses the embedded model when nothing else is there', async () => {
    const choice = await chooseModel({ env: {}, probeOllama: noOllama });
    assert.deepEqual(choice, {
      spec: embeddedSpec,
      source: 'embedded',
      reason: 'no --model, TAOLOOP_MODEL, API key or Ollama model: using the embedded local model',
    });
  });

  it('gives up on an Ollama that accepts the connection but never answers (500 ms)', async () => {
    const ollama = await startFakeOllama({ hang: true });
    try {
      const started = performance.now();
      const choice = await chooseModel({ env: { OLLAMA_BASE_URL: ollama.url } });
      const elapsed = performance.now() - started;
      assert.equal(choice.source, 'embedded');
      // Not before its limit (timers never fire early); that it gives up at all is the hanging server.
      assert.ok(elapsed >= 450, `took ${elapsed} ms`);
      assert.equal(ollama.hits, 1);
      await waitFor('the probe to close its request', () => ollama.closed === 1);
    } finally {
      await ollama.close();
    }
  });

  it('gives up on a probe that ignores its abort signal', async () => {
    // The probe never settles: that the choice comes at all shows the limit holds (no clock needed).
    const choice = await chooseModel({
      env: {},
      probeOllama: () => new Promise(() => {}),
      ollamaTimeoutMs: 100,
    });
    assert.equal(choice.source, 'embedded');
  });

  it('treats a probe that throws as no Ollama', async () => {
    const choice = await chooseModel({
      env: {},
      probeOllama: async () => {
        throw new Error('boom');
      },
    });
    assert.equal(choice.source, 'embedded');
  });
});

describe('probeOllama', () => {
  it('fails fast when nothing listens', async () => {
    const ollama = await startFakeOllama({});
    await ollama.close();
    const started = performance.now();
    assert.equal(await probeOllama(ollama.url, AbortSignal.timeout(5000)), undefined);
    assert.ok(performance.now() - started < 1000);
  });

  it('answers undefined for a server that is not Ollama', async () => {
    for (const options of [{ status: 404 }, { body: { hello: 'world' } }]) {
      const server = await startFakeOllama(options);
      try {
        assert.equal(await probeOllama(server.url, AbortSignal.timeout(5000)), undefined);
      } finally {
        await server.close();
      }
    }
  });

  it('finds the host from OLLAMA_BASE_URL forms', () => {
    assert.equal(ollamaHost(undefined), 'http://127.0.0.1:11434');
    assert.equal(ollamaHost('http://gpu:11434/v1/'), 'http://gpu:11434');
    assert.equal(ollamaHost('http://gpu:11434/api'), 'http://gpu:11434');
    assert.equal(ollamaHost(' http://gpu:11434 '), 'http://gpu:11434');
  });
});

describe('describeModelChoices and formatModelChoices', () => {
  it('lists every source, probes Ollama even when a key is set, and marks the chosen one', async () => {
    let probed = 0;
    const description = await describeModelChoices({
      env: { ANTHROPIC_API_KEY: 'k' },
      localModel: { lookup: async () => {} },
      probeOllama: async () => {
        probed += 1;
        return ['llama3.1:8b'];
      },
    });
    assert.equal(probed, 1);
    assert.deepEqual(
      description.candidates.map((c) => [c.source, c.spec, c.available]),
      [
        ['env', undefined, false],
        ['api-key', 'openai:gpt-4o-mini', false],
        ['api-key', 'anthropic:claude-3-5-haiku-latest', true],
        ['api-key', 'google:gemini-2.0-flash', false],
        ['ollama', 'ollama:llama3.1:8b', true],
        ['embedded', embeddedSpec, true],
      ],
    );
    assert.equal(description.chosen.spec, 'anthropic:claude-3-5-haiku-latest');
    const text = formatModelChoices(description);
    const lines = text.split('\n');
    const chosenLines = lines.filter((line) => line.startsWith('*'));
    assert.equal(chosenLines.length, 1);
    assert.match(
      chosenLines[0] ?? '',
      /^\*\s+API key\s+anthropic:claude-3-5-haiku-latest\s+yes\s+ANTHROPIC_API_KEY is set$/,
    );
    assert.match(text, /OPENAI_API_KEY is not set/);
    assert.match(text, /Ollama\s+ollama:llama3\.1:8b\s+yes/);
    assert.match(
      text,
      /Chosen: anthropic:claude-3-5-haiku-latest\nWhy: no --model or TAOLOOP_MODEL, and ANTHROPIC_API_KEY is set\./,
    );
  });

  it('lists --model first when it is given', async () => {
    const description = await describeModelChoices({
      flag: 'openai:gpt-4o',
      env: {},
      probeOllama: noOllama,
      localModel: { lookup: async () => {} },
    });
    assert.equal(description.candidates[0]?.source, 'flag');
    assert.equal(description.chosen.source, 'flag');
    assert.match(
      formatModelChoices(description),
      /no Ollama answered at http:\/\/127\.0\.0\.1:11434 within 500 ms/,
    );
  });
});

describe('a given server asked for its model list: what was checked and what was not', () => {
  /** A server on 127.0.0.1 that answers every request with `status` and `body`. */
  async function answering(status: number, body = '') {
    const server = createServer((_req, res) => res.writeHead(status).end(body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    return { base, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  }
  const describeFlag = (flag: string) =>
    describeModelChoices({ flag, env: {}, probeOllama: noOllama, localModel: { lookup: async () => {} } });

  it('no list (404): usable, and the reason says the chat endpoint was not tried', async () => {
    const server = await answering(404);
    try {
      const { candidates, chosen } = await describeFlag(`openai-compatible:${server.base}#m`);
      const said = `GET ${server.base}/models answered HTTP 404 Not Found: the server lists no models; a run may still work (its chat endpoint was not tried)`;
      assert.deepEqual(candidates[0], {
        spec: `openai-compatible:${server.base}#m`,
        source: 'flag',
        available: true,
        note: `given with --model; ${said}`,
      });
      assert.equal(chosen.reason, `--model openai-compatible:${server.base}#m was given; ${said}`);
    } finally {
      await server.close();
    }
  });

  it('a 200 that is no model list is the same; a 401 names the key variable and is not called usable', async () => {
    const notAList = await answering(200, '<html>hello</html>');
    const refused = await answering(401);
    try {
      const html = await describeFlag(`openai-compatible:${notAList.base}#m`);
      assert.equal(html.candidates[0]?.available, true);
      assert.match(html.chosen.reason, /answered, but not with a model list .*a run may still work/);
      const key = await describeFlag(`openai-compatible:${refused.base}#m`);
      assert.equal(key.candidates[0]?.available, false);
      assert.match(
        key.chosen.reason,
        /answered HTTP 401 Unauthorized \(an API key goes in TAOLOOP_API_KEY\)/,
      );
    } finally {
      await notAList.close();
      await refused.close();
    }
  });

  it('a refused connection is not a missing list: not available, and a run fails the same way', async () => {
    const server = await answering(404);
    await server.close();
    const { candidates, chosen } = await describeFlag(`openai-compatible:${server.base}#m`);
    const address = new URL(server.base).host;
    const said = `GET ${server.base}/models: connection refused (${address}): no server listens there, so a run fails too until one does`;
    assert.equal(candidates[0]?.available, false);
    assert.equal(candidates[0]?.note, `given with --model; ${said}`);
    assert.equal(chosen.reason, `--model openai-compatible:${server.base}#m was given; ${said}`);
    assert.doesNotMatch(chosen.reason, /until it answers/);
  });
});
