/**
 * Fixes from a review of the playground in headless Chromium (issue 31, items 3 and 5), each checked at
 * 1280x800 and 390x844, light and dark, with axe-core (no serious or critical violation) and no sideways
 * scroll, screenshots in test-output/playground-fixes/ (ignored by git):
 * - a run the in-page model refuses says why beside Run, scrolled into view, focused, as an alert;
 * - the in-page model costs nothing (no `--price` hint), and its file answers `HEAD` (no console error);
 * - one name for the model: the picker's, in the run's details and the past runs;
 * - a long observation is folded to its first line and length;
 * - the inspector's scrolling boxes are reached with the keyboard and named;
 * - a dead model's error is said once, the run ends clearly, and the page says what to do.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { resolveModelSpec } from '../../src/node/resolve-model.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import { defineTool } from '../../src/tools/define.js';
import type { Tool, ToolEffects } from '../../src/tools/types.js';
import { readTrace } from '../../src/trace/trace.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { closedPort } from '../helpers/ports.js';
import { tempDir } from '../helpers/temp.js';
import { assertBuilt } from '../portable/helpers.js';
import { browserProblem, launchChromium, rawRequest, startTestPlayground } from './helpers.js';
import { checkState as checkPage, focused, openPlayground, SIZES, waitFor } from './page-checks.js';

const skip = await browserProblem();
const SCREENSHOTS = path.resolve(import.meta.dirname, '../../test-output/playground-fixes');
/** Generous: the machine may be busy. */
const TIMEOUT = { timeout: 60_000 };

function checkState(page: Page, state: string): Promise<void> {
  return checkPage(page, state, SCREENSHOTS);
}

/** A tool that returns `output`, described at some length (a real form has several such tools). */
function tool(name: string, effects: ToolEffects, output = 'done'): Tool {
  return defineTool({
    name,
    description: `${name.replace('_', ' ')}: a tool the agent may call. Input: what to ${name.split('_')[0]}. It returns the result as text, which the model reads as its next observation.`,
    input: 'text',
    effects,
    run: () => output,
  });
}

/** The tools `taoloop serve` offers with a project folder: more than the in-page model can run. */
const MANY_TOOLS: Tool[] = [
  calculator,
  tool('search', 'read'),
  tool('read_file', 'read'),
  tool('run_tests', 'external'),
  tool('lookup', 'read'),
  tool('fetch_page', 'external'),
  tool('write_note', 'write'),
];

/**
 * Stands in for `/assets/browser/index.js` (the built `taoloop/browser`): everything is the real bundle's
 * (served by the playground under `?real`) but `browserModel`, a scripted model that first asks for the
 * GGUF's size with `HEAD`, as wllama does for a model it has cached.
 */
const IN_PAGE_LIB = `
export * from '/assets/browser/index.js?real';
export async function browserModel(options) {
  const head = await fetch(options.model, { method: 'HEAD' });
  if (!head.ok) throw new Error('HEAD ' + options.model + ': HTTP ' + head.status);
  options.onProgress?.({ loadedBytes: 1, totalBytes: 1 });
  const turns = ['Thought: I add them.\\nAction: calculator[2 + 2]', 'Thought: I know it now.\\nAnswer: 4'];
  let call = 0;
  return {
    id: 'browser:tiny.gguf',
    contextWindowTokens: 4096,
    async generate() {
      const text = turns[Math.min(call++, turns.length - 1)];
      return { text, usage: { inputTokens: 50, outputTokens: 10 }, finishReason: 'stop' };
    },
    async dispose() {},
  };
}
`;

/** The element's box against the window: whether all of it is in view. */
async function inView(page: Page, selector: string): Promise<boolean> {
  return (await page.evaluate(`(() => {
    const box = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect();
    return box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight;
  })()`)) as boolean;
}

/** How many times `text` is on the page (its visible text). */
async function timesShown(page: Page, text: string): Promise<number> {
  const all = (await page.evaluate('document.body.innerText')) as string;
  return all.split(text).length - 1;
}

describe('the playground fixes of issue 31', { skip }, () => {
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  before(async () => {
    assertBuilt();
    ({ context, close: closeBrowser } = await launchChromium());
  });
  after(() => closeBrowser?.());

  test('the in-page model: a refusal beside Run, in view and focused; free; its file answers HEAD', async (t) => {
    const dir = tempDir('taoloop-fixes-');
    const gguf = path.join(dir, 'tiny.gguf');
    writeFileSync(gguf, 'GGUF: the page never loads it (the test stands in for browserModel)');
    const playground = await startTestPlayground([], {
      tools: MANY_TOOLS,
      browserModel: gguf,
      browserDocuments: { 'pricing.md': 'Brightgrid Pro costs $20 per developer per month.' },
    });
    t.after(() => playground.close());

    // HEAD answers as GET does, without the body: the page, its assets and the GGUF.
    for (const pathname of [
      '/',
      '/app.js',
      '/app.css',
      '/assets/browser/index.js',
      '/api/browser-model.gguf',
    ]) {
      const head = await rawRequest(`${playground.origin}${pathname}`, { method: 'HEAD' });
      const get = await rawRequest(`${playground.origin}${pathname}`);
      assert.equal(head.status, 200, `HEAD ${pathname}`);
      assert.equal(head.body, '', `HEAD ${pathname} has no body`);
      assert.equal(head.headers['content-length'], get.headers['content-length'], pathname);
      assert.equal(head.headers['content-type'], get.headers['content-type'], pathname);
    }
    assert.equal((await rawRequest(`${playground.origin}/api/runs`, { method: 'HEAD' })).status, 404);

    for (const size of SIZES) {
      const { page, problems } = await openPlayground(context, playground.url);
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.route(
        (url) => url.pathname === '/assets/browser/index.js' && url.search === '',
        (route) => route.fulfill({ contentType: 'text/javascript; charset=utf-8', body: IN_PAGE_LIB }),
      );
      await page.getByLabel('Model').selectOption('in-page');
      await page.getByLabel('Question').fill('What is 2 + 2?');
      assert.equal(await inView(page, '#start'), false, `${size.name}: Run is below the fold`);
      await page.getByLabel('Question').press('Control+Enter');

      const error = page.locator('#form-error');
      await error
        .filter({ hasText: 'untick read_file, run_tests, lookup, fetch_page, write_note' })
        .waitFor(TIMEOUT);
      assert.equal(await error.getAttribute('role'), 'alert');
      assert.equal(await focused(page), 'form-error', `${size.name}: focus moves to the reason`);
      assert.equal(await inView(page, '#form-error'), true, `${size.name}: the reason is in view`);
      assert.equal(await page.getByLabel('run_tests').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.getByLabel('calculator').getAttribute('aria-invalid'), null);
      assert.equal(await page.locator('.block').count(), 0, 'no run started');
      if (size.name === 'desktop') await checkState(page, 'in-page-refused');

      // Unticked, the run goes ahead in the page; the marks go.
      for (const name of ['read_file', 'run_tests', 'lookup', 'fetch_page', 'write_note'])
        await page.getByLabel(name).uncheck();
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.locator('.block.end.answered').waitFor(TIMEOUT);
      assert.equal(await error.textContent(), '');
      assert.equal(await page.locator('#tools input[aria-invalid]').count(), 0);
      assert.equal(
        await page.locator('#run-meta').textContent(),
        'Model tiny.gguf · runs in this page · tools: calculator, search',
        'named as the picker names it',
      );
      assert.equal(await page.locator('#count-cost').textContent(), 'free, runs in this page');
      assert.equal(await page.locator('#cost-help').isHidden(), true, 'no --price hint for a free model');
      assert.equal(await page.locator('#count-tokens').textContent(), '120 (100 in, 20 out)');
      if (size.name === 'desktop') await checkState(page, 'in-page-answered');
      assert.deepEqual(problems, [], 'no console error (the HEAD of the model file is answered)');
      await page.close();
    }
  });

  test('one model name; a long observation folded; the inspector reached by keyboard', async (t) => {
    const spec = 'openai-compatible:http://127.0.0.1:9/v1#qwen2.5-7b';
    const label = 'qwen2.5-7b · 127.0.0.1:9';
    const token = 'x'.repeat(4000);
    const page1 = `Brightgrid pricing, all plans\n${'Pro: $20 per developer per month. '.repeat(30)}\n${token}`;
    const playground = await startTestPlayground([], {
      models: [spec],
      tools: [calculator, tool('read_page', 'read', page1)],
      // The model's own id (`scripted`) is not how the page names it.
      createModel: async () =>
        scriptedModel(
          [
            'Thought: I read the pricing page.\nAction: read_page[pricing]',
            'Thought: Pro is $20 a month.\nAnswer: $20 per developer per month',
          ],
          { usage: { inputTokens: 120, outputTokens: 30 } },
        ),
    });
    t.after(() => playground.close());
    const { page, problems } = await openPlayground(context, playground.url);
    assert.deepEqual(await page.locator('#model option').allTextContents(), [label]);
    await page.getByLabel('Question').fill('How much is Brightgrid Pro?');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('.block.end.answered').waitFor(TIMEOUT);

    assert.equal(
      await page.locator('#run-meta').textContent(),
      `Model ${label} · tools: calculator, read_page`,
    );
    await page.locator('#runs li .meta', { hasText: label }).waitFor(TIMEOUT);
    assert.match(
      String(await page.locator('#cost-help').textContent()),
      new RegExp(`no price for ${label}\\.`),
    );
    assert.equal(await timesShown(page, 'scripted'), 0, 'the model is never named by its id');

    // The observation is folded: its first line and its length, the whole text when opened.
    const observation = page.locator('.block.observation');
    const folded = observation.locator('details.folded');
    assert.equal(await folded.count(), 1);
    assert.equal(await folded.getAttribute('open'), null);
    const summary = String(await folded.locator('summary').textContent());
    const length = /^Brightgrid pricing, all plans \(([\d,]+) characters\)$/.exec(summary)?.[1];
    assert.ok(length, summary);
    assert.equal(await folded.locator('.text').isVisible(), false);
    await checkState(page, 'observation-folded');
    await folded.locator('summary').click();
    const whole = String(await folded.locator('.text').textContent());
    assert.equal(whole.length.toLocaleString('en'), length);
    assert.match(whole, /^\[tool output\]\nBrightgrid pricing, all plans\nPro: \$20/);
    assert.equal(await folded.locator('.text').isVisible(), true);
    // Short observations stay as they are.
    assert.equal(await page.locator('.block.observation').count(), 1);

    // The inspector: every scrolling box is focusable and named; Tab from its summary reaches the first.
    const inspector = page.locator('.step[data-step="1"] .inspector');
    await inspector.locator('summary').click();
    const boxes = await inspector
      .locator('pre')
      .evaluateAll((pres) =>
        pres.map((pre) => [
          pre.getAttribute('tabindex'),
          pre.getAttribute('role'),
          pre.getAttribute('aria-label'),
        ]),
      );
    assert.ok(boxes.length >= 5, `${boxes.length} boxes`);
    for (const [tabindex, role, name] of boxes) {
      assert.equal(tabindex, '0');
      assert.equal(role, 'group');
      assert.match(String(name), /step 1/);
    }
    await inspector.locator('summary').focus();
    await page.keyboard.press('Tab');
    assert.equal(
      await page.evaluate('document.activeElement.getAttribute("aria-label")'),
      'System prompt, step 1',
    );
    await checkState(page, 'observation-open-inspector-open');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a dead model: its error said once, the run ended, what to do', async (t) => {
    const port = await closedPort();
    const spec = `openai-compatible:http://127.0.0.1:${port}/v1#qwen2.5-7b`;
    const playground = await startTestPlayground([], {
      models: [spec],
      createModel: (given) => resolveModelSpec(given, {}),
    });
    t.after(() => playground.close());
    const { page, problems } = await openPlayground(context, playground.url);
    await page.getByLabel('Question').fill('2 + 2?');
    await page.getByRole('button', { name: 'Run' }).click();
    const end = page.locator('.block.end');
    await end.waitFor(TIMEOUT);
    const id = /#\/runs\/(.+)$/.exec(page.url())?.[1];
    const error = readTrace(path.join(playground.runsDir, `${id}.jsonl`)).result?.error ?? '';
    assert.ok(error.length > 0, 'the run failed with an error');

    assert.equal(await timesShown(page, error), 1, `said once: ${error}`);
    assert.equal(await end.locator('.label').textContent(), 'Run failed');
    const text = String(await end.locator('.text').textContent());
    assert.ok(text.startsWith('No answer: the run failed. '), text);
    // A full stop after the error, then what to do.
    assert.match(text, /\.\nWhat to do: check that the model's server is running.*pick another model/);
    assert.match(text, /\d+ model turns? in \d+\.\d s\.$/);
    assert.match(
      String(await page.locator('#status').textContent()),
      /^No answer: the run failed\. 0 model turns in/,
    );
    assert.equal(await page.locator('#trace .step').count(), 0, 'no empty step is left');
    assert.equal(await focused(page), 'block end error', 'focus moves to the end of the run');
    assert.equal(await page.locator('#stop').isHidden(), true);
    assert.equal(await page.locator('#start').isEnabled(), true);
    await checkState(page, 'dead-model');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a model call retried after the same error says it once, then 'the same error'", async (t) => {
    const server = await startFakeOpenAI({
      replies: ['Thought: easy.\nAnswer: 4'],
      failFirst: { count: 3, status: 503, message: 'overloaded', headers: { 'retry-after-ms': '100' } },
    });
    t.after(() => server.close());
    const playground = await startTestPlayground([], {
      createModel: () => resolveModelSpec(`openai-compatible:${server.baseURL}#m`, {}),
    });
    t.after(() => playground.close());
    const { page, problems } = await openPlayground(context, playground.url);
    await page.getByLabel('Question').fill('2 + 2?');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('.block.end').waitFor(TIMEOUT);
    const retries = await page.locator('.block.retry .text').allTextContents();
    assert.equal(retries.length, 2, retries.join('\n'));
    assert.match(retries[0] ?? '', /^The model call failed: HTTP 503/);
    assert.match(retries[1] ?? '', /^The model call failed again, with the same error\. Trying again/);
    assert.match(String(await page.locator('.block.end .text').textContent()), /\nWhat to do: /);
    await waitFor(
      'the end of the run on the status line',
      async () =>
        /^No answer: the run failed\./.test(String(await page.locator('#status').textContent())) || undefined,
    );
    assert.deepEqual(problems, []);
    await page.close();
  });
});
