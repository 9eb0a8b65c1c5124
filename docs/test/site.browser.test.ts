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
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { startStaticServer } from '../../test/helpers/static-server.js';
import { browserProblem, launchChromium } from '../../test/web/helpers.js';

const dist = fileURLToPath(new URL('../.vitepress/dist/', import.meta.url));
const skip = await browserProblem();

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
  let site: Awaited<ReturnType<typeof startStaticServer>> | undefined;
  let origin = '';
  before(async () => {
    assert.ok(existsSync(path.join(dist, 'index.html')), 'the site is not built: run `npm run docs` first');
    site = await startStaticServer(dist, { cleanUrls: true });
    origin = site.origin;
    ({ context, close: closeBrowser } = await launchChromium());
  });
  after(async () => {
    await closeBrowser?.();
    await site?.close();
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
