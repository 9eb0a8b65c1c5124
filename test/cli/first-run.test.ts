/**
 * The README's first command with nothing configured, as a newcomer types it: no key, no Ollama, no
 * --model, so the embedded default model is downloaded. Offline (here: the download server is a closed
 * port on 127.0.0.1, through HF_ENDPOINT, which node-llama-cpp and taoloop both read), the run fails at
 * once and names the ways to configure a model. No real network is touched.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { cliEnv } from './support.js';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('the first command offline: the download of the default model fails fast and the message names the ways to configure a model', async () => {
  const port = await closedPort();
  // TAOLOOP_OFFLINE unset: a download is really tried, against the closed port.
  const { env } = cliEnv({ TAOLOOP_OFFLINE: '', HF_ENDPOINT: `http://127.0.0.1:${port}/` });
  const started = performance.now();
  const { code, stdout, stderr } = await runCli(
    ['run', 'How much does Brightgrid Pro cost per year for 7 developers?', '--docs', 'examples/brightgrid'],
    { env },
  );
  const seconds = (performance.now() - started) / 1000;
  assert.ok(seconds < 10, `fails fast, not after the downloader's retries (${seconds.toFixed(1)} s)`);
  assert.equal(code, 2, stderr);
  assert.equal(stdout, '');
  assert.match(stderr, /no model is configured, and the embedded local model is not available/);
  assert.match(stderr, new RegExp(`127\\.0\\.0\\.1:${port} cannot be reached \\(connect ECONNREFUSED`));
  for (const way of [
    /--model local:\.\/model\.gguf/,
    /openai-compatible:http/,
    /OPENAI_API_KEY/,
    /Ollama/,
    /TAOLOOP_MODEL/,
  ])
    assert.match(stderr, way);
  assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
});
