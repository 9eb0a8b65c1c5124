import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { cleanEnv, ROOT } from '../helpers/cli.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';

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

test('taoloop serve: two signals close together never leave a run trace without its end', {
  timeout: 60_000,
}, async () => {
  // A model that takes its time: the runs are in the middle of a call when the signals come.
  const fake = await startFakeOpenAI({
    replies: () => 'Thought: compute it.\nAction: calculator[2 + 2]',
    chunkDelayMs: 100,
    chunkSize: 4,
  });
  const runsDir = await mkdtemp(path.join(os.tmpdir(), 'taoloop-serve-'));
  const spec = `openai-compatible:${fake.baseURL}#m`;
  try {
    for (const [first, second] of [
      ['SIGTERM', 'SIGTERM'],
      ['SIGINT', 'SIGINT'],
    ] as const) {
      const server = serve(['--port', '0', '--runs-dir', runsDir, '--model', spec]);
      const origin = new URL(await server.url).origin;
      const received = fake.received;
      const ids: string[] = [];
      for (const question of ['q1', 'q2', 'q3']) {
        const response = await fetch(`${origin}/api/runs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin },
          body: JSON.stringify({ question, model: spec, tools: ['calculator'], maxSteps: 5 }),
        });
        ids.push(((await response.json()) as { id: string }).id);
      }
      while (fake.received < received + ids.length) await sleep(20);
      await sleep(200);
      server.child.kill(first);
      await sleep(5);
      server.child.kill(second);
      const code = await server.exited;
      // The first signal stops the runs (exit 0); a second one that lands before that is done quits at
      // once (130 / 143), after ending each unfinished trace with a run-error line that says so.
      assert.ok(
        [0, second === 'SIGINT' ? 130 : 143].includes(code ?? -1),
        `exit ${code}: ${server.output().stderr}`,
      );
      for (const id of ids) {
        const lines = (await readFile(path.join(runsDir, `${id}.jsonl`), 'utf8')).trim().split('\n');
        const last = JSON.parse(lines.at(-1) ?? '{}') as { type: string; error?: string };
        if (last.type === 'run-error') {
          const what = second === 'SIGINT' ? 'Ctrl-C' : second;
          assert.equal(last.error, `interrupted twice (${what}): quit at once`);
        } else assert.equal(last.type, 'run-end', `${id} (exit ${code}) ends with ${lines.at(-1)}`);
      }
    }
  } finally {
    await fake.close();
    await rm(runsDir, { recursive: true, force: true });
  }
});
