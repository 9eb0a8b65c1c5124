/**
 * What the peer studios have, in the playground page (issue 31, items 6 to 8), in headless Chromium at
 * 1280x800 and 390x844, light and dark: no sideways scroll, no serious or critical axe-core violation in
 * each new state, a screenshot of each into $TAOLOOP_SHOTS (default test-output/playground-peers/):
 * - answers as Markdown, with markup in them shown as text (no element, no script, no `javascript:` link);
 *   the instructions and temperature of a run, its whole system prompt; a model that does not answer said
 *   beside Run before anything starts;
 * - past runs searched, filtered by status and model, deleted after a confirmation;
 * - "Run on both" and two past runs compared side by side; "Save as test" writing a fixture that
 *   `checkTraceFile` replays as recorded;
 * - "Fork from here": the dialog, the fork run with its link to the parent, no write tool run again.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { checkTraceFile } from '../../src/eval/trace-files.js';
import type { Model } from '../../src/models/types.js';
import { type ScriptedTurn, scriptedModel } from '../../src/testing/scripted-model.js';
import { closedPort } from '../helpers/ports.js';
import { tempDir } from '../helpers/temp.js';
import { browserProblem, launchChromium, startTestPlayground, testTools } from './helpers.js';
import { checkState as checkPage, focused, openPlayground, waitFor } from './page-checks.js';

const skip = await browserProblem();
const SHOTS =
  process.env.TAOLOOP_SHOTS ?? path.resolve(import.meta.dirname, '../../test-output/playground-peers');
/** Generous: the machine may be busy. */
const TIMEOUT = { timeout: 60_000 };

function checkState(page: Page, state: string): Promise<void> {
  return checkPage(page, state, SHOTS);
}

/** An answer in Markdown, with the markup a model might write (or be tricked into writing). */
const MARKDOWN_ANSWER = [
  'Brightgrid Pro costs **$1,680** per year for 7 developers.',
  '',
  '- $20 per developer per month',
  '- 12 months, *7 developers*',
  '',
  '| plan | per year |',
  '| --- | --- |',
  '| Pro | `$1,680` |',
  '',
  'See [the pricing page](https://example.com/pricing) or [this](javascript:alert(1)).',
  '<img src=x onerror="window.__xss = 1"> <script>window.__xss = 2</script>',
].join('\n');

/**
 * Models by spec, each run getting the next script of its spec: `scripted` and `other` (a second model to
 * compare with). A spec without scripts left answers "no more".
 */
function models(scripts: Record<string, ScriptedTurn[][]>) {
  const used: Record<string, number> = {};
  const made: ReturnType<typeof scriptedModel>[] = [];
  const createModel = async (spec: string): Promise<Model> => {
    const n = used[spec] ?? 0;
    used[spec] = n + 1;
    const model = scriptedModel(scripts[spec]?.[n] ?? ['Thought: nothing left.\nAnswer: no more'], {
      id: spec,
      usage: { inputTokens: 120, outputTokens: 30 },
    });
    made.push(model);
    return model;
  };
  return { createModel, made };
}

/** Asks `question` with the form and waits for the run's end. */
async function ask(page: Page, question: string) {
  await page.getByLabel('Question').fill(question);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.locator('.block.end').waitFor(TIMEOUT);
}

describe('the playground: what learners and app builders use (issue 31, items 6-8)', { skip }, () => {
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  before(async () => {
    ({ context, close: closeBrowser } = await launchChromium());
  });
  after(() => closeBrowser?.());

  test('Markdown answers; instructions, temperature, the system prompt; a model that does not answer', async (t) => {
    const dead = `openai-compatible:http://127.0.0.1:${await closedPort()}/v1#qwen-dead`;
    const { createModel, made } = models({
      scripted: [['Thought: I know the price.\nAnswer: placeholder'.replace('placeholder', MARKDOWN_ANSWER)]],
    });
    const playground = await startTestPlayground([], {
      models: ['scripted', dead],
      createModel,
      checkModels: true,
    });
    t.after(() => playground.close());
    const { page, problems } = await openPlayground(context, playground.url);

    await page.getByLabel('Instructions').fill('Answer with a table when it helps.');
    await page.locator('#temperature').fill('0.7');
    assert.equal(await page.locator('#temperature-value').textContent(), '0.7');
    await ask(page, 'How much does Brightgrid Pro cost per year for 7 developers?');
    assert.equal(made[0]?.requests[0]?.temperature, 0.7, 'the temperature reached the model');

    const answer = page.locator('.block.answer .markdown');
    assert.equal(await answer.locator('strong').first().textContent(), '$1,680');
    assert.equal(await answer.locator('ul li').count(), 2);
    assert.equal(await answer.locator('em').textContent(), '7 developers');
    assert.equal(await answer.locator('table td code').textContent(), '$1,680');
    assert.equal(await answer.locator('a').count(), 1, 'only the https link is a link');
    assert.equal(await answer.locator('a').getAttribute('href'), 'https://example.com/pricing');
    assert.match(String(await answer.textContent()), /\[this\]\(javascript:alert\(1\)\)/);
    assert.match(String(await answer.textContent()), /<img src=x onerror="window.__xss = 1"> <script>/);
    assert.equal(
      await page.locator('main img, main script, main [onerror]').count(),
      0,
      'no element from the text',
    );
    assert.equal(await page.evaluate('window.__xss'), undefined);

    // The run's whole system prompt, with the instructions, folded under its title.
    const prompt = page.locator('#system-prompt-box');
    assert.equal(await prompt.isVisible(), true);
    await prompt.locator('summary').click();
    assert.match(
      String(await page.locator('#system-prompt').textContent()),
      /Answer with a table when it helps\./,
    );
    await checkState(page, 'markdown-answer');

    // "Edit and run again" brings the instructions and the temperature back.
    await page.getByLabel('Instructions').fill('');
    await page.getByRole('button', { name: 'Edit and run again' }).click();
    assert.equal(await page.getByLabel('Instructions').inputValue(), 'Answer with a table when it helps.');
    assert.equal(await page.locator('#temperature').inputValue(), '0.7');

    // A model whose server does not answer: said beside Run, and no run starts.
    await page.getByLabel('Model', { exact: true }).selectOption(dead);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const error = page.locator('#form-error');
    await error.filter({ hasText: 'does not answer' }).waitFor(TIMEOUT);
    assert.match(
      String(await error.textContent()),
      /qwen-dead · 127\.0\.0\.1:\d+ does not answer: nothing listens/,
    );
    assert.equal(await focused(page), 'form-error');
    await checkState(page, 'model-not-answering');
    // The browser logs the refused request itself (a 502); nothing else went wrong.
    assert.deepEqual(
      problems.filter((p) => !/status of 502/.test(p)),
      [],
    );
    await page.close();
  });

  test('past runs: search, filter by status and model, delete after a confirmation', async (t) => {
    const { createModel } = models({
      scripted: [
        ['Thought: known.\nAnswer: Paris is the capital of France.'],
        ['Thought: try.\nAction: calculator[1 +]', 'Thought: again.\nAction: calculator[1 +]'],
      ],
      other: [['Thought: known.\nAnswer: Berlin is the capital of Germany.']],
    });
    const playground = await startTestPlayground([], { models: ['scripted', 'other'], createModel });
    t.after(() => playground.close());
    const { page, problems } = await openPlayground(context, playground.url);
    await ask(page, 'Capital of France?');
    await page.locator('#max-steps').fill('2');
    await ask(page, 'One plus what?');
    await page.getByLabel('Model', { exact: true }).selectOption('other');
    await ask(page, 'Capital of Germany?');
    const items = page.locator('#runs li.past-run');
    await waitFor('three past runs', async () => ((await items.count()) === 3 ? true : undefined));

    // Search looks in the answers too; each word must be there.
    await page.getByLabel('Search past runs').fill('paris');
    await waitFor('one run found', async () => ((await items.count()) === 1 ? true : undefined));
    assert.equal(await items.first().locator('.run-link').textContent(), 'Capital of France?');
    assert.equal(await page.locator('#runs-count').textContent(), '1 run matches.');
    await page.getByLabel('Search past runs').fill('capital');
    await waitFor('two runs found', async () => ((await items.count()) === 2 ? true : undefined));
    await page.getByLabel('Ran on').selectOption('other');
    await waitFor('one run of the other model', async () => ((await items.count()) === 1 ? true : undefined));
    assert.equal(await items.first().locator('.run-link').textContent(), 'Capital of Germany?');
    await checkState(page, 'past-runs-filtered');
    await page.getByLabel('Ran on').selectOption('');
    await page.getByLabel('Search past runs').fill('');
    await page.getByLabel('Ended').selectOption('max_steps');
    await waitFor('the run that hit its limit', async () =>
      (await items.count()) === 1 &&
      (await items.first().locator('.run-link').textContent()) === 'One plus what?'
        ? true
        : undefined,
    );
    await page.getByLabel('Ended').selectOption('');
    await waitFor('three past runs again', async () => ((await items.count()) === 3 ? true : undefined));

    // Delete asks first, in a dialog; Keep it changes nothing.
    const france = items.filter({ hasText: 'Capital of France?' });
    const id = String(await france.getAttribute('data-id'));
    await france.getByRole('button', { name: /^Delete/ }).click();
    const dialog = page.locator('#delete-dialog');
    await dialog.waitFor({ state: 'visible' });
    assert.match(String(await dialog.textContent()), /“Capital of France\?”.*cannot be undone/s);
    assert.equal(await focused(page), 'delete-cancel', 'focus starts on the safe choice');
    await checkState(page, 'delete-confirmation');
    await page.getByRole('button', { name: 'Keep it' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.ok(existsSync(path.join(playground.runsDir, `${id}.jsonl`)));
    await france.getByRole('button', { name: /^Delete/ }).click();
    await page.getByRole('button', { name: 'Delete the run' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await waitFor('the run gone from the list', async () => ((await items.count()) === 2 ? true : undefined));
    assert.equal(existsSync(path.join(playground.runsDir, `${id}.jsonl`)), false, 'its trace file is gone');
    assert.match(String(await page.locator('#runs-count').textContent()), /Deleted “Capital of France\?”/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('run on both and compare side by side; save a run as a test', async (t) => {
    const testsDir = tempDir('taoloop-tests-');
    const { createModel } = models({
      scripted: [
        [
          'Thought: I compute.\nAction: calculator[20 * 12 * 7]',
          'Thought: done.\nAnswer: **$1,680** per year',
        ],
      ],
      other: [
        [
          'Thought: Per month first.\nAction: calculator[20 * 7]',
          `Thought: Then the year.\nAction: calculator[140 * 12]`,
          'Thought: done.\nAnswer: $1,680',
        ],
      ],
    });
    const playground = await startTestPlayground([], {
      models: ['scripted', 'other'],
      createModel,
      testsDir,
    });
    t.after(() => playground.close());
    const { page, problems } = await openPlayground(context, playground.url);
    await page.getByLabel('Question').fill('How much per year for 7 developers at $20 a month?');
    await page.getByLabel('Also run on').selectOption('other');
    await page.getByRole('button', { name: 'Run on both' }).click();
    const compare = page.locator('#compare');
    await compare.waitFor({ state: 'visible', ...TIMEOUT });
    await page.locator('#compare-status', { hasText: 'Both runs have ended' }).waitFor(TIMEOUT);
    assert.match(page.url(), /#\/compare\/[\w.-]+\/[\w.-]+$/);
    const table = page.locator('.compare-table');
    assert.deepEqual(await table.locator('tbody .step-row th').allTextContents(), [
      'Totals',
      'Step 1',
      'Step 2',
      'Step 3',
    ]);
    const heads = await table.locator('thead th').allTextContents();
    assert.match(heads[0] ?? '', /^Run A · scripted/);
    assert.match(heads[1] ?? '', /^Run B · other/);
    const totals = await table.locator('tbody.totals td').allTextContents();
    assert.match(totals[0] ?? '', /answered · 2 steps.*240 in \/ 60 out tokens/);
    assert.match(totals[1] ?? '', /answered · 3 steps.*360 in \/ 90 out tokens/);
    const step3 = await table.locator('tbody').nth(3).locator('td').allTextContents();
    assert.match(step3[0] ?? '', /No step 3/);
    assert.match(step3[1] ?? '', /Answer\$1,680/);
    assert.equal(
      await table.locator('tbody').nth(2).locator('td strong').textContent(),
      '$1,680',
      'Markdown',
    );
    await checkState(page, 'compare-view');

    // Closed, the page shows a run again; two past runs ticked are compared the same way.
    await page.getByRole('button', { name: 'Close comparison' }).click();
    await compare.waitFor({ state: 'hidden' });
    const boxes = page.locator('#runs li.past-run input[type="checkbox"]');
    await waitFor('two past runs', async () => ((await boxes.count()) === 2 ? true : undefined));
    assert.equal(await page.locator('#compare-runs').isDisabled(), true);
    await boxes.nth(0).check();
    await boxes.nth(1).check();
    await page.getByRole('button', { name: 'Compare the two runs' }).click();
    await page.locator('#compare-status', { hasText: 'Both runs have ended' }).waitFor(TIMEOUT);
    assert.equal(await table.locator('tbody .step-row th').count(), 4);
    await page.getByRole('button', { name: 'Close comparison' }).click();

    // Save as test: where the fixture is, and the command that runs it.
    await page.locator('#runs .run-link').last().click();
    await page.locator('.block.end').waitFor(TIMEOUT);
    await page.getByRole('button', { name: 'Save as test' }).click();
    const saved = page.locator('#saved-test');
    await saved.filter({ hasText: 'Saved as a test' }).waitFor(TIMEOUT);
    const file = String(await saved.locator('code').first().textContent());
    assert.ok(file.startsWith(testsDir) && file.endsWith('.jsonl'), file);
    assert.equal(await saved.locator('code').nth(1).textContent(), `npx taoloop test ${testsDir}`);
    await checkState(page, 'saved-as-test');
    // The tools the run had (all those ticked), as `taoloop test` would take them from the fixture.
    const check = await checkTraceFile(file, { tools: testTools([]) });
    assert.equal(check.passed, true, JSON.stringify(check.differences));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('fork from a step: the dialog, the fork with its link to the parent, no write run again', async (t) => {
    const { createModel, made } = models({
      scripted: [
        [
          'Thought: I save the price first.\nAction: write_note[Pro is $20 a month]',
          'Thought: Now the total.\nAction: calculator[20 * 12 * 7]',
          'Thought: done.\nAnswer: $1,680 per year',
        ],
        ['Thought: The tool says 2,000.\nAnswer: $2,000 per year'],
      ],
    });
    const playground = await startTestPlayground([], { createModel });
    t.after(() => playground.close());
    const { page, problems } = await openPlayground(context, playground.url);
    await page.getByLabel('Question').fill('How much per year for 7 developers?');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('button', { name: 'Approve' }).click(TIMEOUT);
    await page.locator('.block.end.answered').waitFor(TIMEOUT);
    const parentUrl = page.url();
    const parentId = /#\/runs\/([\w.-]+)$/.exec(parentUrl)?.[1];
    assert.ok(parentId);
    assert.deepEqual(playground.notes, ['Pro is $20 a month']);

    await page.getByRole('button', { name: 'Fork from here (step 2)' }).click();
    const dialog = page.locator('#fork-dialog');
    await dialog.waitFor({ state: 'visible' });
    assert.equal(await page.locator('#fork-title').textContent(), 'Fork from step 2');
    assert.equal(
      await page.locator('#fork-turn').inputValue(),
      'Thought: Now the total.\nAction: calculator[20 * 12 * 7]',
    );
    assert.equal(await page.locator('#fork-observation').inputValue(), '1680');
    assert.equal(await focused(page), 'fork-observation');
    await page.locator('#fork-observation').fill('2000');
    await checkState(page, 'fork-dialog');
    await page.getByRole('button', { name: 'Run from here' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.waitForURL((url) => url.hash.startsWith('#/runs/') && !url.hash.endsWith(parentId));
    await page.locator('.block.end.answered').waitFor(TIMEOUT);
    assert.equal(await page.locator('.block.answer .text').textContent(), '$2,000 per year');
    const note = page.locator('#fork-note');
    assert.equal(await note.textContent(), `Forked from run ${parentId} at step 2 (you played the tool).`);
    assert.match(
      String(await page.locator('.step[data-step="1"] .replayed').textContent()),
      /Replayed from the parent run/,
    );
    assert.match(
      String(await page.locator('.step[data-step="2"] .replayed').textContent()),
      /played the tool/,
    );
    assert.deepEqual(playground.notes, ['Pro is $20 a month'], 'the write tool did not run again');
    assert.equal(made[1]?.requests.length, 1, 'the live model wrote step 3 only');
    assert.match(made[1]?.requests[0]?.messages.map((m) => m.content).join('\n') ?? '', /Observation: 2000/);
    await checkState(page, 'forked-run');

    // The link goes back to the parent.
    await note.getByRole('link').click();
    await page.waitForURL((url) => url.hash === `#/runs/${parentId}`);
    await page.locator('.block.end.answered').waitFor(TIMEOUT);
    assert.equal(await page.locator('#fork-note').isHidden(), true);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
