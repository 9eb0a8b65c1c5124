import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { closedPort } from '../helpers/ports.js';
import { tempDir } from '../helpers/temp.js';

test('taoloop models shows the chain and why the first available model is chosen', async () => {
  const { code, stdout } = await runCli(['models'], { env: cleanEnv({ ANTHROPIC_API_KEY: 'test-key' }) });
  assert.equal(code, 0);
  assert.match(stdout, /TAOLOOP_MODEL\s+-\s+no/);
  assert.match(stdout, /^\*\s+API key\s+anthropic:claude-3-5-haiku-latest\s+yes/m);
  assert.match(stdout, /Chosen: anthropic:claude-3-5-haiku-latest/);
});

test('taoloop models --json with TAOLOOP_MODEL set', async () => {
  const { code, stdout } = await runCli(['models', '--json'], {
    env: cleanEnv({ TAOLOOP_MODEL: 'ollama:qwen2.5' }),
  });
  assert.equal(code, 0);
  const description = JSON.parse(stdout);
  assert.equal(description.chosen.spec, 'ollama:qwen2.5');
  assert.equal(description.chosen.source, 'env');
});

test('taoloop models --model asks an OpenAI-compatible endpoint for its models before calling it available', async (t) => {
  const server = await startFakeOpenAI({ replies: [], models: ['qwen2.5-7b-instruct', 'other'] });
  t.after(() => server.close());
  const spec = `openai-compatible:${server.baseURL}#qwen2.5-7b-instruct`;
  const { code, stdout } = await runCli(['models', '--model', spec], { env: cleanEnv() });
  assert.equal(code, 0);
  assert.match(
    stdout,
    new RegExp(
      `^\\*\\s+--model\\s+\\S+\\s+yes\\s+given with --model; GET ${server.baseURL}/models lists qwen2.5-7b-instruct$`,
      'm',
    ),
  );
  assert.match(stdout, /Why: --model \S+ was given\.$/m);

  // A model the server does not list is said so.
  const missing = await runCli(['models', '--model', `openai-compatible:${server.baseURL}#nope`, '--json'], {
    env: cleanEnv(),
  });
  const flag = JSON.parse(missing.stdout).candidates[0];
  assert.equal(flag.available, true);
  assert.match(flag.note, /answers, but lists qwen2\.5-7b-instruct, other, not nope/);
});

test('taoloop models --model with a server that refuses the connection: not available, a run fails too', async () => {
  const port = await closedPort();
  const spec = `openai-compatible:http://127.0.0.1:${port}/v1#my-model`;
  const { code, stdout } = await runCli(['models', '--model', spec], { env: cleanEnv() });
  assert.equal(code, 0);
  const refused = `GET http://127.0.0.1:${port}/v1/models: connection refused (127.0.0.1:${port}): no server listens there, so a run fails too until one does`;
  assert.ok(stdout.includes(`no         given with --model; ${refused}\n`), stdout);
  assert.ok(stdout.includes(`\nChosen: ${spec}\n`), stdout);
  assert.ok(stdout.includes(`Why: --model ${spec} was given; ${refused}.`), stdout);

  const json = await runCli(['models', '--model', spec, '--json'], { env: cleanEnv() });
  const description = JSON.parse(json.stdout);
  assert.equal(description.candidates[0].available, false);
  assert.equal(description.chosen.spec, spec);
});

test('taoloop models --model with a server that has no model list (404): it says what was and was not tried', async (t) => {
  // A server that serves chat completions but no GET /models, as some do.
  const server = createHttpServer((_req, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const spec = `openai-compatible:${base}#my-model`;
  const { code, stdout } = await runCli(['models', '--model', spec], { env: cleanEnv() });
  assert.equal(code, 0);
  const said = `GET ${base}/models answered HTTP 404 Not Found: the server lists no models; a run may still work (its chat endpoint was not tried)`;
  assert.match(stdout, /^\*\s+--model\s+\S+\s+yes\s+given with --model; GET /m);
  assert.ok(stdout.includes(`given with --model; ${said}\n`), stdout);
  assert.ok(stdout.includes(`Why: --model ${spec} was given; ${said}.`), stdout);
  assert.doesNotMatch(stdout, /fails until it answers|did not answer/);
  const json = JSON.parse((await runCli(['models', '--model', spec, '--json'], { env: cleanEnv() })).stdout);
  assert.equal(json.candidates[0].available, true);
});

test('taoloop models offline with nothing configured: the embedded model is not downloaded and cannot be now, as run finds', async () => {
  const cache = tempDir('taoloop-models-cache-');
  const env = cleanEnv({ TAOLOOP_CACHE_DIR: cache });
  const { code, stdout } = await runCli(['models'], { env });
  assert.equal(code, 0);
  assert.match(
    stdout,
    /^\*\s+embedded\s+local:default\s+no\s+.*is not downloaded and cannot be downloaded now: TAOLOOP_OFFLINE=1 is set$/m,
  );
  assert.match(
    stdout,
    /Chosen: local:default\nWhy: .*the embedded local model cannot be used now \(see its note\)/,
  );
  const json = JSON.parse((await runCli(['models', '--json'], { env })).stdout);
  assert.equal(json.candidates.find((c: { source: string }) => c.source === 'embedded').available, false);
  const run = await runCli(['run', 'q'], { env });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /the embedded local model is not available: .*TAOLOOP_OFFLINE=1 is set/);

  // A complete copy in the cache (the file and its receipt, as a download leaves them): available, offline too.
  const file = join(cache, 'models', 'Qwen--Qwen2.5-1.5B-Instruct-GGUF--qwen2.5-1.5b-instruct-q4_k_m.gguf');
  await mkdir(join(cache, 'models'), { recursive: true });
  await writeFile(file, 'GGUF0000');
  await writeFile(
    `${file}.json`,
    JSON.stringify({
      uri: 'hf:Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf',
      sizeBytes: 8,
    }),
  );
  const cached = await runCli(['models'], { env });
  assert.match(cached.stdout, /^\*\s+embedded\s+local:default\s+yes\s+.*the default model is downloaded/m);
  assert.match(cached.stdout, /Chosen: local:default\nWhy: .*using the embedded local model\./);
  assert.equal(readdirSync(join(cache, 'models')).length, 2, 'nothing downloaded');
});
