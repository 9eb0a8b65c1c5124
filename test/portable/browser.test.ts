/**
 * The portable core in headless Chromium: the built package bundled with esbuild for the browser runs the
 * Brightgrid run (scripted, then against a local OpenAI-compatible server) to the answer in a web page.
 * The page is served from 127.0.0.1, which also forwards `/v1/*` to the test server (same origin, as an
 * app's own backend or proxy would).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext } from 'playwright-core';
import { browserProblem, launchChromium } from '../web/helpers.js';
import {
  assertAnswered,
  bundleRun,
  type FakeOpenAI,
  type RunOutcome,
  startBrightgridServer,
} from './helpers.js';

const skip = await browserProblem();

const PAGE = `<!doctype html><meta charset="utf-8"><title>taoloop core</title>
<script type="module">
  import { run } from '/run.js';
  const base = new URLSearchParams(location.search).get('base');
  window.outcome = run(base ? new URL(base, location.href).href : undefined).then((o) => JSON.stringify(o));
</script>`;

describe('the core in headless Chromium', { skip }, () => {
  let model: FakeOpenAI;
  let site: Server;
  let origin: string;
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  before(async () => {
    model = await startBrightgridServer();
    const script = await bundleRun('esm');
    site = createServer(async (request, response) => {
      const url = request.url ?? '/';
      if (url.startsWith('/v1/')) {
        const chunks: Buffer[] = [];
        for await (const chunk of request) chunks.push(chunk as Buffer);
        const upstream = await fetch(new URL(url, model.baseURL), {
          method: request.method ?? 'POST',
          headers: { 'content-type': request.headers['content-type'] ?? 'application/json' },
          body: Buffer.concat(chunks),
        });
        response.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? '' });
        response.end(Buffer.from(await upstream.arrayBuffer()));
        return;
      }
      const body = url === '/run.js' ? script : PAGE;
      const type = url === '/run.js' ? 'text/javascript' : 'text/html';
      response.writeHead(200, { 'content-type': `${type}; charset=utf-8` }).end(body);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    ({ context, close: closeBrowser } = await launchChromium());
  });
  after(async () => {
    await closeBrowser?.();
    site?.closeAllConnections();
    site?.close();
    await model?.close();
  });

  async function runInPage(query = ''): Promise<RunOutcome> {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    try {
      await page.goto(`${origin}/${query}`);
      await page.waitForFunction(() => 'outcome' in globalThis, undefined, { timeout: 30_000 });
      const outcome = JSON.parse(
        await page.evaluate(() => (globalThis as unknown as { outcome: Promise<string> }).outcome),
      );
      assert.deepEqual(errors, []);
      return outcome as RunOutcome;
    } finally {
      await page.close();
    }
  }

  test('the scripted run reaches the answer in the page', async () => {
    const outcome = await runInPage();
    assertAnswered(outcome);
    assert.equal(outcome.modelId, 'scripted');
  });

  test('the same run against a local OpenAI-compatible server, over the page fetch', async () => {
    const before = model.requests.length;
    const outcome = await runInPage('?base=/v1');
    assertAnswered(outcome);
    assert.equal(model.requests.length - before, 3);
  });
});
