import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cleanEnv, ROOT } from '../helpers/cli.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/serve-cli.ts', import.meta.url));

/** Spawns `taoloop serve ...args` (through the fixture) with no model configured. */
function serve(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, 'serve', ...args], {
    cwd: ROOT,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /taoloop playground: (http:\/\/\S+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    child.on('close', () => reject(new Error(`serve exited early: ${stderr}`)));
  });
  return { child, url, exited, output: () => ({ stdout, stderr }) };
}

test('taoloop serve starts the playground on loopback and stops on Ctrl-C', { timeout: 30_000 }, async () => {
  const runsDir = await mkdtemp(path.join(os.tmpdir(), 'taoloop-serve-'));
  const server = serve(['--port', '0', '--runs-dir', runsDir]);
  const url = await server.url;
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  const config = (await (await fetch(`${url}api/config`)).json()) as Record<string, unknown>;
  assert.deepEqual(config.models, [], 'no model configured in a clean environment');
  assert.match(String(config.modelHelp), /TAOLOOP_MODEL/);
  assert.deepEqual(
    (config.tools as { name: string }[]).map((t) => t.name),
    ['calculator'],
  );
  server.child.kill('SIGINT');
  assert.equal(await server.exited, 0);
  await rm(runsDir, { recursive: true, force: true });
});

test('taoloop serve stops on SIGTERM and SIGHUP as on Ctrl-C', { timeout: 30_000 }, async () => {
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
    const runsDir = await mkdtemp(path.join(os.tmpdir(), 'taoloop-serve-'));
    const server = serve(['--port', '0', '--runs-dir', runsDir]);
    await server.url;
    server.child.kill(signal);
    assert.equal(await server.exited, 0, `${signal}: ${server.output().stderr}`);
    await rm(runsDir, { recursive: true, force: true });
  }
});

test('taoloop serve refuses the human tool and a bad port', { timeout: 30_000 }, async () => {
  const human = serve(['--port', '0', '--tools', 'calculator,human']);
  human.url.catch(() => {});
  assert.equal(await human.exited, 2);
  assert.match(human.output().stderr, /human tool asks at the terminal/);
  const port = serve(['--port', '70000']);
  port.url.catch(() => {});
  assert.equal(await port.exited, 2);
  assert.match(port.output().stderr, /port from 0 to 65535/);
});

test('taoloop serve --model offers the models given on the command line', { timeout: 30_000 }, async () => {
  const runsDir = await mkdtemp(path.join(os.tmpdir(), 'taoloop-serve-'));
  const spec = 'openai-compatible:http://127.0.0.1:9/v1#given';
  const server = serve(['--port', '0', '--runs-dir', runsDir, '--model', spec, '-m', `${spec}-too`]);
  const url = await server.url;
  const config = (await (await fetch(`${url}api/config`)).json()) as { models: unknown[] };
  // The picker names the model first, then the server: two models on one server read apart.
  assert.deepEqual(config.models, [
    { spec, label: 'given · 127.0.0.1:9' },
    { spec: `${spec}-too`, label: 'given-too · 127.0.0.1:9' },
  ]);
  server.child.kill('SIGINT');
  assert.equal(await server.exited, 0);
  await rm(runsDir, { recursive: true, force: true });
});
