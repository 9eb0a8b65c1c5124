/**
 * The playground with an in-page model (`taoloop serve --browser-model`): the tiny random-weight GGUF the
 * suite writes (scripts/make-tiny-gguf.ts) is offered as "<file> · runs in this page"; choosing it runs
 * the ReAct loop in headless Chromium (taoloop/browser and wllama served by the playground) and the page's
 * trace view renders its steps and end. The tiny model's text is noise: the test checks structure only.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext } from 'playwright-core';
import { ensureTinyGguf } from '../../scripts/make-tiny-gguf.js';
import { tempDir } from '../helpers/temp.js';
import { assertBuilt } from '../portable/helpers.js';
import { browserProblem, launchChromium, startTestPlayground } from './helpers.js';

const skip = await browserProblem();
const TOKEN = 'in-page-model-test-token';

describe('the playground runs the browser model in the page', { skip }, () => {
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  before(async () => {
    assertBuilt();
    ({ context, close: closeBrowser } = await launchChromium());
  });
  after(() => closeBrowser?.());

  test('the GGUF is in the model list; a run in the page ends with a status and rendered steps', async (t) => {
    const dir = tempDir('taoloop-in-page-');
    const gguf = ensureTinyGguf(path.join(dir, 'tiny.gguf'));
    const playground = await startTestPlayground([], {
      browserModel: gguf,
      browserDocuments: { 'pricing.md': 'Brightgrid Pro costs $20 per developer per month.' },
      token: TOKEN,
    });
    t.after(() => playground.close());

    // Only the allow-listed files are served; the model file and the documents keep the token guard.
    for (const [pathname, status] of [
      ['/api/browser-model.gguf', 401],
      ['/api/browser-documents', 401],
      ['/assets/..%2Fpackage.json', 401],
      ['/assets/chunk-..%2F..%2Fpackage.json', 401],
      ['/assets/browser/index.js', 200],
    ] as const)
      assert.equal((await fetch(`${playground.origin}${pathname}`)).status, status, pathname);
    // HEAD (wllama's question for a cached model's size) is guarded and answered as GET is.
    const head = (search: string) =>
      fetch(`${playground.origin}/api/browser-model.gguf${search}`, { method: 'HEAD' });
    assert.equal((await head('')).status, 401);
    assert.equal((await head(`?token=${TOKEN}`)).status, 200);
    const withToken = await fetch(`${playground.origin}/api/browser-model.gguf?token=${TOKEN}`);
    assert.equal(withToken.status, 200);
    assert.equal((await withToken.arrayBuffer()).byteLength > 0, true);

    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    await page.goto(playground.url);
    const option = page.locator('#model option[value="in-page"]');
    await option.waitFor({ state: 'attached' });
    assert.equal(await option.textContent(), 'tiny.gguf · runs in this page');

    await page.getByLabel('Question').fill('How much does Brightgrid Pro cost per year for 7 developers?');
    await page.getByLabel('Model').selectOption('in-page');
    // The write tool cannot run in the page: the run is refused before it starts.
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('#form-error').filter({ hasText: 'untick write_note, fetch_page' }).waitFor();
    await page.getByLabel('write_note').uncheck();
    await page.getByLabel('fetch_page').uncheck();
    await page.locator('#max-steps').fill('2');
    await page.getByRole('button', { name: 'Run' }).click();

    /** Waits for the run to end, then checks how it ended and what the page shows. */
    const checkRun = async () => {
      await page.locator('#trace .block.end, #trace .block.error').waitFor({ timeout: 120_000 });
      const status = await page.locator('#status').textContent();
      // A failure is said at the end of the trace (the status line says only how the run ended).
      const end = await page.locator('#trace .block.end, #trace .block.error').allTextContents();
      assert.doesNotMatch(status ?? '', /failed/, `${status}\n${end.join('\n')}\n${problems.join('\n')}`);
      assert.match(status ?? '', /^(Answered\.|No answer: .*)$/);
      assert.ok((await page.locator('#trace li.step').count()) >= 1, 'at least one step is rendered');
      assert.ok((await page.locator('#trace .block').count()) >= 1, 'the step has blocks');
      assert.equal(await page.locator('#stop').isHidden(), true);
      // Named as the picker names it; free, so no hint about prices.
      assert.match(
        String(await page.locator('#run-meta').textContent()),
        /^Model tiny\.gguf · runs in this page · /,
      );
      assert.equal(await page.locator('#count-cost').textContent(), 'free, runs in this page');
      assert.equal(await page.locator('#cost-help').isHidden(), true);
    };
    await checkRun();
    // Again: wllama has the model in its cache now and asks for its size with HEAD, which is answered
    // (a 404 there was a console error).
    await page.getByRole('button', { name: 'Run again', exact: true }).click();
    await page.locator('#trace .block.end, #trace .block.error').waitFor({ state: 'detached' });
    await checkRun();
    assert.deepEqual(problems, [], problems.join('\n'));
  });
});
