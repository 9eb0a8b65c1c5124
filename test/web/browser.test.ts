import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { tempDir } from '../helpers/temp.js';
import { browserProblem, launchChromium, startTestPlayground, type TestPlayground } from './helpers.js';
import { recordingPage } from './page-checks.js';

/** Why the browser tests are skipped here, or false (TAOLOOP_REQUIRE_BROWSER=1 turns a skip into a failure). */
const skip = await browserProblem();

/** The kinds of the trace blocks on the page, in order. */
function blockKinds(page: Page): Promise<string[]> {
  return page
    .locator('#trace .block')
    .evaluateAll((items) => items.map((item) => item.getAttribute('data-kind') ?? ''));
}

/** A page that records dialogs, script errors and console errors (`recordingPage`), opened at `url`. */
async function openPage(context: BrowserContext, url: string) {
  const { page, problems } = await recordingPage(context);
  await page.goto(url);
  await page.locator('#model option').first().waitFor({ state: 'attached' });
  return { page, problems };
}

describe('the playground in headless Chromium', { skip }, () => {
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  before(async () => {
    ({ context, close: closeBrowser } = await launchChromium());
  });
  after(() => closeBrowser?.());

  test('runs a question step by step, approves the write tool, shows the answer', async (t) => {
    const playground: TestPlayground = await startTestPlayground([
      'Let me think about the price first.',
      'Thought: I need the yearly price for 7 developers at $20 a month.\nAction: calculator[20 * 12 * 7]\nObservation: 9999',
      'Thought: I will save the total so the team can find it.\nAction: write_note[Brightgrid Pro, 7 developers: $1,680 per year]',
      'Thought: The note is saved and the total is known.\nAnswer: $1,680 per year',
    ]);
    t.after(() => playground.close());
    const { page, problems } = await openPage(context, playground.url);

    await page.getByLabel('Question').fill('How much does Brightgrid Pro cost per year for 7 developers?');
    await page.getByLabel('Model').selectOption('scripted');
    await page.getByLabel('fetch_page').uncheck();
    await page.locator('#max-steps').fill('5');
    assert.equal(await page.locator('#max-steps-value').textContent(), '5');
    await page.getByRole('button', { name: 'Run' }).click();

    const approve = page.getByRole('button', { name: 'Approve' });
    await page.locator('button.approve:enabled').waitFor();
    const dir = tempDir('taoloop-playground-');
    await page.screenshot({ path: path.join(dir, 'waiting-for-approval.png'), fullPage: true });
    assert.deepEqual(await blockKinds(page), [
      'format-error',
      'observation format-hint',
      'thought',
      'action',
      'dropped',
      'observation',
      'thought',
      'action',
      'approval',
    ]);
    assert.equal(await page.locator('.block.dropped .text').textContent(), 'Observation: 9999');
    assert.equal(await page.locator('.block.observation').nth(1).locator('.text').textContent(), '1680');
    assert.equal(
      await page.getByLabel(/^Input/).inputValue(),
      'Brightgrid Pro, 7 developers: $1,680 per year',
    );
    assert.deepEqual(playground.notes, [], 'nothing written before the approval');

    await approve.click();
    await page.locator('.block.answer').waitFor();
    await page.locator('.block.end').waitFor();
    assert.deepEqual((await blockKinds(page)).slice(9), ['observation', 'thought', 'answer', 'end answered']);
    assert.equal(await page.locator('.block.answer .text').textContent(), '$1,680 per year');
    assert.equal(await page.locator('.block.approval .decision').textContent(), 'Approved.');
    assert.deepEqual(playground.notes, ['Brightgrid Pro, 7 developers: $1,680 per year']);
    assert.equal(await page.locator('#count-steps').textContent(), '4');
    assert.equal(await page.locator('#count-tokens').textContent(), '600 (480 in, 120 out)');

    // The run is listed with the past runs, and its trace downloads as JSONL.
    await page.locator('#runs .run-link', { hasText: 'Brightgrid Pro cost per year' }).waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download trace (JSONL)' }).click(),
    ]);
    const jsonl = await readFile(await download.path(), 'utf8');
    assert.equal(JSON.parse(jsonl.split('\n')[0] ?? '').format, 'taoloop-trace');

    const screenshot = path.join(dir, 'answered.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    t.diagnostic(`screenshots: ${screenshot} and waiting-for-approval.png next to it`);

    // Opening the run again replays it from the start.
    await page.locator('#runs .run-link').first().click();
    await page.locator('.block.end').waitFor();
    assert.equal((await blockKinds(page)).length, 13);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('markup in tool output, thoughts and answers shows as text, never as HTML', async (t) => {
    const markup = '<script>alert(1)</script><img src=x onerror="window.__xss = 1; alert(2)">';
    const playground = await startTestPlayground([
      `Thought: Fetch the page <img src=x onerror="alert(3)">.\nAction: fetch_page[home]`,
      `Thought: It has markup.\nAnswer: ${markup}`,
    ]);
    t.after(() => playground.close());
    const { page, problems } = await openPage(context, playground.url);
    await page.getByLabel('Question').fill(`What is on <b>home</b>? ${markup}`);
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('.block.end').waitFor();
    await page.locator('#runs .run-link', { hasText: '<b>home</b>' }).waitFor();
    await page.waitForTimeout(200);

    const observation = await page.locator('.block.observation .text').textContent();
    assert.equal(
      observation,
      '<script>alert(1)</script><img src=x onerror="window.__xss = 1; alert(2)"> <b>bold?</b>',
    );
    assert.equal(await page.locator('.block.answer .text').textContent(), markup);
    assert.match(
      String(await page.locator('.block.thought').first().textContent()),
      /<img src=x onerror="alert\(3\)">/,
    );
    assert.equal(await page.locator('#run-title').textContent(), `What is on <b>home</b>? ${markup}`);
    assert.equal(await page.locator('main img, main b, main script').count(), 0, 'no element was created');
    assert.equal(await page.evaluate('window.__xss'), undefined);
    assert.deepEqual(problems, [], 'no dialog, no script error');
    await page.close();
  });
});
