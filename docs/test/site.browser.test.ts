/**
 * The built documentation site in headless Chromium: the home page, a guide, an API page, and the local
 * search (VitePress's MiniSearch, in the page: no service). Run by `npm run docs:check` after `npm run docs`
 * has built `docs/.vitepress/dist`; it fails, not skips, when the site is not built.
 *
 * The site is served by a small static server on 127.0.0.1 that resolves clean URLs as VitePress's own
 * preview does (`/guide/tools` → `guide/tools.html`).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { browserProblem, launchChromium } from '../../test/web/helpers.js';

const dist = fileURLToPath(new URL('../.vitepress/dist/', import.meta.url));
const skip = await browserProblem();

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
};

/** Serves `dist` on 127.0.0.1: a path, else the path + `.html`, else its `index.html`; 404 otherwise. */
async function serveSite(): Promise<{ server: Server; origin: string }> {
  const server = createServer(async (request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    const file = path.join(dist, pathname);
    const candidates = [file, `${file}.html`, path.join(file, 'index.html')];
    for (const candidate of candidates) {
      if (!candidate.startsWith(dist)) break;
      try {
        const body = await readFile(candidate);
        response.writeHead(200, {
          'content-type': TYPES[path.extname(candidate)] ?? 'application/octet-stream',
        });
        response.end(body);
        return;
      } catch {
        // try the next form
      }
    }
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Opens a page and collects script errors and failed requests. */
async function open(context: BrowserContext, url: string): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
  });
  await page.goto(url);
  return { page, problems };
}

describe('the documentation site in headless Chromium', { skip }, () => {
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let server: Server | undefined;
  let origin = '';
  before(async () => {
    assert.ok(existsSync(path.join(dist, 'index.html')), 'the site is not built: run `npm run docs` first');
    ({ server, origin } = await serveSite());
    ({ context, close: closeBrowser } = await launchChromium());
  });
  after(async () => {
    await closeBrowser?.();
    server?.close();
  });

  test('the home page links to the guide and the API reference', async () => {
    const { page, problems } = await open(context, `${origin}/`);
    await page
      .getByRole('link', { name: /get(ting)? started/i })
      .first()
      .waitFor();
    assert.ok(await page.locator('a[href*="/api/"]').count(), 'no link to the API reference');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a guide shows a checked code block and its sidebar', async () => {
    const { page, problems } = await open(context, `${origin}/guide/getting-started`);
    await page.locator('h1').first().waitFor();
    assert.match((await page.locator('h1').first().textContent()) ?? '', /\S/);
    assert.ok(await page.locator('div[class*="language-ts"]').count(), 'no TypeScript block on the page');
    assert.ok(await page.locator('.VPSidebar a[href*="/guide/tools"]').count(), 'no sidebar link to Tools');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('an API page documents runAgent', async () => {
    const { page, problems } = await open(context, `${origin}/api/taoloop/functions/runAgent`);
    await page.locator('h1').first().waitFor();
    assert.match((await page.locator('h1').first().textContent()) ?? '', /runAgent/);
    assert.match((await page.locator('main').textContent()) ?? '', /RunResult/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the local search finds a guide by a word in it', async () => {
    const { page, problems } = await open(context, `${origin}/`);
    await page.locator('button.DocSearch, #local-search button, .VPNavBarSearch button').first().click();
    const input = page.locator('input.search-input, #localsearch-input, input[type="search"]').first();
    await input.waitFor();
    await input.fill('approval');
    const first = page.locator('.result, ul.results li a').first();
    await first.waitFor({ timeout: 30_000 });
    assert.match((await first.textContent()) ?? '', /approv/i);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
