/**
 * What the playground reads and how much it runs at once: a trace in the runs folder that is a symbolic
 * link (to a trace elsewhere, to a device) is refused everywhere a trace is read; runs in progress are
 * capped (`maxRuns`, `taoloop serve --max-runs`, default 4), one more being a 429 the page shows.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, symlinkSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Model } from '../../src/models/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { startPlayground } from '../../src/web/server.js';
import { cleanEnv, ROOT } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { followRun, postJson, rawRequest, startTestPlayground } from './helpers.js';

const ANSWER = 'Thought: easy.\nAnswer: 4';
const RUN = { question: 'q?', model: 'scripted', tools: ['calculator'] };

test('a trace that is a symbolic link in the runs folder is refused: not listed, not served, not continued', async () => {
  const playground = await startTestPlayground([ANSWER]);
  try {
    const started = await postJson(playground, '/api/runs', RUN);
    await followRun(playground, started.body.id as string);
    const real = path.join(playground.runsDir, `${started.body.id as string}.jsonl`);
    // A trace outside the folder (another user's, say), linked in under a run id.
    const outside = path.join(tempDir('taoloop-outside-'), 'secret.jsonl');
    copyFileSync(real, outside);
    const links: Record<string, string> = { '2020-01-01T00-00-00.000Z-aaaaaa': outside };
    if (existsSync('/dev/zero')) links['2020-01-01T00-00-00.000Z-bbbbbb'] = '/dev/zero';
    for (const [id, target] of Object.entries(links)) {
      symlinkSync(target, path.join(playground.runsDir, `${id}.jsonl`));
      for (const suffix of ['trace.jsonl', 'events']) {
        const response = await rawRequest(`${playground.origin}/api/runs/${id}/${suffix}`);
        assert.equal(response.status, 403, `${id} ${suffix}: ${response.body}`);
        assert.match(JSON.parse(response.body).error, /symbolic link/);
      }
      const follow = await postJson(playground, '/api/runs', { ...RUN, continueFrom: id });
      assert.equal(follow.status, 400, JSON.stringify(follow.body));
      assert.match(String(follow.body.error), /symbolic link/);
    }
    const listed = (await (await fetch(`${playground.origin}/api/runs`)).json()) as {
      runs: { id: string }[];
    };
    assert.deepEqual(
      listed.runs.map((run) => run.id),
      [started.body.id],
      'only the real trace is listed',
    );
    const own = await rawRequest(`${playground.origin}/api/runs/${started.body.id as string}/trace.jsonl`);
    assert.equal(own.status, 200, 'a real trace is still served');
  } finally {
    await playground.close();
  }
});

/** Models whose first call waits until `release()`; `waiting()` resolves once `count` calls wait. */
function gatedModels() {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  let calls = 0;
  let onCall: () => void = () => {};
  const createModel = async (): Promise<Model> => {
    const inner = scriptedModel([ANSWER]);
    return {
      id: 'gated',
      generate: async (request) => {
        calls += 1;
        onCall();
        await gate;
        return inner.generate(request);
      },
    };
  };
  const waiting = (count: number) =>
    new Promise<void>((resolve) => {
      onCall = () => calls >= count && resolve();
      onCall();
    });
  return { createModel, release: () => release(), waiting };
}

test('runs in progress are capped (default 4): one more is a 429 saying why; a finished run frees its place', async () => {
  for (const maxRuns of [undefined, 2]) {
    const limit = maxRuns ?? 4;
    const gated = gatedModels();
    const playground = await startTestPlayground([], {
      createModel: gated.createModel,
      ...(maxRuns !== undefined && { maxRuns }),
    });
    try {
      const ids: string[] = [];
      for (let i = 0; i < limit; i++) {
        const started = await postJson(playground, '/api/runs', RUN);
        assert.equal(started.status, 201);
        ids.push(started.body.id as string);
      }
      await gated.waiting(limit);
      const refused = await postJson(playground, '/api/runs', RUN);
      assert.equal(refused.status, 429);
      assert.equal(
        refused.body.error,
        `${limit} runs are already running; wait for one to finish or raise --max-runs`,
      );
      gated.release();
      for (const id of ids) await followRun(playground, id);
      const again = await postJson(playground, '/api/runs', RUN);
      assert.equal(again.status, 201, 'finished runs free their places');
      await followRun(playground, again.body.id as string);
    } finally {
      gated.release();
      await playground.close();
    }
  }
});

test('maxRuns must be a whole number 1 or more', async () => {
  for (const maxRuns of [0, -1, 1.5, Number.NaN, '2']) {
    await assert.rejects(
      startPlayground({ port: 0, maxRuns: maxRuns as number, runsDir: tempDir('taoloop-max-') }),
      /maxRuns must be a whole number 1 or more/,
    );
  }
});

test('taoloop serve --max-runs 1: a second run while one is in progress gets the 429', {
  timeout: 60_000,
}, async () => {
  // A model server that holds every model call until the test ends (a run in progress). It answers the
  // list of its models at once, as a real one does: the playground checks that before a run starts.
  const held: ServerResponse[] = [];
  let onRequest: () => void = () => {};
  const model = createServer((request, response) => {
    request.resume();
    if (request.method === 'GET' && request.url?.endsWith('/models')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"object":"list","data":[{"id":"m","object":"model"}]}');
      return;
    }
    held.push(response);
    onRequest();
  });
  await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
  const spec = `openai-compatible:http://127.0.0.1:${(model.address() as AddressInfo).port}/v1#m`;
  const fixture = fileURLToPath(new URL('./fixtures/serve-cli.ts', import.meta.url));
  const runsDir = tempDir('taoloop-serve-max-');
  const args = ['--import', 'tsx', fixture, 'serve', '--port', '0', '--runs-dir', runsDir, '-m', spec];
  const child = spawn(process.execPath, [...args, '--max-runs', '1'], { cwd: ROOT, env: cleanEnv() });
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', () => {
        const match = /taoloop playground: (http:\/\/\S+)/.exec(stdout);
        if (match?.[1]) resolve(match[1]);
      });
      child.on('close', () => reject(new Error('serve exited early')));
    });
    const origin = new URL(url).origin;
    const post = (question: string) =>
      fetch(`${origin}/api/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify({ question, model: spec }),
      });
    const asked = new Promise<void>((resolve) => (onRequest = resolve));
    assert.equal((await post('first?')).status, 201);
    await asked;
    const second = await post('second?');
    assert.equal(second.status, 429);
    assert.match(((await second.json()) as { error: string }).error, /^1 runs are already running/);
  } finally {
    child.kill('SIGINT');
    await exited;
    for (const response of held) response.destroy();
    await new Promise((resolve) => model.close(resolve));
  }
  const zero = spawn(process.execPath, [...args, '--max-runs', '0'], { cwd: ROOT, env: cleanEnv() });
  let stderr = '';
  zero.stderr.on('data', (d) => (stderr += d));
  assert.equal(await new Promise((resolve) => zero.on('close', resolve)), 2);
  assert.match(stderr, /expected a whole number ≥ 1/);
});
