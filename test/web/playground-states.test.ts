/**
 * The playground page through its states (empty, running, approval, finished), at 1280x800 and 390x844, in
 * light and dark: no sideways scroll on the phone, no serious or critical axe-core violation, a screenshot
 * of each into test-output/playground/ (ignored by git; look at them). Also: a streamed turn grows as it
 * is written, a stop keeps it, a reload mid-run re-attaches from the URL, keyboard and focus.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { resolveModelSpec } from '../../src/node/resolve-model.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import {
  browserProblem,
  launchChromium,
  pacedModel,
  startTestPlayground,
  type TestPlayground,
} from './helpers.js';
import { checkState as checkPage, focused, openPlayground as openPage } from './page-checks.js';

const skip = await browserProblem();
const SCREENSHOTS = path.resolve(import.meta.dirname, '../../test-output/playground');

/** The approval scenario: a format error, an invented observation (cut), the write tool, the answer. */
const TURNS = [
  'Let me think about the price first.',
  'Thought: I need the yearly price for 7 developers at $20 a month.\nAction: calculator[20 * 12 * 7]\nObservation: 9999',
  'Thought: I will save the total so the team can find it.\nAction: write_note[Brightgrid Pro, 7 developers: $1,680 per year]',
  'Thought: The note is saved and the total is known.\nAnswer: $1,680 per year',
];
const QUESTION = 'How much does Brightgrid Pro cost per year for 7 developers?';

/**
 * Checks the page in every size and scheme: no sideways scroll at any size, no serious or critical axe
 * violation, and a screenshot named after the state (see `page-checks.ts`).
 */
function checkState(page: Page, state: string): Promise<void> {
  return checkPage(page, state, SCREENSHOTS);
}

describe('the playground, state by state', { skip }, () => {
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  before(async () => {
    ({ context, close: closeBrowser } = await launchChromium());
  });
  after(() => closeBrowser?.());

  test('a streamed turn grows as it is written, never past an invented observation; a stop keeps it', async (t) => {
    const long = `Thought: ${'I compare the plans one by one, month by month. '.repeat(20)}`;
    const playground: TestPlayground = await startTestPlayground([], {
      createModel: async () =>
        pacedModel(
          [
            'Thought: First the price.\nAction: calculator[20 * 12 * 7]\nObservation: 9999\nThought: invented',
            `${long}\nAction: calculator[1 + 1]`,
          ],
          { chunkChars: 4, delayMs: 60 },
        ),
    });
    t.after(() => playground.close());
    const { page, problems } = await openPage(context, playground.url);
    await checkState(page, 'empty');
    // Records the text of every live (being written) block each time the trace changes.
    await page.evaluate(`{
      const seen = (window.__seen = []);
      new MutationObserver(() => {
        for (const live of document.querySelectorAll('#trace .block.live')) {
          const text = live.querySelector('.text')?.textContent ?? '';
          seen.push({ step: live.getAttribute('data-step') ?? '', length: text.length, text });
        }
      }).observe(document.getElementById('trace'), { childList: true, subtree: true, characterData: true });
    }`);
    await page.getByLabel('Question').fill('Compare the plans');
    await page.getByLabel('Question').press('Control+Enter');
    await page.waitForURL(/#\/runs\/[\w.-]+$/); // the run has an address
    // Step 2's thought is long and slow: the page is running while it is checked.
    await page.locator('.step[data-step="2"] .block.thought.live').waitFor();
    const liveText = page.locator('.step[data-step="2"] .block.live .text');
    for (let tries = 0; (await liveText.textContent())!.length <= 120; tries += 1) {
      assert.ok(tries < 300, 'step 2 keeps growing');
      await page.waitForTimeout(50);
    }
    await checkState(page, 'running');
    const seen = (await page.evaluate('window.__seen')) as { step: string; length: number; text: string }[];
    const step1 = [...new Set(seen.filter((s) => s.step === '1').map((s) => s.length))];
    assert.ok(step1.length >= 3, `step 1 grew in ${step1.length} steps before its turn ended`);
    assert.ok(
      seen.every((s) => !/Observation|9999|invented/.test(s.text)),
      'nothing from the invented observation on was shown',
    );
    // The finished turn of step 1 replaced its live blocks with the parsed ones.
    assert.equal(await page.locator('.step[data-step="1"] .block.live').count(), 0);
    assert.equal(
      await page.locator('.step[data-step="1"] .block.action .text').textContent(),
      'calculator[20 * 12 * 7]',
    );

    const before = String(await page.locator('.step[data-step="2"] .block.live .text').textContent());
    await page.keyboard.press('Escape');
    await page.locator('.block.end').waitFor();
    const kept = page.locator('.step[data-step="2"] .block.thought.unfinished');
    assert.equal(await kept.count(), 1, 'what was written stays on screen');
    assert.ok(String(await kept.locator('.text').textContent()).startsWith(before.slice(0, 100)));
    assert.match(String(await kept.locator('.label').textContent()), /unfinished/);
    const end = String(await page.locator('.block.end').textContent());
    assert.match(end, /you stopped the run\. 1 model turn in/);
    assert.doesNotMatch(end, /aborted\./);
    assert.equal(await focused(page), 'block end aborted', 'focus moves to the end of the run');

    // Reopened from its trace (another page), the unfinished text is there too.
    const again = await openPage(context, page.url());
    await again.page.locator('.block.end').waitFor();
    assert.equal(await again.page.locator('.block.thought.unfinished').count(), 1);
    assert.deepEqual([...problems, ...again.problems], []);
    await again.page.close();
    await page.close();
  });

  test('approval, reload mid-run, the inspector, run again; keyboard and focus', async (t) => {
    const playground = await startTestPlayground([], {
      createModel: async () => pacedModel(TURNS, { chunkChars: 12, delayMs: 10 }),
    });
    t.after(() => playground.close());
    const { page, problems } = await openPage(context, playground.url);
    await page.getByLabel('Question').fill(QUESTION);
    await page.getByLabel('fetch_page').uncheck();
    await page.locator('#max-steps').fill('5');
    await page.evaluate(`{
      const log = (window.__focus = []);
      document.addEventListener('focusin', (event) => log.push(event.target.id || event.target.className));
    }`);
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('button.approve:enabled').waitFor();
    assert.deepEqual(
      await page.evaluate('window.__focus'),
      ['start', 'trace-heading', 'approve'],
      'after Run focus goes to the trace, then to the approval',
    );
    assert.equal(await focused(page), 'approve');
    const runUrl = page.url();
    assert.match(runUrl, /#\/runs\/[\w.-]+$/);
    await checkState(page, 'approval');

    // A reload (or the link opened elsewhere) re-attaches to the live run, approval included.
    await page.reload();
    await page.locator('button.approve:enabled').waitFor();
    assert.equal(page.url(), runUrl);
    assert.equal(await page.locator('.step').count(), 3);
    assert.equal(await page.getByLabel('Question').inputValue(), QUESTION, 'the form shows the run again');
    assert.equal(await page.getByLabel('fetch_page').isChecked(), false);
    assert.equal(await page.locator('#max-steps').inputValue(), '5');

    await page.getByRole('button', { name: 'Approve' }).click();
    await page.locator('.block.approval .decision', { hasText: 'Approved.' }).waitFor();
    await page.locator('.block.end').waitFor();
    assert.equal(await focused(page), 'block end answered', 'at the end, focus goes to how the run ended');
    assert.deepEqual(playground.notes, ['Brightgrid Pro, 7 developers: $1,680 per year']);
    await checkState(page, 'finished');

    // Steps: numbered groups with model time, tool time and tokens; a timeline bar per step.
    assert.deepEqual(await page.locator('.step-title').allTextContents(), [
      'Step 1',
      'Step 2',
      'Step 3',
      'Step 4',
    ]);
    assert.match(
      String(await page.locator('.step[data-step="3"] .step-figures').textContent()),
      /^model \d+\.\d+ s · tool \d+\.\d+ s · 120 in \/ 30 out tokens$/,
    );
    // Step 2's stream was cut at the invented observation: the server sent no usage, so it is estimated.
    assert.match(
      String(await page.locator('.step[data-step="2"] .step-figures').textContent()),
      /· about \d+ in \/ \d+ out tokens$/,
    );
    assert.equal(await page.locator('#timeline > li').count(), 4);
    assert.match(
      String(await page.locator('#count-tokens').textContent()),
      /^about [\d,]+ \([\d,]+ in, [\d,]+ out\)$/,
    );
    assert.match(String(await page.locator('#cost-help').textContent()), /--price IN\/OUT/);

    // The inspector of step 2: what was sent, what came back, what was dropped.
    const inspector = page.locator('.step[data-step="2"] .inspector');
    await inspector.locator('summary').click();
    const parts = await inspector
      .locator('.inspect-part')
      .evaluateAll((sections) =>
        sections.map((s) => [
          s.querySelector('h4')?.textContent ?? '',
          s.querySelector('pre')?.textContent ?? '',
        ]),
      );
    const part = (title: string) => parts.find(([h]) => h.startsWith(title))?.[1] ?? '';
    assert.match(part('System prompt'), /calculator/);
    assert.match(part('Stop sequences'), /Observation/);
    assert.match(part('Raw model text'), /Observation: 9999$/);
    assert.match(part('Parsed turn'), /"tool": "calculator"/);
    assert.match(part('Dropped'), /Observation: 9999/);
    const sent = await inspector.locator('.messages > li').allTextContents();
    assert.ok(
      sent.some((m) => m.includes(QUESTION)),
      'the question is among the messages sent',
    );
    assert.ok(
      sent.some((m) => m.includes('Let me think about the price first.')),
      'and step 1 reply',
    );

    // Run again: same question, model, tools and limits, a new address.
    await page.getByRole('button', { name: 'Run again', exact: true }).click();
    await page.waitForURL((url) => url.href !== runUrl);
    await page.locator('button.approve:enabled').waitFor();
    assert.equal(await page.locator('#run-title').textContent(), QUESTION);
    assert.match(String(await page.locator('#run-meta').textContent()), /tools: calculator, write_note$/);
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('.block.end').waitFor();

    // Edit and run again: the form gets the run's choices and the question takes focus.
    await page.getByLabel('Question').fill('');
    await page.getByLabel('fetch_page').check();
    await page.getByRole('button', { name: 'Edit and run again' }).click();
    assert.equal(await focused(page), 'question');
    assert.equal(await page.getByLabel('Question').inputValue(), QUESTION);
    assert.equal(await page.getByLabel('fetch_page').isChecked(), false);

    // No tool ticked: refused on the page, before any run.
    for (const box of await page.locator('#tools input').all()) await box.uncheck();
    const runsBefore = await page.locator('#runs li').count();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    assert.match(String(await page.locator('#form-error').textContent()), /Tick at least one tool/);
    assert.equal(await page.locator('#runs li').count(), runsBefore);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a retry of a failing server shows as it happens', async (t) => {
    // The model's own retry (the AI SDK's, after the server's retry-after-ms), reported as the retried
    // attempt is sent; each answer takes a second, so the page can be looked at before the run ends.
    const server = await startFakeOpenAI({
      replies: ['Thought: easy.\nAnswer: 4'],
      failFirst: { count: 1, status: 503, message: 'overloaded', headers: { 'retry-after-ms': '1500' } },
      responseDelayMs: 1000,
    });
    t.after(() => server.close());
    const playground = await startTestPlayground([], {
      createModel: () => resolveModelSpec(`openai-compatible:${server.baseURL}#m`, {}),
    });
    t.after(() => playground.close());
    const { page, problems } = await openPage(context, playground.url);
    await page.getByLabel('Question').fill('2 + 2?');
    await page.getByRole('button', { name: 'Run' }).click();
    const retry = page.locator('.step[data-step="1"] .block.retry');
    await retry.waitFor();
    assert.equal(await page.locator('.block.end').count(), 0, 'shown while the retried call is under way');
    assert.match(
      String(await retry.textContent()),
      /Retry 1 of 2.*HTTP 503\. Trying again \(waited 1\.[5-9]\d* s\)/,
    );
    assert.match(String(await page.locator('#status').textContent()), /retry 1 of 2 after HTTP 503/);
    await page.locator('.block.end.answered').waitFor();
    assert.equal(server.received, 2);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a follow-up question continues the conversation, shown as one thread', async (t) => {
    const playground = await startTestPlayground([], {
      createModel: async () => {
        // Each run's model answers from what it was sent: the follow-up sees the first question.
        const { scriptedModel } = await import('../../src/testing/scripted-model.js');
        return scriptedModel([
          (request) =>
            request.messages.some((m) => m.content.includes('Capital of Portugal?')) &&
            request.messages.some((m) => m.content.includes('And its population?'))
              ? 'Thought: Lisbon, from before.\nAnswer: about 545,000'
              : 'Thought: easy.\nAnswer: Lisbon',
        ]);
      },
    });
    t.after(() => playground.close());
    const { page, problems } = await openPage(context, playground.url);
    await page.getByLabel('Question').fill('Capital of Portugal?');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('.block.end.answered').waitFor();
    const followUp = page.getByLabel('Follow-up (continues this conversation)');
    await followUp.fill('And its population?');
    await followUp.press('Control+Enter');
    await page.locator('#thread li').waitFor();
    await page.locator('.block.end.answered').waitFor();
    assert.deepEqual(await page.locator('#thread li p').allTextContents(), [
      'Capital of Portugal?',
      'Lisbon',
    ]);
    assert.equal(await page.locator('#run-title').textContent(), 'And its population?');
    assert.equal(await page.locator('.block.answer .text').textContent(), 'about 545,000');
    // Reloaded, the follow-up still shows its thread.
    await page.reload();
    await page.locator('.block.end.answered').waitFor();
    assert.deepEqual(await page.locator('#thread li p').allTextContents(), [
      'Capital of Portugal?',
      'Lisbon',
    ]);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the model picker names the model first; two models on one server read apart', async (t) => {
    const playground = await startTestPlayground(TURNS, {
      models: [
        'openai-compatible:http://127.0.0.1:9/v1#qwen2.5-7b',
        'openai-compatible:http://127.0.0.1:9/v1#llama-3.2-3b',
      ],
    });
    t.after(() => playground.close());
    const { page } = await openPage(context, playground.url);
    assert.deepEqual(await page.locator('#model option').allTextContents(), [
      'qwen2.5-7b · 127.0.0.1:9',
      'llama-3.2-3b · 127.0.0.1:9',
    ]);
    await page.close();
  });
});
