/**
 * The example page examples/browser/ (the ReAct loop in the page) in headless Chromium, at 1280x800 and
 * 390x844, light and dark, on a plain static file server over the repository: a 4,000-character token in
 * the model's text never widens the page, Stop aborts the run (its AbortController's signal is the run's),
 * each step shows as its Thought, Action or Answer, and Observation, and axe-core finds no serious or
 * critical violation. The model is scripted (the page's `browserModel` is replaced; everything else is the
 * built `taoloop/browser`): the real one is tested with the tiny GGUF in test/portable/browser-model.test.ts.
 * Screenshots go to test-output/browser-example/ (ignored by git).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { startStaticServer } from '../helpers/static-server.js';
import { assertBuilt, ROOT } from '../portable/helpers.js';
import { browserProblem, launchChromium } from './helpers.js';
import { checkState as checkPage, focused, recordingPage, SIZES, sidewaysScroll } from './page-checks.js';

const skip = await browserProblem();
const SCREENSHOTS = path.resolve(import.meta.dirname, '../../test-output/browser-example');
/** Generous: the machine may be busy. */
const TIMEOUT = { timeout: 60_000 };
const TOKEN = 'Z'.repeat(4000);

/**
 * Stands in for the built `taoloop/browser` (`/dist/browser/index.js`): the real bundle (served again
 * under `?real`) but `browserModel`, a scripted model chosen by the model URL: `long` writes the token in
 * its thought and its answer; `slow` writes a few words, then waits until the run's signal aborts it.
 */
const LIB = `
export * from './index.js?real';
const TOKEN = 'Z'.repeat(4000);
export async function browserModel(options) {
  options.onProgress?.({ loadedBytes: 1, totalBytes: 1 });
  const slow = options.model.includes('slow');
  const turns = ['Thought: ' + TOKEN + '\\nAction: calculator[2 + 2]', 'Thought: Done.\\nAnswer: ' + TOKEN];
  let call = 0;
  const usage = { inputTokens: 50, outputTokens: 10 };
  return {
    id: slow ? 'browser:slow.gguf' : 'browser:long.gguf',
    contextWindowTokens: 4096,
    async generate() {
      return { text: turns[Math.min(call++, 1)], usage, finishReason: 'stop' };
    },
    async *stream(request) {
      if (!slow) {
        yield { type: 'text-delta', text: turns[Math.min(call++, 1)] };
        yield { type: 'finish', usage, finishReason: 'stop' };
        return;
      }
      yield { type: 'text-delta', text: 'Thought: I am thinking it over, slowly' };
      window.__waiting = true;
      await new Promise((_, reject) => {
        const abort = () => reject(request.signal.reason);
        if (request.signal.aborted) abort();
        else request.signal.addEventListener('abort', abort, { once: true });
      });
    },
    async dispose() {},
  };
}
`;

/** The example page, with the scripted `browserModel`, recording script and console errors. */
async function openExample(context: BrowserContext, origin: string) {
  const { page, problems } = await recordingPage(context);
  await page.route(
    (url) => url.pathname === '/dist/browser/index.js' && url.search === '',
    (route) => route.fulfill({ contentType: 'text/javascript; charset=utf-8', body: LIB }),
  );
  await page.goto(`${origin}/examples/browser/`);
  return { page, problems };
}

/** Runs the example with model URL `model` (the scripted model's choice). */
async function run(page: Page, model: string): Promise<void> {
  await page.getByLabel(/GGUF model URL/).fill(model);
  await page.getByRole('button', { name: 'Run' }).click();
}

describe('the example page examples/browser', { skip }, () => {
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let site: Awaited<ReturnType<typeof startStaticServer>>;
  before(async () => {
    assertBuilt();
    site = await startStaticServer(ROOT);
    ({ context, close: closeBrowser } = await launchChromium());
  });
  after(async () => {
    await closeBrowser?.();
    await site?.close();
  });

  test('structured steps; a 4,000-character token never widens the page; no axe violation', async () => {
    const { page, problems } = await openExample(context, site.origin);
    await checkPage(page, 'empty', SCREENSHOTS);
    await run(page, '/models/long.gguf');
    const status = page.locator('#status[data-status]');
    await status.waitFor(TIMEOUT);
    assert.equal(await status.getAttribute('data-status'), 'answered', String(await status.textContent()));
    assert.equal(await status.textContent(), `Run ended: answered: ${TOKEN}`);

    // Each step an <article> named after it: Thought, then Action or Answer, then Observation.
    const steps = page.locator('#steps > li > article');
    assert.equal(await steps.count(), 2);
    assert.equal(await steps.nth(0).getAttribute('aria-label'), 'Step 1');
    const parts = (step: number) =>
      steps
        .nth(step)
        .locator('.part')
        .evaluateAll((items) => items.map((item) => item.className));
    assert.deepEqual(await parts(0), ['part thought', 'part action', 'part observation']);
    assert.deepEqual(await parts(1), ['part thought', 'part answer']);
    assert.equal(await steps.nth(0).locator('.observation .text').textContent(), '4');
    // The step reads as the model's turn and its observation (what test/portable checks of a real run).
    assert.match(
      String(await page.locator('#steps li').first().textContent()),
      /^Thought: Z+\nAction: .*\nObservation: 4$/,
    );

    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      const { scrollWidth, innerWidth } = await sidewaysScroll(page);
      assert.ok(scrollWidth <= innerWidth, `${size.name}: scrolls sideways (${scrollWidth} > ${innerWidth})`);
    }
    await checkPage(page, 'answered-long-token', SCREENSHOTS);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('Stop aborts the run through its signal; the unfinished turn stays', async () => {
    const { page, problems } = await openExample(context, site.origin);
    await run(page, '/models/slow.gguf');
    await page.locator('.part.writing .text', { hasText: 'slowly' }).waitFor(TIMEOUT);
    await page.waitForFunction('window.__waiting === true', undefined, TIMEOUT);
    assert.equal(await page.getByRole('button', { name: 'Run' }).isDisabled(), true);
    await checkPage(page, 'running', SCREENSHOTS);
    const stop = page.getByRole('button', { name: 'Stop' });
    await stop.click();
    const status = page.locator('#status[data-status]');
    await status.waitFor(TIMEOUT);
    assert.equal(await status.getAttribute('data-status'), 'aborted', String(await status.textContent()));
    assert.match(String(await status.textContent()), /^Run ended: aborted \(.*stopped from the page\.?\)$/);
    assert.equal(
      await page.locator('.part.unfinished .text').textContent(),
      'Thought: I am thinking it over, slowly',
    );
    assert.equal(await stop.isDisabled(), true);
    assert.equal(await page.getByRole('button', { name: 'Run' }).isEnabled(), true);
    assert.equal(await focused(page), 'status', 'focus leaves the disabled Stop for how the run ended');
    await checkPage(page, 'stopped', SCREENSHOTS);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
