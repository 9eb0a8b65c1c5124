/**
 * The README's first command with nothing configured, as a newcomer types it: no key, no Ollama, no
 * --model, so the embedded default model is downloaded. Offline (here: the download server is a closed
 * port on 127.0.0.1, through HF_ENDPOINT, which node-llama-cpp and taoloop both read), the run fails at
 * once and names the ways to configure a model. No real network is touched.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../helpers/cli.js';
import { closedPort } from '../helpers/ports.js';
import { tempDir } from '../helpers/temp.js';
import { cliEnv } from './support.js';

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
  assert.match(stderr, /or set HF_ENDPOINT \/ MODEL_ENDPOINT to a mirror/);
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

test('MODEL_ENDPOINT that is not an http(s) URL is an error naming it and what to write, not silently ignored', async () => {
  const { env } = cliEnv({ TAOLOOP_OFFLINE: '', MODEL_ENDPOINT: 'notaurl' });
  const { code, stdout, stderr } = await runCli(['run', 'q'], { env });
  assert.equal(code, 2, stderr);
  assert.equal(stdout, '');
  assert.match(
    stderr,
    /MODEL_ENDPOINT is set to "notaurl", which is not an http\(s\) URL: .*MODEL_ENDPOINT=https:\/\//,
  );
  const models = await runCli(['models'], { env });
  assert.match(models.stdout, /embedded\s+local:default\s+no\s+.*MODEL_ENDPOINT is set to "notaurl"/);
});

test('a clone that was not built runs the CLI from its sources (no `prepare` script builds it)', async (t) => {
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
  assert.equal(pkg.scripts.prepare, undefined, 'the published manifest has no prepare script (issue 20)');
  // A copy of the package's layout without dist/: bin/ copied, src/ and node_modules/ linked.
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const dir = tempDir('taoloop-unbuilt-');
  await mkdir(join(dir, 'bin'));
  await copyFile(join(root, 'bin', 'taoloop.js'), join(dir, 'bin', 'taoloop.js'));
  await symlink(join(root, 'src'), join(dir, 'src'));
  await symlink(join(root, 'node_modules'), join(dir, 'node_modules'));
  await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  const { stdout, stderr, status } = spawnSync(
    process.execPath,
    [join(dir, 'bin', 'taoloop.js'), '--version'],
    {
      encoding: 'utf8',
    },
  );
  t.diagnostic(stderr);
  assert.equal(status, 0, stderr);
  assert.equal(stdout.trim(), pkg.version);
});
