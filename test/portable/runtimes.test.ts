/**
 * The portable core in each runtime: the same scripted ReAct run (search and calculator over the
 * Brightgrid documents passed as strings) reaches the answer in Node 20, Deno, Bun, Cloudflare's workerd
 * and Vercel's edge runtime, and then the same run against a local OpenAI-compatible server on 127.0.0.1
 * (the AI SDK adapter over each runtime's `fetch`). Node, Deno and Bun load the built package from
 * node_modules as it is; workerd and the edge runtime get one bundled script. The runtimes are exact-pinned
 * devDependencies whose binaries come from npm (no install script needed: their bin shims find the
 * platform package). Headless Chromium is in `browser.test.ts`.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  assertAnswered,
  assertBuilt,
  BIN,
  brightgridDocuments,
  bundleRun,
  type FakeOpenAI,
  lastJsonLine,
  type RunOutcome,
  runBinary,
  startBrightgridServer,
} from './helpers.js';

const DIRECT_RUN = fileURLToPath(new URL('./fixtures/direct-run.mjs', import.meta.url));

let server: FakeOpenAI;
let documentsJson: string;
before(async () => {
  assertBuilt();
  documentsJson = JSON.stringify(await brightgridDocuments());
  server = await startBrightgridServer();
});
after(() => server?.close());

/** How each runtime that loads files runs `direct-run.mjs`. */
const DIRECT: Record<string, (args: string[]) => [string, string[]]> = {
  'Node 20': (args) => [process.execPath, [DIRECT_RUN, ...args]],
  // Read access to the repository, network to 127.0.0.1, the host name; nothing else (no prompts).
  Deno: (args) => [
    path.join(BIN, 'deno'),
    [
      'run',
      '--no-prompt',
      '--allow-read=.',
      '--allow-net=127.0.0.1',
      // The AI SDK's gateway package (loaded with `ai`) reads the host name when it is imported.
      '--allow-sys=hostname',
      DIRECT_RUN,
      ...args,
    ],
  ],
  Bun: (args) => [path.join(BIN, 'bun'), [DIRECT_RUN, ...args]],
};

for (const [runtime, command] of Object.entries(DIRECT)) {
  describe(runtime, () => {
    test('the scripted run reaches the answer', async () => {
      const [file, args] = command([documentsJson]);
      const outcome = lastJsonLine(await runBinary(file, args, { env: quietEnv() }));
      assertAnswered(outcome);
      assert.equal(outcome.modelId, 'scripted');
    });

    test('the same run against a local OpenAI-compatible server', async () => {
      const before = server.requests.length;
      const [file, args] = command([documentsJson, server.baseURL]);
      const outcome = lastJsonLine(await runBinary(file, args, { env: quietEnv() }));
      assertAnswered(outcome);
      assert.match(outcome.modelId, /^openai-compatible:/);
      assert.equal(server.requests.length - before, 3, 'three model calls over HTTP');
    });
  });
}

describe("Vercel's edge runtime", () => {
  test('the scripted run, then the run against a local server, reach the answer', async () => {
    const { EdgeRuntime } = await import('edge-runtime');
    const runtime = new EdgeRuntime({ initialCode: await bundleRun('iife') });
    const run = async (baseURL?: string): Promise<RunOutcome> =>
      JSON.parse(
        await runtime.evaluate<Promise<string>>(
          `brightgrid.run(${JSON.stringify(baseURL)}).then((outcome) => JSON.stringify(outcome))`,
        ),
      );
    assertAnswered(await run());
    const before = server.requests.length;
    const outcome = await run(server.baseURL);
    assertAnswered(outcome);
    assert.equal(server.requests.length - before, 3);
  });
});

describe("Cloudflare's workerd", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'taoloop-workerd-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('a worker runs the scripted run, then the run against a local server, to the answer', async (t) => {
    const port = await freePort();
    await writeFile(path.join(dir, 'worker.js'), `${await bundleRun('esm')}\n${WORKER_FETCH}`);
    await writeFile(path.join(dir, 'config.capnp'), workerdConfig(port));
    const child = (await import('node:child_process')).spawn(
      path.join(BIN, 'workerd'),
      ['serve', 'config.capnp'],
      {
        cwd: dir,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    t.after(() => child.kill('SIGKILL'));
    const url = `http://127.0.0.1:${port}/`;
    await waitForServer(url, () => stderr);
    const scripted = (await (await fetch(url)).json()) as RunOutcome;
    assertAnswered(scripted);
    const before = server.requests.length;
    const overHttp = (await (
      await fetch(`${url}?base=${encodeURIComponent(server.baseURL)}`)
    ).json()) as RunOutcome;
    assertAnswered(overHttp);
    assert.equal(server.requests.length - before, 3);
  });
});

/** The worker's entry, appended to the bundle: `GET /?base=<url>` runs against that server. */
const WORKER_FETCH = `export default {
  async fetch(request) {
    const base = new URL(request.url).searchParams.get('base') ?? undefined;
    try {
      return Response.json(await run(base));
    } catch (error) {
      return Response.json({ status: 'thrown', error: String(error && error.stack || error), observations: [] });
    }
  },
};`;

/** One worker on 127.0.0.1:<port>; its fetch may reach loopback addresses (the local test server). */
function workerdConfig(port: number): string {
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "loopback", network = (allow = ["local", "private"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "2025-09-01",
  globalOutbound = "loopback",
);
`;
}

/** A port free right now on 127.0.0.1 (workerd takes a fixed address in its config). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function waitForServer(url: string, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      await fetch(`${url}health-check-that-runs-nothing`, {
        method: 'HEAD',
        signal: AbortSignal.timeout(1000),
      });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(`workerd did not start within 30 s:\n${stderr()}`);
}

/** Without colours or update checks, so the outcome line is plain JSON. */
function quietEnv(): NodeJS.ProcessEnv {
  return { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1', BUN_DISABLE_TELEMETRY: '1' };
}
